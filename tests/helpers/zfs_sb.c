// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_sb - look at or damage a zonefs superblock, and mount with mount(2)
 * to see the exact errno.
 *
 *	zfs_sb show  DEV
 *	zfs_sb set   DEV FIELD VALUE [nocrc]
 *	zfs_sb mount DEV DIR [OPTIONS] [ro|remount]
 *
 * FIELD is magic, crc, features, uid, gid, perm or reserved (VALUE is then
 * written to the first reserved byte). The crc is recomputed after the
 * change unless "nocrc" is given (or the field is crc itself).
 *
 * "show" prints "magic crc features uid gid perm crc_ok" in hex/decimal.
 * "set" and "mount" print "OK 0", or "ERR <ERRNO NAME>" and exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <sys/mount.h>

#include "zonefs_format.h"
#include "mkzonefs.h"

_Static_assert(sizeof(struct zonefs_super) == ZONEFS_SUPER_SIZE,
	       "struct zonefs_super must be 4096 bytes");

static int zfs_sb_err(int err)
{
	const char *name = strerrorname_np(err);

	printf("ERR %s\n", name ? name : "UNKNOWN");
	return 1;
}

static uint32_t zfs_sb_csum(struct zonefs_super *sb)
{
	uint32_t saved = sb->s_crc, crc;

	sb->s_crc = 0;
	crc = zonefs_crc32(~0U, sb, sizeof(*sb));
	sb->s_crc = saved;
	return crc;
}

static int zfs_sb_io(const char *dev, struct zonefs_super *sb, int wr)
{
	int fd = open(dev, wr ? O_WRONLY | O_SYNC : O_RDONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	if (wr)
		ret = pwrite(fd, sb, sizeof(*sb), ZONEFS_SUPER_OFFSET);
	else
		ret = pread(fd, sb, sizeof(*sb), ZONEFS_SUPER_OFFSET);
	if (ret != (ssize_t)sizeof(*sb)) {
		close(fd);
		return ret < 0 ? -errno : -EIO;
	}
	if (close(fd))
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	struct zonefs_super sb;
	unsigned long long v;
	int ret;

	if (argc < 3)
		goto usage;

	if (!strcmp(argv[1], "mount")) {
		const char *opts = argc > 4 ? argv[4] : "";
		unsigned long flags = 0;

		if (argc < 4)
			goto usage;
		if (argc > 5 && !strcmp(argv[5], "ro"))
			flags |= MS_RDONLY;
		if (argc > 5 && !strcmp(argv[5], "remount"))
			flags |= MS_REMOUNT;
		if (mount(argv[2], argv[3], "zonefs", flags, opts))
			return zfs_sb_err(errno);
		printf("OK 0\n");
		return 0;
	}

	ret = zfs_sb_io(argv[2], &sb, 0);
	if (ret)
		return zfs_sb_err(-ret);

	if (!strcmp(argv[1], "show")) {
		printf("0x%08x 0x%08x 0x%llx %u %u %o %d\n",
		       le32toh(sb.s_magic), le32toh(sb.s_crc),
		       (unsigned long long)le64toh(sb.s_features),
		       le32toh(sb.s_uid), le32toh(sb.s_gid),
		       le32toh(sb.s_perm),
		       zfs_sb_csum(&sb) == le32toh(sb.s_crc));
		return 0;
	}

	if (strcmp(argv[1], "set") || argc < 5)
		goto usage;
	errno = 0;
	v = strtoull(argv[4], NULL, 0);
	if (errno)
		goto usage;
	if (!strcmp(argv[3], "magic"))
		sb.s_magic = htole32(v);
	else if (!strcmp(argv[3], "crc"))
		sb.s_crc = htole32(v);
	else if (!strcmp(argv[3], "features"))
		sb.s_features = htole64(v);
	else if (!strcmp(argv[3], "uid"))
		sb.s_uid = htole32(v);
	else if (!strcmp(argv[3], "gid"))
		sb.s_gid = htole32(v);
	else if (!strcmp(argv[3], "perm"))
		sb.s_perm = htole32(v);
	else if (!strcmp(argv[3], "reserved"))
		sb.s_reserved[0] = v;
	else
		goto usage;
	if (strcmp(argv[3], "crc") && !(argc > 5 && !strcmp(argv[5], "nocrc")))
		sb.s_crc = htole32(zfs_sb_csum(&sb));

	ret = zfs_sb_io(argv[2], &sb, 1);
	if (ret)
		return zfs_sb_err(-ret);
	printf("OK 0\n");
	return 0;

usage:
	fprintf(stderr, "usage: zfs_sb show DEV | set DEV FIELD VALUE [nocrc] | mount DEV DIR [OPTS] [ro|remount]\n");
	return 2;
}
