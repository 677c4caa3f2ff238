/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zonefs on-disk format: the one definition shared by the kernel module
 * (module/) and the format tool (tools/mkzonefs).
 *
 * The superblock occupies the first 4096 bytes of zone 0, which is never
 * exposed as a file. Every field is little-endian. The layout is the one
 * mainline zonefs and zonefs-tools use, so that disks move freely between
 * them; feature bit 16 (sect_name) is ours.
 */
#ifndef _ZONEFS_FORMAT_H
#define _ZONEFS_FORMAT_H

#include <linux/types.h>

/* "ZOFS" read as a little-endian 32-bit word. */
#define ZONEFS_MAGIC		0x5a4f4653

/* Size of the superblock block and its offset in zone 0 (bytes). */
#define ZONEFS_SUPER_SIZE	4096
#define ZONEFS_SUPER_OFFSET	0

#define ZONEFS_LABEL_LEN	64
#define ZONEFS_UUID_SIZE	16

/* Feature bits, in zonefs_super.s_features. */
#define ZONEFS_F_AGGRCNV	(1ULL << 0)	/* join contiguous cnv zones */
#define ZONEFS_F_UID		(1ULL << 1)	/* s_uid is the files' owner */
#define ZONEFS_F_GID		(1ULL << 2)	/* s_gid is the files' group */
#define ZONEFS_F_PERM		(1ULL << 3)	/* s_perm is the files' mode */
#define ZONEFS_F_SECT_NAME	(1ULL << 16)	/* name files by start sector */

#define ZONEFS_F_DEFINED_FEATURES \
	(ZONEFS_F_AGGRCNV | ZONEFS_F_UID | ZONEFS_F_GID | ZONEFS_F_PERM | \
	 ZONEFS_F_SECT_NAME)

/* Default owner, group and mode of a file when no feature overrides them. */
#define ZONEFS_DEF_UID		0
#define ZONEFS_DEF_GID		0
#define ZONEFS_DEF_PERM		0640

/* Size of s_reserved: what is left of the 4096-byte block (bytes). */
#define ZONEFS_SUPER_RESERVED	3988

/**
 * struct zonefs_super - the zonefs superblock, as stored on the device
 * @s_magic:	ZONEFS_MAGIC
 * @s_crc:	crc32 seeded with ~0 and not inverted at the end (the kernel's
 *		crc32(~0U, buf, 4096), i.e. crc32_le), computed over the whole
 *		block with this field set to zero
 * @s_label:	volume label, NUL-padded; need not be NUL-terminated
 * @s_uuid:	volume UUID, random at format time; also the statfs fsid
 * @s_features:	ZONEFS_F_* bits
 * @s_uid:	files' owner, used when ZONEFS_F_UID is set
 * @s_gid:	files' group, used when ZONEFS_F_GID is set
 * @s_perm:	files' mode bits (0777 at most), used when ZONEFS_F_PERM is set
 * @s_reserved:	must be zero
 */
struct zonefs_super {
	__le32	s_magic;			/* offset 0 */
	__le32	s_crc;				/* offset 4 */
	__u8	s_label[ZONEFS_LABEL_LEN];	/* offset 8 */
	__u8	s_uuid[ZONEFS_UUID_SIZE];	/* offset 72 */
	__le64	s_features;			/* offset 88 */
	__le32	s_uid;				/* offset 96 */
	__le32	s_gid;				/* offset 100 */
	__le32	s_perm;				/* offset 104 */
	__u8	s_reserved[ZONEFS_SUPER_RESERVED];	/* offset 108 */
};

#endif /* _ZONEFS_FORMAT_H */
