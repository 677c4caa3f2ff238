// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the mkzonefs command line parser: what it accepts, and that
 * every refusal returns an error with exactly one "mkzonefs: " line on
 * stderr.
 */
#include <errno.h>
#include <stdarg.h>

#include "../../tools/mkzonefs.h"
#include "zonefs_test.h"

#define ZONEFS_MAX_ARGS	16

static struct zonefs_ctl ctl;
static const char *err_text;

/* Parse "mkzonefs" followed by the NULL-terminated arguments. */
static int zonefs_parse(const char *arg, ...)
{
	char *argv[ZONEFS_MAX_ARGS + 1];
	int argc = 0, ret;
	va_list ap;

	argv[argc++] = "mkzonefs";
	va_start(ap, arg);
	for (; arg && argc < ZONEFS_MAX_ARGS; arg = va_arg(ap, const char *))
		argv[argc++] = (char *)arg;
	va_end(ap);
	argv[argc] = NULL;

	zonefs_capture_start();
	ret = zonefs_parse_args(&ctl, argc, argv);
	err_text = zonefs_capture_end();
	return ret;
}

/* A refusal: an error code and one line naming the cause. */
static int zonefs_refused(int ret, const char *needle)
{
	return ret < 0 && zonefs_is_one_line(err_text) &&
	       !strncmp(err_text, "mkzonefs: ", 10) &&
	       strstr(err_text, needle);
}

#define ZONEFS_REFUSE(needle, ...)					\
	do {								\
		int __ret = zonefs_parse(__VA_ARGS__, NULL);		\
		ZONEFS_CHECK(zonefs_refused(__ret, needle),		\
			     "refuse %s", #__VA_ARGS__);		\
		if (!zonefs_refused(__ret, needle))			\
			printf("#   ret %d, stderr: %s\n", __ret, err_text); \
	} while (0)

static void zonefs_test_accept(void)
{
	int ret;

	ret = zonefs_parse("/dev/sdz", NULL);
	ZONEFS_CHECK(!ret && !strcmp(ctl.c_devname, "/dev/sdz") &&
		     !ctl.c_features && !ctl.c_force && !ctl.c_dry_run &&
		     !ctl.c_have_uuid && !*err_text, "device only: defaults");

	ret = zonefs_parse("-f", "-v", "-n", "-L", "data", "-U",
			   "0123abcd-4567-89ab-CDEF-0123456789ab",
			   "-o", "aggr_cnv,sect_name,uid=1000,gid=0,perm=0640",
			   "/dev/sdz", NULL);
	ZONEFS_CHECK(!ret && ctl.c_force && ctl.c_verbose && ctl.c_dry_run,
		     "short flags");
	ZONEFS_CHECK(!strcmp(ctl.c_label, "data") && ctl.c_have_uuid &&
		     ctl.c_uuid[0] == 0x01 && ctl.c_uuid[9] == 0xef &&
		     ctl.c_uuid[15] == 0xab, "label and uuid");
	ZONEFS_CHECK(ctl.c_features == (ZONEFS_F_AGGRCNV | ZONEFS_F_SECT_NAME |
					ZONEFS_F_UID | ZONEFS_F_GID |
					ZONEFS_F_PERM) &&
		     ctl.c_uid == 1000 && ctl.c_gid == 0 && ctl.c_perm == 0640,
		     "-o features and values");

	ret = zonefs_parse("--force", "--verbose", "--dry-run",
			   "--label=x", "--uuid",
			   "00000000-0000-0000-0000-000000000000",
			   "--options", "uid=4294967294", "--options=perm=0",
			   "/dev/sdz", NULL);
	ZONEFS_CHECK(!ret && ctl.c_force && ctl.c_verbose && ctl.c_dry_run &&
		     ctl.c_uid == 4294967294U && ctl.c_perm == 0 &&
		     ctl.c_features == (ZONEFS_F_UID | ZONEFS_F_PERM),
		     "long options, -o given twice, uid at its maximum");

	memset(ctl.c_label, 0, sizeof(ctl.c_label));
	ret = zonefs_parse("-L", "123456789012345678901234567890123456789012345678901234567890123",
			   "/dev/sdz", NULL);
	ZONEFS_CHECK(!ret && strlen(ctl.c_label) == 63,
		     "63-byte label accepted");

	ret = zonefs_parse("-o", "perm=777", "/dev/sdz", NULL);
	ZONEFS_CHECK(!ret && ctl.c_perm == 0777, "perm=777 is octal");

	ret = zonefs_parse("-h", NULL);
	ZONEFS_CHECK(!ret && ctl.c_action == ZONEFS_ACT_HELP,
		     "-h needs no device");
	ret = zonefs_parse("--version", NULL);
	ZONEFS_CHECK(!ret && ctl.c_action == ZONEFS_ACT_VERSION, "--version");
	ret = zonefs_parse("/dev/sdz", NULL);
	ZONEFS_CHECK(!ret && ctl.c_action == ZONEFS_ACT_FORMAT,
		     "action is reset between calls");
}

static void zonefs_test_refuse(void)
{
	ZONEFS_REFUSE("no device", "-f");
	ZONEFS_REFUSE("too many", "/dev/a", "/dev/b");
	ZONEFS_REFUSE("invalid option '-x'", "-x", "/dev/sdz");
	ZONEFS_REFUSE("unrecognized option '--bogus'", "--bogus", "/dev/sdz");
	ZONEFS_REFUSE("requires an argument", "/dev/sdz", "-L");
	ZONEFS_REFUSE("requires an argument", "/dev/sdz", "--uuid");
	ZONEFS_REFUSE("label is 64 bytes",
		      "-L", "1234567890123456789012345678901234567890123456789012345678901234",
		      "/dev/sdz");
	ZONEFS_REFUSE("label is 100 bytes",
		      "-L", "1234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890",
		      "/dev/sdz");
	ZONEFS_REFUSE("invalid UUID", "-U", "not-a-uuid", "/dev/sdz");
	ZONEFS_REFUSE("invalid UUID", "-U",
		      "0123abcd-4567-89ab-cdef-0123456789a", "/dev/sdz");
	ZONEFS_REFUSE("invalid UUID", "-U",
		      "0123abcd-4567-89ab-cdef-0123456789abc", "/dev/sdz");
	ZONEFS_REFUSE("invalid UUID", "-U",
		      "0123abcd04567-89ab-cdef-0123456789ab", "/dev/sdz");
	ZONEFS_REFUSE("invalid UUID", "-U",
		      "0123abcg-4567-89ab-cdef-0123456789ab", "/dev/sdz");
	ZONEFS_REFUSE("invalid UUID", "-U",
		      "0123abcd4567-89ab-cdef-0123456789ab--", "/dev/sdz");
	ZONEFS_REFUSE("unknown option 'foo'", "-o", "foo", "/dev/sdz");
	ZONEFS_REFUSE("unknown option 'aggr_cnvx'", "-o", "aggr_cnvx",
		      "/dev/sdz");
	ZONEFS_REFUSE("takes no value", "-o", "aggr_cnv=1", "/dev/sdz");
	ZONEFS_REFUSE("empty element", "-o", "aggr_cnv,,sect_name",
		      "/dev/sdz");
	ZONEFS_REFUSE("empty element", "-o", "", "/dev/sdz");
	ZONEFS_REFUSE("needs a value", "-o", "uid", "/dev/sdz");
	ZONEFS_REFUSE("invalid uid ''", "-o", "uid=", "/dev/sdz");
	ZONEFS_REFUSE("invalid uid '-5'", "-o", "uid=-5", "/dev/sdz");
	ZONEFS_REFUSE("invalid uid '-1'", "-o", "uid=-1", "/dev/sdz");
	ZONEFS_REFUSE("invalid uid '+5'", "-o", "uid=+5", "/dev/sdz");
	ZONEFS_REFUSE("invalid uid ' 5'", "-o", "uid= 5", "/dev/sdz");
	ZONEFS_REFUSE("invalid uid '5x'", "-o", "uid=5x", "/dev/sdz");
	ZONEFS_REFUSE("invalid uid '0x10'", "-o", "uid=0x10", "/dev/sdz");
	ZONEFS_REFUSE("invalid uid '4294967295'", "-o", "uid=4294967295",
		      "/dev/sdz");
	ZONEFS_REFUSE("invalid uid '4294967296'", "-o", "uid=4294967296",
		      "/dev/sdz");
	ZONEFS_REFUSE("invalid uid '99999999999999999999999'",
		      "-o", "uid=99999999999999999999999", "/dev/sdz");
	ZONEFS_REFUSE("invalid gid '-5'", "-o", "gid=-5", "/dev/sdz");
	ZONEFS_REFUSE("invalid gid '4294967295'", "-o", "gid=4294967295",
		      "/dev/sdz");
	ZONEFS_REFUSE("invalid perm '0888'", "-o", "perm=0888", "/dev/sdz");
	ZONEFS_REFUSE("invalid perm '1000'", "-o", "perm=1000", "/dev/sdz");
	ZONEFS_REFUSE("invalid perm '4777'", "-o", "perm=4777", "/dev/sdz");
	ZONEFS_REFUSE("invalid perm 'rw'", "-o", "perm=rw", "/dev/sdz");
	ZONEFS_REFUSE("invalid perm '-1'", "-o", "perm=-1", "/dev/sdz");
}

static void zonefs_test_u32(void)
{
	uint32_t v = 7;

	ZONEFS_CHECK(!zonefs_parse_u32("0", 10, 10, &v) && v == 0, "u32 0");
	ZONEFS_CHECK(!zonefs_parse_u32("10", 10, 10, &v) && v == 10,
		     "u32 at max");
	ZONEFS_CHECK(zonefs_parse_u32("11", 10, 10, &v) == -ERANGE && v == 10,
		     "u32 over max is -ERANGE, value untouched");
	ZONEFS_CHECK(zonefs_parse_u32("12a", 10, 100, &v) == -EINVAL,
		     "u32 trailing junk is -EINVAL");
	ZONEFS_CHECK(zonefs_parse_u32("-0", 10, 100, &v) == -EINVAL,
		     "u32 sign is -EINVAL");
	ZONEFS_CHECK(!zonefs_parse_u32("755", 8, 0777, &v) && v == 0755,
		     "u32 octal");
}

int main(void)
{
	zonefs_test_accept();
	zonefs_test_refuse();
	zonefs_test_u32();
	return zonefs_test_done();
}
