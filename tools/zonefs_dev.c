// SPDX-License-Identifier: GPL-2.0
/*
 * mkzonefs device access: probe, zone report, signature check, and the
 * format: erase the old superblock, reset the zones, write the superblock,
 * finish zone 0.
 *
 * The device is opened once, with O_EXCL so that nobody can mount or claim
 * it while we work, and with O_DIRECT so that the superblock reaches the
 * zone as one aligned write at the write pointer. Every buffer passed to
 * read or write is therefore aligned.
 */
#include <blkid/blkid.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>

#include "mkzonefs.h"

/* Zones asked for in one BLKREPORTZONE call. */
#define ZONEFS_REPORT_BATCH	4096U

/*
 * When zone 0 is conventional, the erase before the format zeroes its first
 * MiB, where other file systems keep their superblocks (btrfs at 64 KiB, for
 * example), so that no stale signature survives the format.
 */
#define ZONEFS_WIPE_SIZE	(1024U * 1024U)

static unsigned int zonefs_max_u(unsigned int a, unsigned int b)
{
	return a > b ? a : b;
}

/*
 * Is the device mounted? mountinfo's third field is the major:minor of the
 * mounted device. On success, *where points to a malloc()ed mount point.
 */
static bool zonefs_dev_is_mounted(dev_t rdev, char **where)
{
	unsigned int maj, min;
	char *line = NULL;
	size_t size = 0;
	bool found = false;
	char mnt[4096];
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;

	while (getline(&line, &size, f) > 0) {
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min,
			   mnt) != 3)
			continue;
		if (makedev(maj, min) == rdev) {
			*where = strdup(mnt);
			found = true;
			break;
		}
	}

	free(line);
	fclose(f);
	return found;
}

/*
 * Does another block device (device mapper, md...) hold this one? Copies
 * the first holder's name into @holder.
 */
static bool zonefs_dev_is_held(dev_t rdev, char *holder, size_t len)
{
	struct dirent *de;
	char path[128];
	bool held = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders",
		 major(rdev), minor(rdev));
	dir = opendir(path);
	if (!dir)
		return false;

	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(holder, len, "%s", de->d_name);
		held = true;
		break;
	}

	closedir(dir);
	return held;
}

/*
 * Read the zoned model from sysfs for display, e.g. "host-managed". Returns
 * false if sysfs says "none", true otherwise (also when it cannot tell:
 * BLKGETZONESZ decides then).
 */
static bool zonefs_dev_read_model(struct zonefs_dev *dev, dev_t rdev)
{
	char path[128];
	size_t n;
	FILE *f;

	snprintf(dev->d_model, sizeof(dev->d_model), "unknown");
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/zoned",
		 major(rdev), minor(rdev));
	f = fopen(path, "re");
	if (!f)
		return true;
	n = fread(dev->d_model, 1, sizeof(dev->d_model) - 1, f);
	fclose(f);
	dev->d_model[n] = '\0';
	dev->d_model[strcspn(dev->d_model, "\n")] = '\0';
	return strcmp(dev->d_model, "none") != 0;
}

/**
 * zonefs_dev_open() - check that @path is a free zoned block device, open it
 * @dev:     filled in; d_fd is -1 on failure
 * @path:    device path
 * @dry_run: open read-only
 *
 * A mounted or held device is refused even with -f: formatting it would
 * pull the data from under its user.
 *
 * Return: 0, or -errno after printing why.
 */
int zonefs_dev_open(struct zonefs_dev *dev, const char *path, bool dry_run)
{
	int flags = O_EXCL | O_DIRECT | O_CLOEXEC;
	unsigned int zone_sectors = 0;
	char holder[256];
	char *where = NULL;
	struct stat st;
	int lbs;

	memset(dev, 0, sizeof(*dev));
	dev->d_path = path;
	dev->d_fd = -1;

	if (stat(path, &st) < 0) {
		zonefs_error("%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISBLK(st.st_mode)) {
		zonefs_error("%s: not a block device", path);
		return -ENOTBLK;
	}
	if (zonefs_dev_is_mounted(st.st_rdev, &where)) {
		zonefs_error("%s: is mounted on %s", path, where);
		free(where);
		return -EBUSY;
	}
	if (zonefs_dev_is_held(st.st_rdev, holder, sizeof(holder))) {
		zonefs_error("%s: is in use by %s", path, holder);
		return -EBUSY;
	}
	if (!zonefs_dev_read_model(dev, st.st_rdev)) {
		zonefs_error("%s: not a zoned block device", path);
		return -EINVAL;
	}

	flags |= dry_run ? O_RDONLY : O_RDWR;
	dev->d_fd = open(path, flags);
	if (dev->d_fd < 0) {
		if (errno == EBUSY)
			zonefs_error("%s: is busy (opened exclusively by another user)",
				     path);
		else
			zonefs_error("%s: cannot open: %s", path,
				     strerror(errno));
		return -errno;
	}

	if (ioctl(dev->d_fd, BLKGETZONESZ, &zone_sectors) < 0 ||
	    !zone_sectors) {
		zonefs_error("%s: not a zoned block device", path);
		return -EINVAL;
	}
	dev->d_zone_sectors = zone_sectors;

	if (ioctl(dev->d_fd, BLKSSZGET, &lbs) < 0 ||
	    ioctl(dev->d_fd, BLKPBSZGET, &dev->d_pbs) < 0 ||
	    ioctl(dev->d_fd, BLKGETSIZE64, &dev->d_size) < 0) {
		zonefs_error("%s: cannot get the block sizes: %s", path,
			     strerror(errno));
		return -errno;
	}
	dev->d_lbs = lbs;
	if (!dev->d_pbs)
		dev->d_pbs = dev->d_lbs;
	return 0;
}

/**
 * zonefs_dev_report() - read the whole zone report into @dev->d_zones
 * @dev: an open device
 *
 * Return: 0, or -errno after printing why.
 */
int zonefs_dev_report(struct zonefs_dev *dev)
{
	struct blk_zone_report *rep;
	unsigned int nr = 0, i, got = 0;
	uint64_t sector = 0;
	bool has_cap = true;

	if (ioctl(dev->d_fd, BLKGETNRZONES, &nr) < 0 || !nr) {
		zonefs_error("%s: cannot get the number of zones: %s",
			     dev->d_path, nr ? strerror(errno) : "no zones");
		return nr ? -errno : -EINVAL;
	}

	dev->d_zones = calloc(nr, sizeof(*dev->d_zones));
	rep = calloc(1, sizeof(*rep) +
		     ZONEFS_REPORT_BATCH * sizeof(struct blk_zone));
	if (!dev->d_zones || !rep) {
		free(rep);
		zonefs_error("out of memory for %u zones", nr);
		return -ENOMEM;
	}

	while (got < nr) {
		rep->sector = sector;
		rep->nr_zones = ZONEFS_REPORT_BATCH;
		if (rep->nr_zones > nr - got)
			rep->nr_zones = nr - got;
		if (ioctl(dev->d_fd, BLKREPORTZONE, rep) < 0) {
			zonefs_error("%s: zone report at sector %llu failed: %s",
				     dev->d_path, (unsigned long long)sector,
				     strerror(errno));
			free(rep);
			return -errno;
		}
		if (!rep->nr_zones)
			break;
		if (!(rep->flags & BLK_ZONE_REP_CAPACITY))
			has_cap = false;
		for (i = 0; i < rep->nr_zones && got < nr; i++) {
			struct blk_zone *z = &dev->d_zones[got++];

			*z = rep->zones[i];
			if (!(rep->flags & BLK_ZONE_REP_CAPACITY))
				z->capacity = z->len;
		}
		sector = rep->zones[i - 1].start + rep->zones[i - 1].len;
	}
	free(rep);

	dev->d_nr_zones = got;
	dev->d_has_capacity = has_cap;
	return 0;
}

/*
 * Look for our own magic in the first block of zone 0. libblkid may lack a
 * zonefs prober, or may fail on a zoned disk, so we never rely on it alone.
 * An empty sequential zone holds nothing and must not be read past its
 * write pointer.
 */
static int zonefs_dev_has_magic(struct zonefs_dev *dev, bool *found)
{
	const struct blk_zone *z = &dev->d_zones[0];
	size_t len = zonefs_max_u(ZONEFS_SUPER_SIZE, dev->d_lbs);
	struct zonefs_super *sb;
	void *buf;
	ssize_t n;
	int ret = 0;

	*found = false;
	if (!zonefs_zone_is_cnv(z) && z->cond != BLK_ZONE_COND_FULL &&
	    z->wp - z->start < len >> 9)
		return 0;
	if (!zonefs_zone_is_usable(z))
		return 0;

	if (posix_memalign(&buf, zonefs_max_u(4096, dev->d_lbs), len)) {
		zonefs_error("out of memory");
		return -ENOMEM;
	}
	n = pread(dev->d_fd, buf, len, z->start << 9);
	if (n != (ssize_t)len) {
		ret = n < 0 ? -errno : -EIO;
		zonefs_error("%s: cannot read zone 0: %s", dev->d_path,
			     strerror(-ret));
		goto free_buf;
	}
	sb = buf;
	*found = le32toh(sb->s_magic) == ZONEFS_MAGIC;

free_buf:
	free(buf);
	return ret;
}

/*
 * Ask libblkid for a file system or partition table signature. Returns 0
 * with the type in @type (empty if none), or -errno when the probe itself
 * failed (a read past a write pointer can fail on a host-managed disk):
 * then what the device holds is unknown.
 */
static int zonefs_dev_blkid(struct zonefs_dev *dev, char *type, size_t len)
{
	const char *val = NULL;
	blkid_probe pr;
	int rc;

	type[0] = '\0';
	errno = 0;
	pr = blkid_new_probe_from_filename(dev->d_path);
	if (!pr)
		return errno ? -errno : -EIO;

	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);

	errno = 0;
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &val, NULL) &&
		    blkid_probe_lookup_value(pr, "PTTYPE", &val, NULL))
			val = "unknown";
		snprintf(type, len, "%s", val);
	} else if (rc == -2) {
		snprintf(type, len, "ambiguous (several signatures)");
	} else if (rc < 0) {
		rc = errno ? -errno : -EIO;
		blkid_free_probe(pr);
		return rc;
	}
	blkid_free_probe(pr);
	return 0;
}

/**
 * zonefs_dev_check_signature() - refuse to overwrite a file system
 * @dev:     an open, reported device
 * @force:   overwrite anyway (-f)
 * @verbose: say what was found even when it is overwritten
 *
 * A probe that fails is a refusal too without @force: the device may hold
 * something libblkid could not read.
 *
 * Return: 0, -EEXIST if a signature was found without @force, or -errno
 * after printing why.
 */
int zonefs_dev_check_signature(struct zonefs_dev *dev, bool force,
			       bool verbose)
{
	char type[64];
	bool zonefs;
	int ret;

	ret = zonefs_dev_blkid(dev, type, sizeof(type));
	if (ret) {
		if (!force) {
			zonefs_error("%s: cannot probe for an existing signature (libblkid: %s), so what it holds is unknown (use -f to format anyway)",
				     dev->d_path, strerror(-ret));
			return ret;
		}
		if (verbose)
			printf("libblkid cannot probe %s (%s): formatting anyway (-f)\n",
			       dev->d_path, strerror(-ret));
	}
	if (!type[0]) {
		ret = zonefs_dev_has_magic(dev, &zonefs);
		if (ret)
			return ret;
		if (zonefs)
			snprintf(type, sizeof(type), "zonefs");
	}
	if (!type[0])
		return 0;

	if (!force) {
		zonefs_error("%s: already holds a %s signature (use -f to overwrite)",
			     dev->d_path, type);
		return -EEXIST;
	}
	if (verbose)
		printf("Overwriting the %s signature on %s\n", type,
		       dev->d_path);
	return 0;
}

/* Run one zone management ioctl over a range of zones. Returns 0 or -errno. */
static int zonefs_dev_zone_op(struct zonefs_dev *dev, unsigned long op,
			      uint64_t start, uint64_t sectors)
{
	struct blk_zone_range range = {
		.sector		= start,
		.nr_sectors	= sectors,
	};

	return ioctl(dev->d_fd, op, &range) < 0 ? -errno : 0;
}

/*
 * Make what was written so far durable: fsync() flushes the device's write
 * cache, and BLKFLSBUF drops the device's page cache, so that a buffered
 * reader (libblkid, a mount) sees what is on the device.
 */
static int zonefs_dev_sync(struct zonefs_dev *dev)
{
	if (fsync(dev->d_fd) < 0)
		return -errno;
	if (ioctl(dev->d_fd, BLKFLSBUF, 0) < 0)
		return -errno;
	return 0;
}

/*
 * Write zeros at the start of conventional zone 0: one superblock, or the
 * first ZONEFS_WIPE_SIZE bytes (where other file systems keep their
 * superblocks, btrfs at 64 KiB for example) when the zone holds them.
 */
static int zonefs_dev_zero_zone0(struct zonefs_dev *dev)
{
	const struct blk_zone *z = &dev->d_zones[0];
	size_t len = zonefs_max_u(ZONEFS_SUPER_SIZE, dev->d_pbs);
	void *buf;
	ssize_t n;
	int ret = 0;

	if ((z->capacity << 9) >= ZONEFS_WIPE_SIZE)
		len = zonefs_max_u(ZONEFS_WIPE_SIZE, len);
	if (posix_memalign(&buf, zonefs_max_u(4096, dev->d_pbs), len))
		return -ENOMEM;
	memset(buf, 0, len);
	n = pwrite(dev->d_fd, buf, len, z->start << 9);
	if (n != (ssize_t)len)
		ret = n < 0 ? -errno : -EIO;
	free(buf);
	return ret;
}

/*
 * Erase the old superblock, durably, before anything else is written: a
 * sequential zone 0 is reset, a conventional one zeroed. After this, a
 * format that stops half-way leaves a device that mounts as nothing.
 */
static int zonefs_dev_erase(struct zonefs_dev *dev, bool verbose)
{
	const struct blk_zone *z = &dev->d_zones[0];
	int ret;

	if (verbose)
		printf("Erasing the old superblock (%s zone 0)\n",
		       zonefs_zone_is_cnv(z) ? "zeroing" : "resetting");
	if (zonefs_zone_is_cnv(z)) {
		ret = zonefs_dev_zero_zone0(dev);
		if (ret) {
			zonefs_error("%s: cannot erase the old superblock: %s; no zone was reset, but the start of zone 0 may be partly overwritten",
				     dev->d_path, strerror(-ret));
			return ret;
		}
	} else {
		ret = zonefs_dev_zone_op(dev, BLKRESETZONE, z->start, z->len);
		if (ret) {
			zonefs_error("%s: cannot reset zone 0 to erase the old superblock: %s; nothing was written, the device holds what it held",
				     dev->d_path, strerror(-ret));
			return ret;
		}
	}
	ret = zonefs_dev_sync(dev);
	if (ret)
		zonefs_error("%s: cannot sync the erased superblock: %s; no zone was reset, the old superblock may still be on the device",
			     dev->d_path, strerror(-ret));
	return ret;
}

/* Most zones reset by one BLKRESETZONE, so that progress can be shown. */
#define ZONEFS_RESET_BATCH	1024U

/*
 * Reset every sequential zone with one BLKRESETZONE over the whole device:
 * the kernel sends it as one reset-all command (RESET WRITE POINTER with
 * ALL, a zone management send with select all), which leaves conventional
 * zones alone, instead of one command per zone. The caller uses it only
 * when every zone is usable: the per-range path skips offline and
 * read-only zones itself.
 * Return: 0, or -errno when the device refused it (nothing said yet).
 */
static int zonefs_dev_reset_all(struct zonefs_dev *dev, unsigned int total,
				bool verbose)
{
	if (verbose)
		printf("Resetting %u sequential zones with one device-wide reset (sectors 0 +%llu)\n",
		       total, (unsigned long long)(dev->d_size >> 9));
	fflush(stdout);
	return zonefs_dev_zone_op(dev, BLKRESETZONE, 0, dev->d_size >> 9);
}

/*
 * Reset every writable sequential zone after zone 0 (erased already).
 * With no offline or read-only zone, one device-wide reset does it. Else,
 * or if the device refuses that, contiguous writable sequential zones are
 * reset together, up to ZONEFS_RESET_BATCH at a time, skipping offline
 * and read-only zones, which cannot be reset. Progress goes to stdout: a
 * line rewritten after each batch on a terminal, one line before and
 * after otherwise.
 */
static int zonefs_dev_reset_seq(struct zonefs_dev *dev, bool verbose)
{
	bool tty = isatty(STDOUT_FILENO);
	bool all_usable = zonefs_zone_is_usable(&dev->d_zones[0]);
	unsigned int i, first, total = 0, done = 0;
	uint64_t sectors;
	int ret = -EAGAIN;

	for (i = 1; i < dev->d_nr_zones; i++) {
		const struct blk_zone *z = &dev->d_zones[i];

		if (!zonefs_zone_is_usable(z))
			all_usable = false;
		else if (!zonefs_zone_is_cnv(z))
			total++;
	}
	if (!total)
		return 0;
	if (!tty || verbose)
		printf("Resetting %u sequential zones\n", total);

	if (all_usable)
		ret = zonefs_dev_reset_all(dev, total, verbose);
	if (!ret) {
		printf("Reset %u sequential zones\n", total);
		return 0;
	}
	if (ret != -EAGAIN && verbose)
		printf("The device-wide reset failed (%s): resetting zone ranges\n",
		       strerror(-ret));

	i = 1;
	while (i < dev->d_nr_zones) {
		const struct blk_zone *z = &dev->d_zones[i];

		if (zonefs_zone_is_cnv(z) || !zonefs_zone_is_usable(z)) {
			i++;
			continue;
		}

		first = i;
		sectors = 0;
		while (i < dev->d_nr_zones && i - first < ZONEFS_RESET_BATCH &&
		       !zonefs_zone_is_cnv(&dev->d_zones[i]) &&
		       zonefs_zone_is_usable(&dev->d_zones[i]))
			sectors += dev->d_zones[i++].len;

		if (verbose)
			printf("Resetting zones %u to %u (sectors %llu +%llu)\n",
			       first, i - 1,
			       (unsigned long long)dev->d_zones[first].start,
			       (unsigned long long)sectors);
		fflush(stdout);
		ret = zonefs_dev_zone_op(dev, BLKRESETZONE,
					 dev->d_zones[first].start, sectors);
		if (ret) {
			if (tty && !verbose && done)
				printf("\n");
			fflush(stdout);
			zonefs_error("%s: cannot reset zones %u to %u: %s; the device now holds no file system: the old superblock is erased, sequential zones before zone %u are reset and the others may still hold data; format it again",
				     dev->d_path, first, i - 1, strerror(-ret),
				     first);
			return ret;
		}
		done += i - first;
		if (tty && !verbose) {
			printf("\rResetting sequential zones: %u of %u", done,
			       total);
			fflush(stdout);
		}
	}
	if (tty && !verbose)
		printf("\n");
	printf("Reset %u sequential zones\n", done);
	return 0;
}

/*
 * Write the superblock at the start of zone 0 (its write pointer, 0 after
 * the erase) with a multiple of the physical block size; finish a
 * sequential zone 0, so that it can never be written again; sync. If zone
 * 0 cannot be finished, the new superblock is erased again.
 */
static int zonefs_dev_write_super(struct zonefs_dev *dev,
				  const struct zonefs_ctl *ctl)
{
	const struct blk_zone *z = &dev->d_zones[0];
	size_t len = zonefs_max_u(ZONEFS_SUPER_SIZE, dev->d_pbs);
	void *buf;
	ssize_t n;
	int ret = 0, ret2;

	if (posix_memalign(&buf, zonefs_max_u(4096, dev->d_pbs), len)) {
		zonefs_error("%s: out of memory; the device now holds no file system: the old superblock is erased and every sequential zone is reset; format it again",
			     dev->d_path);
		return -ENOMEM;
	}
	memset(buf, 0, len);
	zonefs_super_encode(ctl, buf);

	n = pwrite(dev->d_fd, buf, len, z->start << 9);
	free(buf);
	if (n != (ssize_t)len) {
		ret = n < 0 ? -errno : -EIO;
		zonefs_error("%s: cannot write the superblock: %s; the device now holds no file system: the old superblock is erased and every sequential zone is reset; format it again",
			     dev->d_path, strerror(-ret));
		return ret;
	}

	if (!zonefs_zone_is_cnv(z)) {
		ret = zonefs_dev_zone_op(dev, BLKFINISHZONE, z->start, z->len);
		if (ret) {
			ret2 = zonefs_dev_zone_op(dev, BLKRESETZONE, z->start,
						  z->len);
			if (!ret2)
				ret2 = zonefs_dev_sync(dev);
			if (!ret2)
				zonefs_error("%s: cannot finish zone 0: %s; the device now holds no file system: the new superblock was erased again (zone 0 reset) and every sequential zone is reset; format it again",
					     dev->d_path, strerror(-ret));
			else
				zonefs_error("%s: cannot finish zone 0: %s, nor reset it again: %s; the device holds the new zonefs superblock in a zone 0 that is not full, and every sequential zone is reset; format it again",
					     dev->d_path, strerror(-ret),
					     strerror(-ret2));
			return ret;
		}
	}

	ret = zonefs_dev_sync(dev);
	if (ret)
		zonefs_error("%s: cannot sync: %s; the new superblock may not have reached the device, which then holds no file system, and every sequential zone is reset; format it again",
			     dev->d_path, strerror(-ret));
	return ret;
}

/* The signals that would cut a format short: held back while writing. */
static const int zonefs_held_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/**
 * zonefs_dev_format() - write zonefs to the device
 * @dev: an open, reported, checked device
 * @ctl: what to write (label, UUID, features)
 *
 * The old superblock is erased first, durably; then the sequential zones
 * are reset, the superblock written, a sequential zone 0 finished and the
 * device synced. INT, TERM, HUP and QUIT are blocked from the erase to
 * the end: one that arrives meanwhile takes effect once the device holds
 * the new file system (or, after a failure, none), and is reported. Any
 * failure after the erase says in one line what the device now holds.
 *
 * Return: 0, or -errno after printing why and what the device holds.
 */
int zonefs_dev_format(struct zonefs_dev *dev, const struct zonefs_ctl *ctl)
{
	sigset_t held, old, pending;
	unsigned int i;
	int ret;

	sigemptyset(&held);
	for (i = 0; i < ZONEFS_ARRAY_SIZE(zonefs_held_signals); i++)
		sigaddset(&held, zonefs_held_signals[i]);
	if (sigprocmask(SIG_BLOCK, &held, &old) < 0) {
		ret = -errno;
		zonefs_error("%s: cannot block signals: %s; nothing was written",
			     dev->d_path, strerror(-ret));
		return ret;
	}

	ret = zonefs_dev_erase(dev, ctl->c_verbose);
	if (!ret)
		ret = zonefs_dev_reset_seq(dev, ctl->c_verbose);
	if (!ret)
		ret = zonefs_dev_write_super(dev, ctl);
	if (!ret)
		printf("Formatted %s with zonefs\n", dev->d_path);
	fflush(stdout);

	/* A signal held back now takes effect, once the device is settled. */
	if (!ret && !sigpending(&pending)) {
		for (i = 0; i < ZONEFS_ARRAY_SIZE(zonefs_held_signals); i++) {
			int sig = zonefs_held_signals[i];

			if (!sigismember(&pending, sig))
				continue;
			zonefs_error("%s: SIG%s arrived while writing: the format was completed first",
				     dev->d_path, sigabbrev_np(sig));
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/**
 * zonefs_dev_close() - release what zonefs_dev_open() and the report took
 * @dev: a device, open or not
 */
void zonefs_dev_close(struct zonefs_dev *dev)
{
	if (dev->d_fd >= 0)
		close(dev->d_fd);
	dev->d_fd = -1;
	free(dev->d_zones);
	dev->d_zones = NULL;
}
