// SPDX-License-Identifier: GPL-2.0
/*
 * mkzonefs command line parsing. Everything here is a pure function of its
 * arguments, so that the unit tests can call it directly: each refusal
 * prints one line on stderr and returns -EINVAL or -ERANGE.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "mkzonefs.h"

static const struct option zonefs_long_opts[] = {
	{ "force",	no_argument,		NULL, 'f' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "dry-run",	no_argument,		NULL, 'n' },
	{ "label",	required_argument,	NULL, 'L' },
	{ "uuid",	required_argument,	NULL, 'U' },
	{ "options",	required_argument,	NULL, 'o' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 },
};

/* Leading ':' makes getopt report a missing argument as ':'. */
static const char zonefs_short_opts[] = ":fvnL:U:o:hV";

/**
 * zonefs_usage() - print the help text
 * @out: stream to print to
 */
void zonefs_usage(FILE *out)
{
	fputs("Usage: " ZONEFS_PROG " [options] <device>\n"
	      "\n"
	      "Format a zoned block device with zonefs.\n"
	      "\n"
	      "Options:\n"
	      " -f, --force            overwrite an existing file system\n"
	      " -v, --verbose          list every file and each step\n"
	      " -n, --dry-run          print the plan, write nothing\n"
	      " -L, --label <text>     volume label (at most 63 bytes)\n"
	      " -U, --uuid <uuid>      volume UUID (8-4-4-4-12 hex digits)\n"
	      " -o, --options <list>   comma-separated features:\n"
	      "     aggr_cnv             join contiguous conventional zones\n"
	      "     sect_name            name files by zone start sector\n"
	      "     uid=<n>              owner of the files (default 0)\n"
	      "     gid=<n>              group of the files (default 0)\n"
	      "     perm=<octal>         mode of the files (default 640)\n"
	      " -h, --help             print this help and exit\n"
	      " -V, --version          print the version and exit\n"
	      "\n"
	      "Exit status: 0 done, 1 failure, 2 usage error, 128+N stopped by\n"
	      "signal N (SIGHUP, SIGINT, SIGQUIT, SIGTERM) once the format was complete.\n", out);
}

/**
 * zonefs_parse_u32() - parse an unsigned number, strictly
 * @str:  the text; no sign, no white space, no trailing characters
 * @base: 8, 10 or 16
 * @max:  the largest accepted value
 * @val:  where to store the value
 *
 * Return: 0, -EINVAL if @str is not a number in @base, or -ERANGE if it
 * is larger than @max.
 */
int zonefs_parse_u32(const char *str, int base, uint32_t max, uint32_t *val)
{
	unsigned long long v;
	char *end;

	/* strtoull() skips blanks and accepts a sign: "-5" is a huge value. */
	if (!str || !*str || *str == '-' || *str == '+' ||
	    *str == ' ' || *str == '\t')
		return -EINVAL;

	errno = 0;
	v = strtoull(str, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == str || *end)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

static int zonefs_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * zonefs_parse_uuid() - parse a UUID in its 8-4-4-4-12 hex form
 * @str:  the text, exactly 36 characters
 * @uuid: where to store the ZONEFS_UUID_SIZE bytes
 *
 * Return: 0, or -EINVAL if @str is malformed.
 */
int zonefs_parse_uuid(const char *str, uint8_t *uuid)
{
	uint8_t out[ZONEFS_UUID_SIZE];
	unsigned int i, n = 0;
	int hi, lo;

	if (strlen(str) != ZONEFS_UUID_STR_LEN)
		return -EINVAL;

	for (i = 0; i < ZONEFS_UUID_STR_LEN; ) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (str[i] != '-')
				return -EINVAL;
			i++;
			continue;
		}
		hi = zonefs_hex_digit(str[i]);
		lo = zonefs_hex_digit(str[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[n++] = (hi << 4) | lo;
		i += 2;
	}

	memcpy(uuid, out, sizeof(out));
	return 0;
}

/*
 * Parse the value of a "key=value" option into *val, or say why not.
 */
static int zonefs_parse_id_opt(const char *key, const char *val, int base,
			       uint32_t max, uint32_t *out)
{
	int ret;

	if (!val) {
		zonefs_error("option '%s' needs a value", key);
		return -EINVAL;
	}
	ret = zonefs_parse_u32(val, base, max, out);
	if (ret && base == 8)
		zonefs_error("invalid %s '%s' (expected octal 0 to 0%o)",
			     key, val, max);
	else if (ret)
		zonefs_error("invalid %s '%s' (expected 0 to %u)",
			     key, val, max);
	return ret;
}

/*
 * Parse one element of the -o list. @opt is modified (the '=' is cut).
 */
static int zonefs_parse_one_option(struct zonefs_ctl *ctl, char *opt)
{
	char *val = strchr(opt, '=');
	int ret;

	if (val)
		*val++ = '\0';

	if (!strcmp(opt, "aggr_cnv") || !strcmp(opt, "sect_name")) {
		if (val) {
			zonefs_error("option '%s' takes no value", opt);
			return -EINVAL;
		}
		ctl->c_features |= opt[0] == 'a' ? ZONEFS_F_AGGRCNV :
						   ZONEFS_F_SECT_NAME;
		return 0;
	}

	if (!strcmp(opt, "uid")) {
		ret = zonefs_parse_id_opt(opt, val, 10, ZONEFS_ID_MAX,
					  &ctl->c_uid);
		if (!ret)
			ctl->c_features |= ZONEFS_F_UID;
		return ret;
	}

	if (!strcmp(opt, "gid")) {
		ret = zonefs_parse_id_opt(opt, val, 10, ZONEFS_ID_MAX,
					  &ctl->c_gid);
		if (!ret)
			ctl->c_features |= ZONEFS_F_GID;
		return ret;
	}

	if (!strcmp(opt, "perm")) {
		ret = zonefs_parse_id_opt(opt, val, 8, ZONEFS_PERM_MAX,
					  &ctl->c_perm);
		if (!ret)
			ctl->c_features |= ZONEFS_F_PERM;
		return ret;
	}

	zonefs_error("unknown option '%s' in -o", opt);
	return -EINVAL;
}

/**
 * zonefs_parse_options() - parse the -o list into @ctl
 * @ctl:  control structure to update
 * @opts: comma-separated list, e.g. "aggr_cnv,uid=1000,perm=600"
 *
 * Return: 0, -EINVAL or -ERANGE for a bad element, -ENOMEM.
 */
int zonefs_parse_options(struct zonefs_ctl *ctl, const char *opts)
{
	char *copy, *opt, *next;
	int ret = 0;

	copy = strdup(opts);
	if (!copy) {
		zonefs_error("out of memory");
		return -ENOMEM;
	}

	for (opt = copy; opt; opt = next) {
		next = strchr(opt, ',');
		if (next)
			*next++ = '\0';
		if (!*opt) {
			zonefs_error("empty element in -o '%s'", opts);
			ret = -EINVAL;
			break;
		}
		ret = zonefs_parse_one_option(ctl, opt);
		if (ret)
			break;
	}

	free(copy);
	return ret;
}

static int zonefs_set_label(struct zonefs_ctl *ctl, const char *label)
{
	size_t len = strlen(label);

	/* Keep a NUL in the field so that every reader sees a C string. */
	if (len >= ZONEFS_LABEL_LEN) {
		zonefs_error("label is %zu bytes long, at most %d are allowed",
			     len, ZONEFS_LABEL_LEN - 1);
		return -EINVAL;
	}
	memset(ctl->c_label, 0, sizeof(ctl->c_label));
	memcpy(ctl->c_label, label, len);
	return 0;
}

/**
 * zonefs_parse_args() - parse the command line into @ctl
 * @ctl:  control structure, fully reset here first
 * @argc: argument count
 * @argv: arguments, argv[0] being the program name
 *
 * This may be called several times in one process (the unit tests do).
 *
 * Return: 0 (see @ctl->c_action), or -EINVAL/-ERANGE for a usage error,
 * which has been reported on stderr.
 */
int zonefs_parse_args(struct zonefs_ctl *ctl, int argc, char **argv)
{
	int c, ret;

	memset(ctl, 0, sizeof(*ctl));
	ctl->c_perm = ZONEFS_DEF_PERM;
	ctl->c_uid = ZONEFS_DEF_UID;
	ctl->c_gid = ZONEFS_DEF_GID;

	/* 0, not 1: also resets glibc's internal state between calls. */
	optind = 0;
	opterr = 0;

	while ((c = getopt_long(argc, argv, zonefs_short_opts,
				zonefs_long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			ctl->c_force = true;
			break;
		case 'v':
			ctl->c_verbose = true;
			break;
		case 'n':
			ctl->c_dry_run = true;
			break;
		case 'L':
			ret = zonefs_set_label(ctl, optarg);
			if (ret)
				return ret;
			break;
		case 'U':
			if (zonefs_parse_uuid(optarg, ctl->c_uuid)) {
				zonefs_error("invalid UUID '%s' (expected 8-4-4-4-12 hex digits)",
					     optarg);
				return -EINVAL;
			}
			ctl->c_have_uuid = true;
			break;
		case 'o':
			ret = zonefs_parse_options(ctl, optarg);
			if (ret)
				return ret;
			break;
		case 'h':
			ctl->c_action = ZONEFS_ACT_HELP;
			return 0;
		case 'V':
			ctl->c_action = ZONEFS_ACT_VERSION;
			return 0;
		case ':':
			zonefs_error("option '%s' requires an argument",
				     argv[optind - 1]);
			return -EINVAL;
		default:
			if (optopt)
				zonefs_error("invalid option '-%c'", optopt);
			else
				zonefs_error("unrecognized option '%s'",
					     argv[optind - 1]);
			return -EINVAL;
		}
	}

	if (optind >= argc) {
		zonefs_error("no device given");
		return -EINVAL;
	}
	if (argc - optind > 1) {
		zonefs_error("too many arguments, starting at '%s'",
			     argv[optind + 1]);
		return -EINVAL;
	}
	ctl->c_devname = argv[optind];
	return 0;
}
