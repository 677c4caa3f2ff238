// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the superblock encoding and its checksum. The expected
 * values were computed independently, in Python, as
 * zlib.crc32(block) ^ 0xffffffff over blocks built with struct.pack_into()
 * following the table in the on-disk format (include/zonefs_format.h), so that an error in both the
 * encoder and its header cannot cancel out.
 */
#include <stddef.h>

#include "../../tools/mkzonefs.h"
#include "zonefs_test.h"

/* The first 112 bytes of the "full" vector below (Python, hex). */
static const char zonefs_full_head[] =
	"53464f5acbf689bb7a6f6e6566732d74657374000000000000000000"
	"00000000000000000000000000000000000000000000000000000000"
	"00000000000000000000000000000000000102030405060708090a0b"
	"0c0d0e0f0f00010000000000e8030000640000008001000000000000";

static int zonefs_hex(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

static unsigned int zonefs_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (unsigned int)p[3] << 24;
}

static int zonefs_all_zero(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return 0;
	return 1;
}

static void zonefs_test_crc(void)
{
	static uint8_t zeros[4096];

	ZONEFS_CHECK(zonefs_crc32(~0U, "123456789", 9) == 0x340bc6d9,
		     "crc32_le(~0, \"123456789\") is not inverted");
	ZONEFS_CHECK(zonefs_crc32(~0U, zeros, sizeof(zeros)) == 0x38e3ffee,
		     "crc32_le(~0, 4096 zero bytes)");
	ZONEFS_CHECK(zonefs_crc32(0, NULL, 0) == 0, "empty buffer keeps seed");
	ZONEFS_CHECK(zonefs_crc32(zonefs_crc32(~0U, "1234", 4), "56789", 5) ==
		     0x340bc6d9, "crc32 can be computed in pieces");
}

static void zonefs_test_default(void)
{
	static uint8_t buf[ZONEFS_SUPER_SIZE];
	struct zonefs_ctl ctl = { .c_perm = ZONEFS_DEF_PERM };

	memset(buf, 0xa5, sizeof(buf));
	zonefs_super_encode(&ctl, buf);
	ZONEFS_CHECK(zonefs_le32(buf) == ZONEFS_MAGIC &&
		     !memcmp(buf, "SFOZ", 4), "magic 0x5a4f4653 little-endian");
	ZONEFS_CHECK(zonefs_le32(buf + 4) == 0x59bfab05,
		     "crc of the default superblock");
	ZONEFS_CHECK(zonefs_all_zero(buf + 8, ZONEFS_SUPER_SIZE - 8),
		     "no features: label, uuid, uid, gid, perm, reserved zero");
}

static void zonefs_test_full(void)
{
	static uint8_t buf[ZONEFS_SUPER_SIZE];
	struct zonefs_ctl ctl = {
		.c_features	= ZONEFS_F_AGGRCNV | ZONEFS_F_UID |
				  ZONEFS_F_GID | ZONEFS_F_PERM |
				  ZONEFS_F_SECT_NAME,
		.c_uid		= 1000,
		.c_gid		= 100,
		.c_perm		= 0600,
	};
	unsigned int i, bad = 0;

	strcpy(ctl.c_label, "zonefs-test");
	for (i = 0; i < ZONEFS_UUID_SIZE; i++)
		ctl.c_uuid[i] = i;

	memset(buf, 0xa5, sizeof(buf));
	zonefs_super_encode(&ctl, buf);
	for (i = 0; i < sizeof(zonefs_full_head) / 2; i++)
		if (buf[i] != (zonefs_hex(zonefs_full_head[2 * i]) << 4 |
			       zonefs_hex(zonefs_full_head[2 * i + 1])))
			bad++;
	ZONEFS_CHECK(sizeof(zonefs_full_head) / 2 == 112 && !bad,
		     "all features: first 112 bytes match the vector");
	ZONEFS_CHECK(zonefs_le32(buf + 4) == 0xbb89f6cb,
		     "crc of the all-features superblock");
	ZONEFS_CHECK(buf[88] == 0x0f && buf[90] == 0x01,
		     "features bits 0-3 and 16 at offset 88");
	ZONEFS_CHECK(zonefs_all_zero(buf + 108, ZONEFS_SUPER_RESERVED),
		     "reserved bytes are zero");

	/* Recompute the crc as a mount would: with the field zeroed. */
	memset(buf + 4, 0, 4);
	ZONEFS_CHECK(zonefs_crc32(~0U, buf, sizeof(buf)) == 0xbb89f6cb,
		     "crc is over the block with the crc field zeroed");
}

static void zonefs_test_label(void)
{
	static uint8_t buf[ZONEFS_SUPER_SIZE];
	struct zonefs_ctl ctl = { .c_features = ZONEFS_F_AGGRCNV };

	memset(ctl.c_label, 'L', ZONEFS_LABEL_LEN - 1);
	memset(ctl.c_uuid, 0xff, sizeof(ctl.c_uuid));
	zonefs_super_encode(&ctl, buf);
	ZONEFS_CHECK(zonefs_le32(buf + 4) == 0x92b9a3cb,
		     "crc with a 63-byte label and an all-ones uuid");
	ZONEFS_CHECK(buf[8 + 62] == 'L' && buf[8 + 63] == 0 &&
		     buf[72] == 0xff, "63-byte label keeps a NUL before uuid");
	ZONEFS_CHECK(zonefs_le32(buf + 96) == 0 && zonefs_le32(buf + 104) == 0,
		     "uid and perm not stored without their features");
}

static void zonefs_test_uuid(void)
{
	uint8_t a[ZONEFS_UUID_SIZE], b[ZONEFS_UUID_SIZE];
	char str[ZONEFS_UUID_STR_LEN + 1];

	ZONEFS_CHECK(!zonefs_uuid_generate(a) && !zonefs_uuid_generate(b) &&
		     memcmp(a, b, sizeof(a)), "two random UUIDs differ");
	ZONEFS_CHECK((a[6] >> 4) == 4 && (a[8] >> 6) == 2,
		     "random UUID is version 4, variant 10");
	for (unsigned int i = 0; i < ZONEFS_UUID_SIZE; i++)
		a[i] = i * 17;
	zonefs_uuid_format(a, str);
	ZONEFS_CHECK(!strcmp(str, "00112233-4455-6677-8899-aabbccddeeff"),
		     "UUID formats as 8-4-4-4-12");
	ZONEFS_CHECK(!zonefs_parse_uuid(str, b) && !memcmp(a, b, sizeof(a)),
		     "formatted UUID parses back");
}

int main(void)
{
	zonefs_test_crc();
	zonefs_test_default();
	zonefs_test_full();
	zonefs_test_label();
	zonefs_test_uuid();
	return zonefs_test_done();
}
