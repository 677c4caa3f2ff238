// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_sbfuzz - mount a zonefs device under thousands of mutated
 * superblocks, seeded and reproducible.
 *
 *	zfs_sbfuzz DEV DIR CASES SEED [SECONDS]
 *
 * DEV must hold a valid zonefs superblock in the first 4096 bytes of a
 * conventional zone 0 (mkzonefs output). Case i (0 <= i < CASES) starts
 * from that superblock and applies one mutation of class i % 10, drawn
 * from a generator seeded with SEED and i only: the same SEED replays
 * the same cases, and a failure line names the case's index and class.
 * Mutation classes: bit flips with the old crc, bit flips with a fixed crc,
 * one random field, random bytes with the magic and a valid crc, one
 * feature bit (every bit 0..63 in turn), huge and edge uid/gid values,
 * one non-zero reserved byte, random perm, random label and uuid, an
 * all-zero block with the magic and crc.
 *
 * Each case writes the block with O_DIRECT at offset 0, calls mount(2)
 * (read-only for every fourth case), and:
 * - predicts from the on-disk format (include/zonefs_format.h) whether the block is valid (magic, crc,
 *   no unknown feature bit, zero reserved bytes, uid/gid not (u32)-1);
 * - an invalid block must fail with EINVAL and at least one "zonefs"
 *   kernel line (read from /dev/kmsg);
 * - a valid block must mount; a file then has the superblock's owner,
 *   group and mode (perm & 0777, never a set-id bit), and umount must
 *   succeed.
 * Before the first case and after the last, the helper records every
 * zone's write pointer (BLKREPORTZONE) and a hash of the data near the
 * start of each zone and below each write pointer; they must not change.
 * The original superblock is written back at the end.
 *
 * Stops early (reporting what it did) once SECONDS have passed, if given.
 * Prints per-case lines for failures on stderr and, last, on stdout:
 *	cases N refused N mounted N failures N
 * Exit 0 when there is no failure, 1 otherwise, 2 on usage or setup errors.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>

#include "zonefs_format.h"
#include "mkzonefs.h"

#define FZ_BS		4096
#define FZ_HASH_LEN	(64 * 1024)
#define FZ_MAX_ZONES	4096

enum fz_class {
	FZ_FLIP, FZ_FLIP_CRC, FZ_FIELD, FZ_GARBAGE, FZ_FEATURE, FZ_IDS,
	FZ_RESERVED, FZ_PERM, FZ_LABEL, FZ_ZERO, FZ_NR_CLASSES
};

static const char *const fz_class_name[FZ_NR_CLASSES] = {
	"flip", "flip-crc", "field", "garbage", "feature", "ids",
	"reserved", "perm", "label", "zero",
};

struct fz_state {
	uint64_t nr_zones;
	uint64_t wp[FZ_MAX_ZONES];
	uint8_t cond[FZ_MAX_ZONES];
	uint64_t hash;
};

static uint64_t fz_rng;

static uint64_t fz_next(void)
{
	uint64_t z = (fz_rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t fz_csum(const struct zonefs_super *sb)
{
	struct zonefs_super tmp = *sb;

	tmp.s_crc = 0;
	return zonefs_crc32(~0U, &tmp, sizeof(tmp));
}

static void fz_fix_crc(struct zonefs_super *sb)
{
	sb->s_crc = htole32(fz_csum(sb));
}

/* the on-disk format (include/zonefs_format.h): would a mount accept this block? */
static int fz_valid(const struct zonefs_super *sb)
{
	uint64_t f = le64toh(sb->s_features);
	int i;

	if (le32toh(sb->s_magic) != ZONEFS_MAGIC)
		return 0;
	if (fz_csum(sb) != le32toh(sb->s_crc))
		return 0;
	if (f & ~ZONEFS_F_DEFINED_FEATURES)
		return 0;
	for (i = 0; i < ZONEFS_SUPER_RESERVED; i++)
		if (sb->s_reserved[i])
			return 0;
	if ((f & ZONEFS_F_UID) && le32toh(sb->s_uid) == UINT32_MAX)
		return 0;
	if ((f & ZONEFS_F_GID) && le32toh(sb->s_gid) == UINT32_MAX)
		return 0;
	return 1;
}

static const uint32_t fz_edge_ids[] = {
	0, 1, 1000, 65534, 65535, 65536, 0x7fffffff, 0x80000000,
	0xfffffffe, 0xffffffff,
};

static void fz_random_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len--)
		*p++ = fz_next();
}

static void fz_mutate(struct zonefs_super *sb, unsigned int cls,
		      uint64_t idx)
{
	unsigned char *b = (unsigned char *)sb;
	unsigned int i, n;
	uint64_t f;

	switch (cls) {
	case FZ_FLIP:
	case FZ_FLIP_CRC:
		n = 1 + fz_next() % 8;
		for (i = 0; i < n; i++) {
			/* Half the flips hit the first 112 bytes (the fields). */
			unsigned int bit = fz_next() % 2 ?
				fz_next() % (112 * 8) : fz_next() % (FZ_BS * 8);

			b[bit / 8] ^= 1U << (bit % 8);
		}
		if (cls == FZ_FLIP_CRC)
			fz_fix_crc(sb);
		break;
	case FZ_FIELD:
		switch (fz_next() % 6) {
		case 0:
			sb->s_magic = htole32(fz_next());
			break;
		case 1:
			sb->s_features = htole64(fz_next() >> (fz_next() % 64));
			break;
		case 2:
			sb->s_features = htole64(fz_next() & ZONEFS_F_DEFINED_FEATURES);
			break;
		case 3:
			sb->s_uid = htole32(fz_next());
			sb->s_features |= htole64(ZONEFS_F_UID);
			break;
		case 4:
			sb->s_gid = htole32(fz_next());
			sb->s_features |= htole64(ZONEFS_F_GID);
			break;
		default:
			sb->s_perm = htole32(fz_next());
			sb->s_features |= htole64(ZONEFS_F_PERM);
			break;
		}
		fz_fix_crc(sb);
		break;
	case FZ_GARBAGE:
		fz_random_bytes(sb, sizeof(*sb));
		sb->s_magic = htole32(ZONEFS_MAGIC);
		if (fz_next() % 2)
			memset(sb->s_reserved, 0, sizeof(sb->s_reserved));
		if (fz_next() % 2)
			sb->s_features &= htole64(ZONEFS_F_DEFINED_FEATURES);
		fz_fix_crc(sb);
		break;
	case FZ_FEATURE:
		/* Every bit in turn, then random combinations with it. */
		f = 1ULL << (idx % 64);
		if (idx / 64 % 2)
			f |= fz_next() & ZONEFS_F_DEFINED_FEATURES;
		sb->s_features = htole64(f);
		sb->s_uid = htole32(fz_next() % 70000);
		sb->s_gid = htole32(fz_next() % 70000);
		sb->s_perm = htole32(fz_next() % 01000);
		fz_fix_crc(sb);
		break;
	case FZ_IDS:
		f = ZONEFS_F_UID | ZONEFS_F_GID;
		if (fz_next() % 2)
			f |= ZONEFS_F_PERM;
		sb->s_features = htole64(f);
		sb->s_uid = htole32(fz_next() % 3 ? fz_edge_ids[fz_next() % 10] :
						    (uint32_t)fz_next());
		sb->s_gid = htole32(fz_next() % 3 ? fz_edge_ids[fz_next() % 10] :
						    (uint32_t)fz_next());
		sb->s_perm = htole32(fz_next() % 010000);
		fz_fix_crc(sb);
		break;
	case FZ_RESERVED:
		n = 1 + fz_next() % 3;
		for (i = 0; i < n; i++)
			sb->s_reserved[fz_next() % ZONEFS_SUPER_RESERVED] =
				1 + fz_next() % 255;
		fz_fix_crc(sb);
		break;
	case FZ_PERM:
		sb->s_features |= htole64(ZONEFS_F_PERM);
		sb->s_perm = htole32(fz_next() % 2 ? fz_next() % 010000 :
						     (uint32_t)fz_next());
		fz_fix_crc(sb);
		break;
	case FZ_LABEL:
		fz_random_bytes(sb->s_label, sizeof(sb->s_label));
		fz_random_bytes(sb->s_uuid, sizeof(sb->s_uuid));
		fz_fix_crc(sb);
		break;
	default:
		memset(sb, 0, sizeof(*sb));
		sb->s_magic = htole32(ZONEFS_MAGIC);
		if (fz_next() % 2)
			fz_fix_crc(sb);
		break;
	}
}

static uint64_t fz_fnv(uint64_t h, const unsigned char *p, size_t len)
{
	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int fz_hash_range(int fd, void *buf, uint64_t off, uint64_t len,
			 uint64_t *h)
{
	ssize_t ret;

	if (!len)
		return 0;
	ret = pread(fd, buf, len, off);
	if (ret != (ssize_t)len) {
		fprintf(stderr, "zfs_sbfuzz: read %llu+%llu: %s\n",
			(unsigned long long)off, (unsigned long long)len,
			ret < 0 ? strerror(errno) : "short read");
		return -1;
	}
	*h = fz_fnv(*h, buf, len);
	return 0;
}

/*
 * Every zone's write pointer and condition, and a hash of the first
 * FZ_HASH_LEN bytes of each zone (skipping the superblock) and of the
 * FZ_HASH_LEN bytes below each zone's end of data.
 */
static int fz_snapshot(int fd, void *buf, struct fz_state *st)
{
	struct blk_zone_report *rep;
	uint64_t sector = 0, i;
	unsigned int k;

	rep = calloc(1, sizeof(*rep) + 256 * sizeof(struct blk_zone));
	if (!rep)
		return -1;
	st->nr_zones = 0;
	st->hash = 0xcbf29ce484222325ULL;
	for (;;) {
		rep->sector = sector;
		rep->nr_zones = 256;
		if (ioctl(fd, BLKREPORTZONE, rep) < 0) {
			fprintf(stderr, "zfs_sbfuzz: BLKREPORTZONE: %s\n",
				strerror(errno));
			free(rep);
			return -1;
		}
		if (!rep->nr_zones)
			break;
		for (k = 0; k < rep->nr_zones; k++) {
			const struct blk_zone *z = &rep->zones[k];
			uint64_t start = z->start * 512, end, lo, hi, cap;

			if (st->nr_zones >= FZ_MAX_ZONES) {
				free(rep);
				return -1;
			}
			i = st->nr_zones++;
			st->wp[i] = z->wp;
			st->cond[i] = z->cond;
			if (z->cond == BLK_ZONE_COND_OFFLINE)
				continue;
			cap = z->capacity ? z->capacity : z->len;
			if (z->type == BLK_ZONE_TYPE_CONVENTIONAL ||
			    z->cond == BLK_ZONE_COND_FULL)
				end = start + cap * 512;
			else
				end = z->wp * 512;
			lo = start + (i == 0 ? FZ_BS : 0);
			hi = lo + FZ_HASH_LEN < end ? lo + FZ_HASH_LEN : end;
			if (lo < hi && fz_hash_range(fd, buf, lo, hi - lo, &st->hash))
				goto fail;
			lo = end > FZ_HASH_LEN ? end - FZ_HASH_LEN : 0;
			if (lo < hi)
				lo = hi;
			if (lo < end && fz_hash_range(fd, buf, lo, end - lo, &st->hash))
				goto fail;
		}
		sector = rep->zones[k - 1].start + rep->zones[k - 1].len;
	}
	free(rep);
	return 0;
fail:
	free(rep);
	return -1;
}

/* Count new kernel log records mentioning zonefs. */
static int fz_kmsg_count(int kfd)
{
	char rec[8192];
	ssize_t n;
	int count = 0;

	if (kfd < 0)
		return -1;
	for (;;) {
		n = read(kfd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EPIPE)	/* overrun: records were lost */
				continue;
			break;
		}
		rec[n] = 0;
		if (strstr(rec, "zonefs"))
			count++;
	}
	return count;
}

/* Stat the first file under DIR/seq or DIR/cnv. */
static int fz_first_file(const char *dir, struct stat *st)
{
	static const char *const sub[] = { "seq", "cnv" };
	char path[4096];
	struct dirent *de;
	unsigned int i;
	DIR *d;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", dir, sub[i],
				 de->d_name);
			closedir(d);
			return stat(path, st);
		}
		closedir(d);
	}
	errno = ENOENT;
	return -1;
}

static int fz_write_sb(int fd, const struct zonefs_super *sb)
{
	if (pwrite(fd, sb, FZ_BS, ZONEFS_SUPER_OFFSET) != FZ_BS) {
		fprintf(stderr, "zfs_sbfuzz: superblock write: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static double fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct fz_state before, after;
	unsigned long long cases, seed, refused = 0, mounted = 0, failures = 0;
	struct zonefs_super *orig, *sb;
	double deadline = 0;
	void *buf;
	uint64_t i;
	int fd, kfd;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: zfs_sbfuzz DEV DIR CASES SEED [SECONDS]\n");
		return 2;
	}
	cases = strtoull(argv[3], NULL, 0);
	seed = strtoull(argv[4], NULL, 0);
	if (argc > 5)
		deadline = fz_now() + strtod(argv[5], NULL);

	if (posix_memalign((void **)&orig, FZ_BS, FZ_BS) ||
	    posix_memalign((void **)&sb, FZ_BS, FZ_BS) ||
	    posix_memalign(&buf, FZ_BS, FZ_HASH_LEN))
		return 2;
	fd = open(argv[1], O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "zfs_sbfuzz: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (pread(fd, orig, FZ_BS, ZONEFS_SUPER_OFFSET) != FZ_BS ||
	    !fz_valid(orig)) {
		fprintf(stderr, "zfs_sbfuzz: %s holds no valid zonefs superblock\n",
			argv[1]);
		return 2;
	}
	if (fz_snapshot(fd, buf, &before))
		return 2;
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);

	for (i = 0; i < cases; i++) {
		unsigned int cls;
		unsigned long flags = i % 4 == 3 ? MS_RDONLY : 0;
		int valid, ret, err, lines;

		if (deadline && fz_now() > deadline) {
			fprintf(stderr, "zfs_sbfuzz: time limit reached after %llu cases\n",
				(unsigned long long)i);
			break;
		}
		fz_rng = seed * 0x100000001b3ULL + i;
		fz_next();
		cls = i % FZ_NR_CLASSES;
		memcpy(sb, orig, FZ_BS);
		fz_mutate(sb, cls, i / FZ_NR_CLASSES);
		valid = fz_valid(sb);
		if (fz_write_sb(fd, sb))
			return 2;
		fz_kmsg_count(kfd);	/* drain */
		ret = mount(argv[1], argv[2], "zonefs", flags, "");
		err = errno;
		lines = fz_kmsg_count(kfd);

		if (ret) {
			refused++;
			if (valid) {
				failures++;
				fprintf(stderr, "case %llu (%s): valid superblock refused: %s\n",
					(unsigned long long)i, fz_class_name[cls],
					strerrorname_np(err));
			} else if (err != EINVAL) {
				failures++;
				fprintf(stderr, "case %llu (%s): refused with %s, not EINVAL\n",
					(unsigned long long)i, fz_class_name[cls],
					strerrorname_np(err));
			} else if (kfd >= 0 && lines < 1) {
				failures++;
				fprintf(stderr, "case %llu (%s): refused without a kernel message\n",
					(unsigned long long)i, fz_class_name[cls]);
			}
			continue;
		}

		mounted++;
		if (!valid) {
			failures++;
			fprintf(stderr, "case %llu (%s): invalid superblock mounted\n",
				(unsigned long long)i, fz_class_name[cls]);
		} else {
			uint64_t f = le64toh(sb->s_features);
			uint32_t uid = f & ZONEFS_F_UID ? le32toh(sb->s_uid) : ZONEFS_DEF_UID;
			uint32_t gid = f & ZONEFS_F_GID ? le32toh(sb->s_gid) : ZONEFS_DEF_GID;
			uint32_t perm = f & ZONEFS_F_PERM ? le32toh(sb->s_perm) & 0777 :
							   ZONEFS_DEF_PERM;
			struct stat st;

			if (fz_first_file(argv[2], &st)) {
				failures++;
				fprintf(stderr, "case %llu (%s): no file to stat: %s\n",
					(unsigned long long)i, fz_class_name[cls],
					strerror(errno));
			} else if (st.st_uid != uid || st.st_gid != gid ||
				   (st.st_mode & 07777) != perm) {
				failures++;
				fprintf(stderr, "case %llu (%s): file %u:%u %04o, superblock says %u:%u %04o\n",
					(unsigned long long)i, fz_class_name[cls],
					st.st_uid, st.st_gid, st.st_mode & 07777,
					uid, gid, perm);
			}
		}
		if (umount(argv[2])) {
			failures++;
			fprintf(stderr, "case %llu (%s): umount: %s\n",
				(unsigned long long)i, fz_class_name[cls],
				strerror(errno));
			return 1;
		}
	}

	if (fz_write_sb(fd, orig))
		return 2;
	if (fz_snapshot(fd, buf, &after))
		return 2;
	if (after.nr_zones != before.nr_zones ||
	    memcmp(after.wp, before.wp, sizeof(after.wp)) ||
	    after.hash != before.hash) {
		failures++;
		fprintf(stderr, "the device changed outside the superblock:\n");
		for (i = 0; i < before.nr_zones; i++)
			if (after.wp[i] != before.wp[i])
				fprintf(stderr, "  zone %llu: wp %llu -> %llu\n",
					(unsigned long long)i,
					(unsigned long long)before.wp[i],
					(unsigned long long)after.wp[i]);
		if (after.hash != before.hash)
			fprintf(stderr, "  data hash %016llx -> %016llx\n",
				(unsigned long long)before.hash,
				(unsigned long long)after.hash);
	}
	for (i = 0; i < before.nr_zones; i++)
		if (after.cond[i] != before.cond[i])
			fprintf(stderr, "note: zone %llu condition 0x%x -> 0x%x\n",
				(unsigned long long)i, before.cond[i], after.cond[i]);

	printf("cases %llu refused %llu mounted %llu failures %llu\n",
	       refused + mounted, refused, mounted, failures);
	return failures ? 1 : 0;
}
