// SPDX-License-Identifier: GPL-2.0
/*
 * mkzonefs geometry checks and plan: pure functions of a zone report, so
 * that the unit tests can feed them made-up devices.
 */
#include <errno.h>

#include "mkzonefs.h"

/* Smallest zone 0 capacity that holds the superblock (512B sectors). */
#define ZONEFS_SUPER_SECTORS	(ZONEFS_SUPER_SIZE >> 9)

/**
 * zonefs_zone_is_cnv() - is @z a conventional zone?
 * @z: zone descriptor
 *
 * Return: true for a conventional zone, false for a sequential one.
 */
bool zonefs_zone_is_cnv(const struct blk_zone *z)
{
	return z->type == BLK_ZONE_TYPE_CONVENTIONAL;
}

/**
 * zonefs_zone_is_usable() - can @z be written?
 * @z: zone descriptor
 *
 * Return: false for an offline or read-only zone, true otherwise.
 */
bool zonefs_zone_is_usable(const struct blk_zone *z)
{
	return z->cond != BLK_ZONE_COND_OFFLINE &&
	       z->cond != BLK_ZONE_COND_READONLY;
}

/**
 * zonefs_zone_cond_name() - printable zone condition
 * @cond: BLK_ZONE_COND_*
 *
 * Return: a static string.
 */
const char *zonefs_zone_cond_name(unsigned int cond)
{
	switch (cond) {
	case BLK_ZONE_COND_NOT_WP:
		return "not-wp";
	case BLK_ZONE_COND_EMPTY:
		return "empty";
	case BLK_ZONE_COND_IMP_OPEN:
		return "implicit-open";
	case BLK_ZONE_COND_EXP_OPEN:
		return "explicit-open";
	case BLK_ZONE_COND_CLOSED:
		return "closed";
	case BLK_ZONE_COND_READONLY:
		return "read-only";
	case BLK_ZONE_COND_FULL:
		return "full";
	case BLK_ZONE_COND_OFFLINE:
		return "offline";
	default:
		return "unknown";
	}
}

/**
 * zonefs_zone_type_name() - printable zone type
 * @type: BLK_ZONE_TYPE_*
 *
 * Return: a static string.
 */
const char *zonefs_zone_type_name(unsigned int type)
{
	switch (type) {
	case BLK_ZONE_TYPE_CONVENTIONAL:
		return "conventional";
	case BLK_ZONE_TYPE_SEQWRITE_REQ:
		return "seq-write-required";
	case BLK_ZONE_TYPE_SEQWRITE_PREF:
		return "seq-write-preferred";
	default:
		return "unknown";
	}
}

/**
 * zonefs_check_geometry() - can this zone layout hold zonefs?
 * @zones: the zone report, in order of start sector
 * @nr:    number of zones
 * @why:   set to a static explanation when the layout is refused
 *
 * zonefs needs equal zones (the last one may be smaller), without gaps,
 * a writable zone 0 big enough for the superblock, and at least one more
 * usable zone to hold a file.
 *
 * Return: 0, or -EINVAL with *@why set.
 */
int zonefs_check_geometry(const struct blk_zone *zones, unsigned int nr,
			  const char **why)
{
	unsigned int i, usable = 0;
	uint64_t zsize;

	if (!nr) {
		*why = "the device reports no zones";
		return -EINVAL;
	}

	zsize = zones[0].len;
	for (i = 0; i < nr; i++) {
		const struct blk_zone *z = &zones[i];

		if (i && z->start != zones[i - 1].start + zones[i - 1].len) {
			*why = "the zone report has a gap between zones";
			return -EINVAL;
		}
		if (!z->len || z->len > zsize ||
		    (z->len != zsize && i != nr - 1)) {
			*why = "zones have unequal sizes (only the last zone may be smaller)";
			return -EINVAL;
		}
		if (zonefs_zone_is_usable(z))
			usable++;
	}

	if (!zonefs_zone_is_usable(&zones[0])) {
		*why = "zone 0 is offline or read-only and cannot hold the superblock";
		return -EINVAL;
	}
	if (zones[0].capacity < ZONEFS_SUPER_SECTORS) {
		*why = "zone 0 is too small to hold the superblock";
		return -EINVAL;
	}
	if (usable < 2) {
		*why = "fewer than 2 usable zones (zone 0 holds the superblock, files need more)";
		return -EINVAL;
	}
	return 0;
}

/**
 * zonefs_file_nr_zones() - how many zones the file at @first spans
 * @zones:    the zone report
 * @nr:       number of zones
 * @features: ZONEFS_F_* bits
 * @first:    index of the file's first zone, at least 1
 *
 * A file is one zone, except with aggr_cnv: then contiguous conventional
 * zones in the same condition are joined into one file. Zone 0 never
 * belongs to a file.
 *
 * Return: the number of zones, at least 1.
 */
unsigned int zonefs_file_nr_zones(const struct blk_zone *zones,
				  unsigned int nr, uint64_t features,
				  unsigned int first)
{
	unsigned int i = first + 1;

	if (!(features & ZONEFS_F_AGGRCNV) ||
	    !zonefs_zone_is_cnv(&zones[first]))
		return 1;

	while (i < nr && zonefs_zone_is_cnv(&zones[i]) &&
	       zones[i].cond == zones[first].cond)
		i++;
	return i - first;
}

/**
 * zonefs_count_zones() - summarise a zone report for the plan
 * @zones:    the zone report
 * @nr:       number of zones
 * @features: ZONEFS_F_* bits (aggr_cnv changes the file counts)
 * @st:       filled in
 */
void zonefs_count_zones(const struct blk_zone *zones, unsigned int nr,
			uint64_t features, struct zonefs_stats *st)
{
	unsigned int i, n;

	*st = (struct zonefs_stats){ 0 };

	for (i = 0; i < nr; i++) {
		const struct blk_zone *z = &zones[i];

		switch (z->type) {
		case BLK_ZONE_TYPE_CONVENTIONAL:
			st->st_cnv++;
			break;
		case BLK_ZONE_TYPE_SEQWRITE_REQ:
			st->st_seq_req++;
			break;
		case BLK_ZONE_TYPE_SEQWRITE_PREF:
			st->st_seq_pref++;
			break;
		}

		switch (z->cond) {
		case BLK_ZONE_COND_NOT_WP:
			st->st_not_wp++;
			break;
		case BLK_ZONE_COND_EMPTY:
			st->st_empty++;
			break;
		case BLK_ZONE_COND_IMP_OPEN:
		case BLK_ZONE_COND_EXP_OPEN:
			st->st_open++;
			break;
		case BLK_ZONE_COND_CLOSED:
			st->st_closed++;
			break;
		case BLK_ZONE_COND_FULL:
			st->st_full++;
			break;
		case BLK_ZONE_COND_READONLY:
			st->st_readonly++;
			break;
		case BLK_ZONE_COND_OFFLINE:
			st->st_offline++;
			break;
		}

		if (i)
			st->st_capacity += z->capacity;
	}

	for (i = 1; i < nr; i += n) {
		n = zonefs_file_nr_zones(zones, nr, features, i);
		if (zonefs_zone_is_cnv(&zones[i]))
			st->st_cnv_files++;
		else
			st->st_seq_files++;
	}
}
