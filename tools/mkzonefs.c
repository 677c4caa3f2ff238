// SPDX-License-Identifier: GPL-2.0
/*
 * mkzonefs - format a zoned block device with zonefs.
 *
 * Phases: parse the command line, probe the device, validate its zone
 * geometry, print the plan, then (unless --dry-run) erase the old
 * superblock durably, reset the sequential zones, write the superblock to
 * zone 0, finish it if it is sequential, and sync, with INT and TERM held
 * back from the erase to the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mkzonefs.h"

static void zonefs_print_features(const struct zonefs_ctl *ctl)
{
	uint64_t f = ctl->c_features;

	printf("Features:      ");
	if (!f)
		printf(" none");
	if (f & ZONEFS_F_AGGRCNV)
		printf(" aggr_cnv");
	if (f & ZONEFS_F_SECT_NAME)
		printf(" sect_name");
	if (f & ZONEFS_F_UID)
		printf(" uid=%u", ctl->c_uid);
	if (f & ZONEFS_F_GID)
		printf(" gid=%u", ctl->c_gid);
	if (f & ZONEFS_F_PERM)
		printf(" perm=0%o", ctl->c_perm);
	printf("\n");
}

/*
 * Name of the file that starts at zone @i, @nth in its directory: a
 * decimal index, or its start sector with sect_name.
 */
static unsigned long long zonefs_file_name(const struct zonefs_ctl *ctl,
					   const struct blk_zone *z,
					   unsigned int nth)
{
	if (ctl->c_features & ZONEFS_F_SECT_NAME)
		return z->start;
	return nth;
}

/*
 * One line per directory: how many files, and the first and last names.
 * With --verbose, one line per file as well.
 */
static void zonefs_print_files(const struct zonefs_ctl *ctl,
			       const struct zonefs_dev *dev, bool cnv,
			       unsigned int count)
{
	const struct blk_zone *zones = dev->d_zones;
	unsigned long long first = 0, last = 0;
	unsigned int i, n, nth = 0;
	uint64_t cap;

	for (i = 1; i < dev->d_nr_zones; i += n) {
		n = zonefs_file_nr_zones(zones, dev->d_nr_zones,
					 ctl->c_features, i);
		if (zonefs_zone_is_cnv(&zones[i]) != cnv)
			continue;
		last = zonefs_file_name(ctl, &zones[i], nth);
		if (!nth)
			first = last;
		nth++;
	}

	printf("Files in %s:    %u", cnv ? "cnv/" : "seq/", count);
	if (count)
		printf(", named %llu to %llu", first, last);
	printf("\n");

	if (!ctl->c_verbose)
		return;

	nth = 0;
	for (i = 1; i < dev->d_nr_zones; i += n) {
		unsigned int j;

		n = zonefs_file_nr_zones(zones, dev->d_nr_zones,
					 ctl->c_features, i);
		if (zonefs_zone_is_cnv(&zones[i]) != cnv)
			continue;
		for (cap = 0, j = i; j < i + n; j++)
			cap += zones[j].capacity;
		printf("  %s%llu: zone%s %u", cnv ? "cnv/" : "seq/",
		       zonefs_file_name(ctl, &zones[i], nth),
		       n > 1 ? "s" : "", i);
		if (n > 1)
			printf(" to %u", i + n - 1);
		printf(", %llu KiB, %s\n", (unsigned long long)cap >> 1,
		       zonefs_zone_cond_name(zones[i].cond));
		nth++;
	}
}

static void zonefs_print_plan(const struct zonefs_ctl *ctl,
			      const struct zonefs_dev *dev)
{
	const struct blk_zone *z0 = &dev->d_zones[0];
	char uuid[ZONEFS_UUID_STR_LEN + 1];
	struct zonefs_stats st;

	zonefs_count_zones(dev->d_zones, dev->d_nr_zones, ctl->c_features,
			   &st);
	zonefs_uuid_format(ctl->c_uuid, uuid);

	printf("Device:         %s (%s)\n", dev->d_path, dev->d_model);
	printf("Size:           %llu MiB, logical block %u B, physical block %u B\n",
	       (unsigned long long)(dev->d_size >> 20), dev->d_lbs,
	       dev->d_pbs);
	printf("Zones:          %u of %llu KiB (%llu sectors)\n",
	       dev->d_nr_zones, (unsigned long long)dev->d_zone_sectors >> 1,
	       (unsigned long long)dev->d_zone_sectors);
	printf("Zone types:     %u conventional, %u sequential-write-required, %u sequential-write-preferred\n",
	       st.st_cnv, st.st_seq_req, st.st_seq_pref);
	printf("Zone conditions: %u not-wp, %u empty, %u open, %u closed, %u full, %u read-only, %u offline\n",
	       st.st_not_wp, st.st_empty, st.st_open, st.st_closed,
	       st.st_full, st.st_readonly, st.st_offline);
	printf("Capacity:       %llu MiB in files%s\n",
	       (unsigned long long)st.st_capacity >> 11,
	       dev->d_has_capacity ? "" : " (no zone capacity reported)");
	printf("Superblock:     zone 0 (%s), not a file\n",
	       zonefs_zone_type_name(z0->type));
	zonefs_print_files(ctl, dev, true, st.st_cnv_files);
	zonefs_print_files(ctl, dev, false, st.st_seq_files);
	zonefs_print_features(ctl);
	printf("Label:          \"%.*s\"\n", ZONEFS_LABEL_LEN, ctl->c_label);
	printf("UUID:           %s\n", uuid);
}

/*
 * Probe, validate and plan. Returns 0 when the device may be formatted.
 */
static int zonefs_prepare(struct zonefs_ctl *ctl, struct zonefs_dev *dev)
{
	const char *why = NULL;
	int ret;

	ret = zonefs_dev_open(dev, ctl->c_devname, ctl->c_dry_run);
	if (ret)
		return ret;
	ret = zonefs_dev_report(dev);
	if (ret)
		return ret;
	ret = zonefs_check_geometry(dev->d_zones, dev->d_nr_zones, &why);
	if (ret) {
		zonefs_error("%s: %s", dev->d_path, why);
		return ret;
	}
	ret = zonefs_dev_check_signature(dev, ctl->c_force, ctl->c_verbose);
	if (ret)
		return ret;
	if (!ctl->c_have_uuid) {
		ret = zonefs_uuid_generate(ctl->c_uuid);
		if (ret)
			return ret;
	}
	zonefs_print_plan(ctl, dev);
	return 0;
}

int main(int argc, char **argv)
{
	struct zonefs_dev dev = { .d_fd = -1 };
	struct zonefs_ctl ctl;
	int ret;

	if (zonefs_parse_args(&ctl, argc, argv))
		return ZONEFS_EXIT_USAGE;

	switch (ctl.c_action) {
	case ZONEFS_ACT_HELP:
		zonefs_usage(stdout);
		return ZONEFS_EXIT_OK;
	case ZONEFS_ACT_VERSION:
		printf(ZONEFS_PROG " " ZONEFS_TOOL_VERSION "\n");
		return ZONEFS_EXIT_OK;
	case ZONEFS_ACT_FORMAT:
		break;
	}

	ret = zonefs_prepare(&ctl, &dev);
	if (ret || ctl.c_dry_run)
		goto close_dev;

	/* The plan must be out before the first byte is written. */
	fflush(stdout);
	ret = zonefs_dev_format(&dev, &ctl);

close_dev:
	zonefs_dev_close(&dev);
	return ret ? ZONEFS_EXIT_FAILURE : ZONEFS_EXIT_OK;
}
