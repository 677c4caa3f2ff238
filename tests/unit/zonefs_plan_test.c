// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the geometry checks and the plan (zone and file counts) on
 * made-up zone reports.
 */
#include <errno.h>

#include "../../tools/mkzonefs.h"
#include "zonefs_test.h"

#define ZS	524288ULL	/* 256 MiB zones (512B sectors) */
#define CNV	BLK_ZONE_TYPE_CONVENTIONAL
#define SWR	BLK_ZONE_TYPE_SEQWRITE_REQ
#define SWP	BLK_ZONE_TYPE_SEQWRITE_PREF

/* Fill zone @i: equal zones, capacity = length, empty or not-wp. */
static void zonefs_zone(struct blk_zone *z, unsigned int i, int type,
			int cond)
{
	memset(&z[i], 0, sizeof(z[i]));
	z[i].start = i * ZS;
	z[i].len = ZS;
	z[i].capacity = ZS;
	z[i].wp = type == CNV ? ~0ULL : z[i].start;
	z[i].type = type;
	z[i].cond = cond >= 0 ? cond :
		    type == CNV ? BLK_ZONE_COND_NOT_WP : BLK_ZONE_COND_EMPTY;
}

static struct blk_zone zones[16];

/* 4 conventional zones, then 12 sequential ones: the testbed's layout. */
static void zonefs_layout(void)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		zonefs_zone(zones, i, i < 4 ? CNV : SWR, -1);
}

static int zonefs_refused(unsigned int nr, const char *needle)
{
	const char *why = NULL;
	int ret = zonefs_check_geometry(zones, nr, &why);

	return ret == -EINVAL && why && strstr(why, needle);
}

static void zonefs_test_geometry(void)
{
	const char *why = NULL;

	zonefs_layout();
	ZONEFS_CHECK(!zonefs_check_geometry(zones, 16, &why) && !why,
		     "4 cnv + 12 seq zones accepted");
	ZONEFS_CHECK(!zonefs_check_geometry(zones, 2, &why),
		     "2 zones accepted");
	ZONEFS_CHECK(zonefs_refused(1, "fewer than 2"), "1 zone refused");
	ZONEFS_CHECK(zonefs_refused(0, "no zones"), "0 zones refused");

	zones[1].cond = BLK_ZONE_COND_OFFLINE;
	ZONEFS_CHECK(zonefs_refused(2, "fewer than 2"),
		     "zone 0 + offline zone refused");
	zones[1].cond = BLK_ZONE_COND_READONLY;
	ZONEFS_CHECK(zonefs_refused(2, "fewer than 2"),
		     "zone 0 + read-only zone refused");
	ZONEFS_CHECK(!zonefs_check_geometry(zones, 3, &why),
		     "a read-only zone among usable ones accepted");

	zonefs_layout();
	zones[0].cond = BLK_ZONE_COND_OFFLINE;
	ZONEFS_CHECK(zonefs_refused(16, "zone 0 is offline"),
		     "offline zone 0 refused");

	zonefs_layout();
	zones[15].len = ZS / 2;
	zones[15].capacity = ZS / 2;
	ZONEFS_CHECK(!zonefs_check_geometry(zones, 16, &why),
		     "smaller last zone accepted");
	zones[15].len = ZS * 2;
	ZONEFS_CHECK(zonefs_refused(16, "unequal sizes"),
		     "larger last zone refused");

	zonefs_layout();
	zones[7].len = ZS / 2;
	ZONEFS_CHECK(zonefs_refused(16, "unequal sizes"),
		     "smaller middle zone refused");

	zonefs_layout();
	zones[3].start += 8;
	ZONEFS_CHECK(zonefs_refused(16, "gap"), "gap in the report refused");

	zonefs_layout();
	zones[0].capacity = 4;
	ZONEFS_CHECK(zonefs_refused(16, "too small"),
		     "zone 0 capacity under 4 KiB refused");
}

static void zonefs_test_counts(void)
{
	struct zonefs_stats st;

	zonefs_layout();
	zonefs_count_zones(zones, 16, 0, &st);
	ZONEFS_CHECK(st.st_cnv == 4 && st.st_seq_req == 12 &&
		     st.st_seq_pref == 0, "counts by type");
	ZONEFS_CHECK(st.st_not_wp == 4 && st.st_empty == 12 && !st.st_open &&
		     !st.st_full && !st.st_offline, "counts by condition");
	ZONEFS_CHECK(st.st_cnv_files == 3 && st.st_seq_files == 12,
		     "zone 0 is no file: 3 cnv and 12 seq files");
	ZONEFS_CHECK(st.st_capacity == 15 * ZS, "capacity excludes zone 0");

	zonefs_count_zones(zones, 16, ZONEFS_F_AGGRCNV, &st);
	ZONEFS_CHECK(st.st_cnv_files == 1 && st.st_seq_files == 12,
		     "aggr_cnv joins zones 1-3 into one file");
	ZONEFS_CHECK(zonefs_file_nr_zones(zones, 16, ZONEFS_F_AGGRCNV, 1) == 3,
		     "the joined file spans 3 zones");

	zones[2].cond = BLK_ZONE_COND_READONLY;
	zonefs_count_zones(zones, 16, ZONEFS_F_AGGRCNV, &st);
	ZONEFS_CHECK(st.st_cnv_files == 3 && st.st_readonly == 1,
		     "aggr_cnv stops at a change of condition");

	/* cnv, seq, cnv, cnv, pref, pref...: two runs of conventional. */
	zonefs_zone(zones, 0, CNV, -1);
	zonefs_zone(zones, 1, SWR, BLK_ZONE_COND_FULL);
	zonefs_zone(zones, 2, CNV, -1);
	zonefs_zone(zones, 3, CNV, -1);
	zonefs_zone(zones, 4, SWP, BLK_ZONE_COND_IMP_OPEN);
	zonefs_zone(zones, 5, SWP, BLK_ZONE_COND_CLOSED);
	zonefs_zone(zones, 6, CNV, BLK_ZONE_COND_NOT_WP);
	zonefs_zone(zones, 7, SWR, BLK_ZONE_COND_OFFLINE);
	zonefs_count_zones(zones, 8, ZONEFS_F_AGGRCNV, &st);
	ZONEFS_CHECK(st.st_cnv == 4 && st.st_seq_req == 2 &&
		     st.st_seq_pref == 2, "mixed counts by type");
	ZONEFS_CHECK(st.st_open == 1 && st.st_closed == 1 && st.st_full == 1 &&
		     st.st_offline == 1 && st.st_not_wp == 4,
		     "mixed counts by condition");
	ZONEFS_CHECK(st.st_cnv_files == 2 && st.st_seq_files == 4,
		     "aggr_cnv: runs 2-3 and 6; seq files include offline");

	/* No conventional zone: zone 0 is sequential. */
	for (unsigned int i = 0; i < 4; i++)
		zonefs_zone(zones, i, SWR, -1);
	zonefs_count_zones(zones, 4, ZONEFS_F_AGGRCNV, &st);
	ZONEFS_CHECK(!st.st_cnv_files && st.st_seq_files == 3,
		     "no conventional zones: no cnv files");
}

int main(void)
{
	zonefs_test_geometry();
	zonefs_test_counts();
	return zonefs_test_done();
}
