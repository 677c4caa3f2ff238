// SPDX-License-Identifier: GPL-2.0
/*
 * mkzonefs superblock encoding: the on-disk block, its checksum and the
 * volume UUID. No device access here, so that the unit tests can check the
 * encoding byte for byte.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "mkzonefs.h"

_Static_assert(sizeof(struct zonefs_super) == ZONEFS_SUPER_SIZE,
	       "struct zonefs_super must fill one 4096-byte block");
_Static_assert(offsetof(struct zonefs_super, s_crc) == 4, "s_crc offset");
_Static_assert(offsetof(struct zonefs_super, s_label) == 8, "s_label offset");
_Static_assert(offsetof(struct zonefs_super, s_uuid) == 72, "s_uuid offset");
_Static_assert(offsetof(struct zonefs_super, s_features) == 88,
	       "s_features offset");
_Static_assert(offsetof(struct zonefs_super, s_uid) == 96, "s_uid offset");
_Static_assert(offsetof(struct zonefs_super, s_gid) == 100, "s_gid offset");
_Static_assert(offsetof(struct zonefs_super, s_perm) == 104, "s_perm offset");
_Static_assert(offsetof(struct zonefs_super, s_reserved) == 108,
	       "s_reserved offset");

/* The reflected IEEE 802.3 polynomial, as in the kernel's crc32_le(). */
#define ZONEFS_CRC32_POLY_LE	0xedb88320U

/**
 * zonefs_crc32() - the kernel's crc32_le()
 * @crc: seed; the superblock uses ~0U
 * @buf: data
 * @len: length of @buf (bytes)
 *
 * Unlike zlib's crc32(), the result is not inverted at the end, so
 * zonefs_crc32(~0U, b, n) == zlib.crc32(b, n) ^ 0xffffffff. A bitwise loop
 * is fast enough for one 4096-byte block.
 *
 * Return: the updated crc.
 */
uint32_t zonefs_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	int bit;

	while (len--) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (ZONEFS_CRC32_POLY_LE & -(crc & 1));
	}
	return crc;
}

/**
 * zonefs_super_encode() - build the on-disk superblock
 * @ctl: label, UUID, features and their values; the UUID must be set
 * @buf: ZONEFS_SUPER_SIZE bytes, entirely overwritten
 *
 * uid, gid and perm are stored only when their feature bit is set, so that
 * every byte of the block is defined by @ctl's features.
 */
void zonefs_super_encode(const struct zonefs_ctl *ctl, void *buf)
{
	struct zonefs_super *sb = buf;
	uint32_t crc;

	memset(sb, 0, sizeof(*sb));
	sb->s_magic = htole32(ZONEFS_MAGIC);
	/* c_label is NUL-padded and holds at most ZONEFS_LABEL_LEN bytes. */
	memcpy(sb->s_label, ctl->c_label, sizeof(sb->s_label));
	memcpy(sb->s_uuid, ctl->c_uuid, sizeof(sb->s_uuid));
	sb->s_features = htole64(ctl->c_features);
	if (ctl->c_features & ZONEFS_F_UID)
		sb->s_uid = htole32(ctl->c_uid);
	if (ctl->c_features & ZONEFS_F_GID)
		sb->s_gid = htole32(ctl->c_gid);
	if (ctl->c_features & ZONEFS_F_PERM)
		sb->s_perm = htole32(ctl->c_perm);

	/* s_crc is still zero here, as the checksum requires. */
	crc = zonefs_crc32(~0U, sb, sizeof(*sb));
	sb->s_crc = htole32(crc);
}

/**
 * zonefs_uuid_generate() - make a random (version 4) UUID
 * @uuid: ZONEFS_UUID_SIZE bytes
 *
 * Return: 0, or -errno if the kernel gave no random bytes; reported here.
 */
int zonefs_uuid_generate(uint8_t *uuid)
{
	size_t done = 0;
	ssize_t n;

	while (done < ZONEFS_UUID_SIZE) {
		n = getrandom(uuid + done, ZONEFS_UUID_SIZE - done, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			zonefs_error("cannot get random bytes for the UUID: %s",
				     strerror(errno));
			return -errno;
		}
		done += n;
	}

	/* RFC 4122: version 4 (random), variant 10xx. */
	uuid[6] = (uuid[6] & 0x0f) | 0x40;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
	return 0;
}

/**
 * zonefs_uuid_format() - print a UUID in its 8-4-4-4-12 form
 * @uuid: ZONEFS_UUID_SIZE bytes
 * @str:  at least ZONEFS_UUID_STR_LEN + 1 bytes
 */
void zonefs_uuid_format(const uint8_t *uuid, char *str)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int i;

	for (i = 0; i < ZONEFS_UUID_SIZE; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*str++ = '-';
		*str++ = hex[uuid[i] >> 4];
		*str++ = hex[uuid[i] & 0xf];
	}
	*str = '\0';
}
