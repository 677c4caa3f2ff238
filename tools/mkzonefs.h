/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mkzonefs: shared types and prototypes of the zonefs format tool.
 *
 * Every action function returns 0 or -errno. The function that knows why
 * something failed prints one line on stderr, and main() only maps the
 * result to an exit code.
 */
#ifndef _MKZONEFS_H
#define _MKZONEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <linux/blkzoned.h>

#include "zonefs_format.h"

/*
 * Older uapi headers lack the zone management ioctls that came after
 * BLKRESETZONE. The numbers are part of the kernel ABI.
 */
#ifndef BLKOPENZONE
#define BLKOPENZONE	_IOW(0x12, 134, struct blk_zone_range)
#endif
#ifndef BLKCLOSEZONE
#define BLKCLOSEZONE	_IOW(0x12, 135, struct blk_zone_range)
#endif
#ifndef BLKFINISHZONE
#define BLKFINISHZONE	_IOW(0x12, 136, struct blk_zone_range)
#endif

#define ZONEFS_PROG		"mkzonefs"
#define ZONEFS_TOOL_VERSION	"0.1"

#define ZONEFS_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exit codes of mkzonefs. */
#define ZONEFS_EXIT_OK		0
#define ZONEFS_EXIT_FAILURE	1
#define ZONEFS_EXIT_USAGE	2

/* Largest valid uid and gid: (uid_t)-1 means "no change" to the kernel. */
#define ZONEFS_ID_MAX		(UINT32_MAX - 1)
#define ZONEFS_PERM_MAX		0777

/* Length of a textual UUID: 8-4-4-4-12 hex digits. */
#define ZONEFS_UUID_STR_LEN	36

/* What main() does once the arguments are parsed. */
enum zonefs_action {
	ZONEFS_ACT_FORMAT = 0,
	ZONEFS_ACT_HELP,
	ZONEFS_ACT_VERSION,
};

/**
 * struct zonefs_ctl - everything the command line asks for
 * @c_action:	format, or print help or the version
 * @c_devname:	the device to format (points into argv)
 * @c_force:	overwrite an existing file system signature
 * @c_verbose:	print the per-file plan and each step
 * @c_dry_run:	stop after printing the plan
 * @c_label:	volume label, NUL-padded; at most ZONEFS_LABEL_LEN - 1 bytes
 * @c_uuid:	volume UUID, valid if @c_have_uuid
 * @c_have_uuid: -U was given; otherwise a random UUID is generated
 * @c_features:	ZONEFS_F_* bits
 * @c_uid:	files' owner, used with ZONEFS_F_UID
 * @c_gid:	files' group, used with ZONEFS_F_GID
 * @c_perm:	files' mode bits, used with ZONEFS_F_PERM
 */
struct zonefs_ctl {
	enum zonefs_action	c_action;
	const char		*c_devname;
	bool			c_force;
	bool			c_verbose;
	bool			c_dry_run;
	char			c_label[ZONEFS_LABEL_LEN];
	uint8_t			c_uuid[ZONEFS_UUID_SIZE];
	bool			c_have_uuid;
	uint64_t		c_features;
	uint32_t		c_uid;
	uint32_t		c_gid;
	uint32_t		c_perm;
};

/**
 * struct zonefs_dev - a probed zoned block device
 * @d_path:	path given on the command line
 * @d_fd:	open file, O_EXCL and O_DIRECT; -1 when closed
 * @d_model:	"host-managed", "host-aware" or "unknown" (display only)
 * @d_lbs:	logical block size (bytes)
 * @d_pbs:	physical block size (bytes)
 * @d_size:	device size (bytes)
 * @d_zone_sectors: zone size (512B sectors)
 * @d_nr_zones:	number of zones in @d_zones
 * @d_zones:	the zone report, in order of start sector
 * @d_has_capacity: the report carried zone capacities
 */
struct zonefs_dev {
	const char		*d_path;
	int			d_fd;
	char			d_model[16];
	unsigned int		d_lbs;
	unsigned int		d_pbs;
	uint64_t		d_size;
	uint64_t		d_zone_sectors;
	unsigned int		d_nr_zones;
	struct blk_zone		*d_zones;
	bool			d_has_capacity;
};

/**
 * struct zonefs_stats - zone counts of a device, by type and condition
 * @st_cnv:	conventional zones
 * @st_seq_req:	sequential-write-required zones
 * @st_seq_pref: sequential-write-preferred zones
 * @st_not_wp:	zones without a write pointer (conventional)
 * @st_empty:	empty zones
 * @st_open:	implicitly or explicitly open zones
 * @st_closed:	closed zones
 * @st_full:	full zones
 * @st_readonly: read-only zones
 * @st_offline:	offline zones
 * @st_cnv_files: files that will appear in cnv/
 * @st_seq_files: files that will appear in seq/
 * @st_capacity: sum of the capacities of all zones but zone 0 (sectors)
 */
struct zonefs_stats {
	unsigned int	st_cnv;
	unsigned int	st_seq_req;
	unsigned int	st_seq_pref;
	unsigned int	st_not_wp;
	unsigned int	st_empty;
	unsigned int	st_open;
	unsigned int	st_closed;
	unsigned int	st_full;
	unsigned int	st_readonly;
	unsigned int	st_offline;
	unsigned int	st_cnv_files;
	unsigned int	st_seq_files;
	uint64_t	st_capacity;
};

/* Print "mkzonefs: <message>\n" on stderr. */
static inline void __attribute__((format(printf, 1, 2)))
zonefs_error(const char *fmt, ...)
{
	va_list ap;

	fputs(ZONEFS_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* zonefs_opts.c */
int zonefs_parse_u32(const char *str, int base, uint32_t max, uint32_t *val);
int zonefs_parse_uuid(const char *str, uint8_t *uuid);
int zonefs_parse_options(struct zonefs_ctl *ctl, const char *opts);
int zonefs_parse_args(struct zonefs_ctl *ctl, int argc, char **argv);
void zonefs_usage(FILE *out);

/* zonefs_super.c */
uint32_t zonefs_crc32(uint32_t crc, const void *buf, size_t len);
void zonefs_super_encode(const struct zonefs_ctl *ctl, void *buf);
int zonefs_uuid_generate(uint8_t *uuid);
void zonefs_uuid_format(const uint8_t *uuid, char *str);

/* zonefs_plan.c */
bool zonefs_zone_is_cnv(const struct blk_zone *z);
bool zonefs_zone_is_usable(const struct blk_zone *z);
const char *zonefs_zone_cond_name(unsigned int cond);
const char *zonefs_zone_type_name(unsigned int type);
int zonefs_check_geometry(const struct blk_zone *zones, unsigned int nr,
			  const char **why);
unsigned int zonefs_file_nr_zones(const struct blk_zone *zones,
				  unsigned int nr, uint64_t features,
				  unsigned int first);
void zonefs_count_zones(const struct blk_zone *zones, unsigned int nr,
			uint64_t features, struct zonefs_stats *st);

/* zonefs_dev.c */
int zonefs_dev_open(struct zonefs_dev *dev, const char *path, bool dry_run);
int zonefs_dev_report(struct zonefs_dev *dev);
int zonefs_dev_check_signature(struct zonefs_dev *dev, bool force,
			       bool verbose);
int zonefs_dev_format(struct zonefs_dev *dev, const struct zonefs_ctl *ctl);
void zonefs_dev_close(struct zonefs_dev *dev);

#endif /* _MKZONEFS_H */
