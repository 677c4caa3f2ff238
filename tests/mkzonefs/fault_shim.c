// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD library for the mkzonefs tests: it stops mkzonefs at a
 * chosen point, or makes one of its writes fail, so that a test can see
 * what a format that fails or is interrupted half-way leaves on the disk.
 * The tests build it with cc -shared -fPIC -ldl and set, in the
 * environment:
 *
 *   ZF_PAUSE_DIR=DIR     at the first fsync(), create DIR/paused and wait
 *                        until DIR/go exists (the old superblock is erased
 *                        then, and no zone is reset yet)
 *   ZF_FAIL_PWRITE=N     the Nth pwrite() fails with EIO, writing nothing
 *   ZF_FAIL_FSYNC=N      the Nth fsync() fails with EIO
 *   ZF_FAIL_RESET=N      the Nth BLKRESETZONE fails with EIO, resetting
 *                        nothing
 *   ZF_FAIL_FINISH=N     the Nth BLKFINISHZONE fails with EIO
 *   ZF_FAIL_READ=1       every read() fails with EIO (libblkid reads with
 *                        read(), mkzonefs with pread())
 *   ZF_LOG=FILE          append one line per write, flush, zone reset and
 *                        zone finish to FILE, in the order they happen
 *   ZF_FAKE_ZONES=S:C    make a plain block device (a loop device on the
 *                        host) look host-managed: zones of S sectors, the
 *                        first C conventional; the zone report, resets
 *                        (which write zeros), finishes and write pointers
 *                        are emulated in the process
 *
 * N may be a comma-separated list (ZF_FAIL_RESET=1,2). Counts start at 1
 * and include the calls libblkid makes, if any. As in the kernel, a reset
 * of the whole device resets every sequential zone and leaves the
 * conventional ones alone; any other range must hold sequential zones
 * only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>

#ifndef BLKFINISHZONE
#define BLKFINISHZONE	_IOW(0x12, 136, struct blk_zone_range)
#endif

static unsigned int n_pwrite, n_fsync, n_reset, n_finish;

/* The emulated zones of ZF_FAKE_ZONES, set up at the first zone ioctl. */
#define ZF_MAX_ZONES	4096
static unsigned long long fz_sectors;
static unsigned int fz_conv, fz_nr;
static unsigned long long fz_wp[ZF_MAX_ZONES];
static unsigned char fz_cond[ZF_MAX_ZONES];

static void zf_log(const char *fmt, ...)
{
	const char *path = getenv("ZF_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen64(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* Set up the emulated zones for the device open on @fd. */
static int fz_setup(int fd, int (*real_ioctl)(int, unsigned long, ...))
{
	const char *v = getenv("ZF_FAKE_ZONES");
	unsigned long long size;
	unsigned int i;

	if (!v)
		return 0;
	if (fz_nr)
		return 1;
	if (sscanf(v, "%llu:%u", &fz_sectors, &fz_conv) != 2 || !fz_sectors ||
	    real_ioctl(fd, BLKGETSIZE64, &size) < 0)
		return 0;
	fz_nr = size / 512 / fz_sectors;
	if (fz_nr > ZF_MAX_ZONES)
		fz_nr = ZF_MAX_ZONES;
	for (i = 0; i < fz_nr; i++) {
		fz_wp[i] = i * fz_sectors;
		fz_cond[i] = i < fz_conv ? BLK_ZONE_COND_NOT_WP :
					   BLK_ZONE_COND_EMPTY;
	}
	return 1;
}

static int fz_report(struct blk_zone_report *rep)
{
	unsigned int z = rep->sector / fz_sectors, n = 0;

	for (; z < fz_nr && n < rep->nr_zones; z++, n++) {
		struct blk_zone *d = &rep->zones[n];

		memset(d, 0, sizeof(*d));
		d->start = (unsigned long long)z * fz_sectors;
		d->len = fz_sectors;
		d->capacity = fz_sectors;
		d->type = z < fz_conv ? BLK_ZONE_TYPE_CONVENTIONAL :
					BLK_ZONE_TYPE_SEQWRITE_REQ;
		d->cond = fz_cond[z];
		d->wp = z < fz_conv ? d->start + d->len : fz_wp[z];
	}
	rep->nr_zones = n;
	rep->flags = BLK_ZONE_REP_CAPACITY;
	return 0;
}

/* Reset or finish the emulated zones of @r; a reset writes zeros. */
static int fz_zone_op(int fd, unsigned long req, const struct blk_zone_range *r)
{
	static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
	unsigned int z = r->sector / fz_sectors;
	unsigned int end = (r->sector + r->nr_sectors) / fz_sectors;
	size_t len = (size_t)fz_sectors * 512;
	void *zeros;

	if (!real_pwrite)
		real_pwrite = dlsym(RTLD_NEXT, "pwrite");
	if (req == BLKRESETZONE && !r->sector &&
	    r->nr_sectors == (unsigned long long)fz_nr * fz_sectors)
		z = fz_conv;
	else if (z < fz_conv || end > fz_nr) {
		errno = EINVAL;
		return -1;
	}
	if (req == BLKFINISHZONE) {
		for (; z < end; z++) {
			fz_wp[z] = (unsigned long long)(z + 1) * fz_sectors;
			fz_cond[z] = BLK_ZONE_COND_FULL;
		}
		return 0;
	}
	if (posix_memalign(&zeros, 4096, len))
		return -1;
	memset(zeros, 0, len);
	for (; z < end; z++) {
		if (real_pwrite(fd, zeros, len, (off_t)z * len) != (ssize_t)len) {
			free(zeros);
			errno = EIO;
			return -1;
		}
		fz_wp[z] = (unsigned long long)z * fz_sectors;
		fz_cond[z] = BLK_ZONE_COND_EMPTY;
	}
	free(zeros);
	return 0;
}

/* An emulated sequential zone takes a write at its write pointer only. */
static int fz_write(off_t off, size_t len)
{
	unsigned int z = off / 512 / fz_sectors;

	if (!fz_nr || z < fz_conv || z >= fz_nr)
		return 0;
	if ((unsigned long long)off / 512 != fz_wp[z]) {
		errno = EIO;
		return -1;
	}
	fz_wp[z] += len / 512;
	fz_cond[z] = fz_wp[z] == (unsigned long long)(z + 1) * fz_sectors ?
		     BLK_ZONE_COND_FULL : BLK_ZONE_COND_IMP_OPEN;
	return 0;
}

/* Is this the call that must fail, by the count in environment variable @var? */
static int zf_fails(const char *var, unsigned int n)
{
	const char *v = getenv(var);
	char *end;

	while (v && *v) {
		if (strtoul(v, &end, 10) == n)
			return 1;
		v = *end == ',' ? end + 1 : NULL;
	}
	return 0;
}

static void zf_pause(void)
{
	const char *dir = getenv("ZF_PAUSE_DIR");
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	char path[4096];
	int fd;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/paused", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/go", dir);
	while (access(path, F_OK))
		nanosleep(&ts, NULL);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);

	if (!real)
		real = dlsym(RTLD_NEXT, "pwrite");
	if (zf_fails("ZF_FAIL_PWRITE", ++n_pwrite)) {
		zf_log("pwrite %lld +%zu failed", (long long)off, len);
		errno = EIO;
		return -1;
	}
	if (fz_write(off, len))
		return -1;
	zf_log("pwrite %lld +%zu %s", (long long)off, len,
	       len >= 4 && !memcmp(buf, "SFOZ", 4) ? "superblock" :
	       ((const char *)buf)[0] ? "data" : "zeros");
	return real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite(fd, buf, len, off);
}

int fsync(int fd)
{
	static int (*real)(int);

	if (!real)
		real = dlsym(RTLD_NEXT, "fsync");
	if (++n_fsync == 1)
		zf_pause();
	if (zf_fails("ZF_FAIL_FSYNC", n_fsync)) {
		zf_log("fsync failed");
		errno = EIO;
		return -1;
	}
	zf_log("fsync");
	return real(fd);
}

ssize_t read(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);

	if (!real)
		real = dlsym(RTLD_NEXT, "read");
	if (getenv("ZF_FAIL_READ")) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, len);
}

/* ZF_FAKE_ZONES: the device's sysfs says host-managed. */
FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	static const char zoned[] = "host-managed\n";
	static const char suffix[] = "/queue/zoned";
	size_t n = strlen(path), m = sizeof(suffix) - 1;

	if (!real)
		real = dlsym(RTLD_NEXT, "fopen");
	if (getenv("ZF_FAKE_ZONES") && n > m && !strcmp(path + n - m, suffix))
		return fmemopen((void *)zoned, sizeof(zoned) - 1, "r");
	return real(path, mode);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = dlsym(RTLD_NEXT, "ioctl");
	if ((req == BLKRESETZONE && zf_fails("ZF_FAIL_RESET", ++n_reset)) ||
	    (req == BLKFINISHZONE && zf_fails("ZF_FAIL_FINISH", ++n_finish))) {
		const struct blk_zone_range *r = arg;

		zf_log("%s %llu +%llu failed",
		       req == BLKRESETZONE ? "reset" : "finish",
		       (unsigned long long)r->sector,
		       (unsigned long long)r->nr_sectors);
		errno = EIO;
		return -1;
	}
	if (req == BLKRESETZONE || req == BLKFINISHZONE) {
		const struct blk_zone_range *r = arg;

		zf_log("%s %llu +%llu", req == BLKRESETZONE ? "reset" : "finish",
		       (unsigned long long)r->sector,
		       (unsigned long long)r->nr_sectors);
		if (fz_setup(fd, real))
			return fz_zone_op(fd, req, r);
	}
	if (req == BLKFLSBUF)
		zf_log("flushbuf");
	if (req == BLKGETZONESZ && fz_setup(fd, real)) {
		*(unsigned int *)arg = fz_sectors;
		return 0;
	}
	if (req == BLKGETNRZONES && fz_setup(fd, real)) {
		*(unsigned int *)arg = fz_nr;
		return 0;
	}
	if (req == BLKREPORTZONE && fz_setup(fd, real))
		return fz_report(arg);
	return real(fd, req, arg);
}
