// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of zonefs.ko: what no device of the testbed can show.
 *
 * - The mount-time scan (zonefs_init_zone_cb()) fed with made-up zone
 *   reports: every zone condition, a capacity above the zone's length or
 *   not in whole blocks, a report out of place, an unknown zone type.
 * - The grouping of conventional zones under aggr_cnv
 *   (zonefs_init_group()): only contiguous conventional zones of one
 *   condition and of full capacity make one file.
 * - The errors= policy (zonefs_policy_decide()) for every mode, zone
 *   condition and write pointer below, at and above the size (zonefs(5)
 *   I/O ERRORS).
 *
 * Built as zonefs_test.ko only against a kernel with CONFIG_KUNIT (the
 * testbed's debug kernel); loading it runs the suite and logs KTAP
 * (tests/mount/kunit).
 */
#include <kunit/test.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/mm.h>

#include "zonefs.h"
#include "zonefs_policy_table.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define ZT_ZONE_SECTORS	2048ULL		/* 1 MiB zones */
#define ZT_BLOCK_SECTORS 8		/* 4 KiB blocks */
#define ZT_NR_ZONES	8

/* A mount of @nr zones of 1 MiB with 4 KiB blocks, before the scan. */
static struct super_block *zonefs_test_sb(struct kunit *test, unsigned int nr)
{
	struct super_block *sb;
	struct zonefs_sb_info *sbi;

	sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sb);
	sbi = kunit_kzalloc(test, sizeof(*sbi), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbi);
	/* Freed with what the scan allocates, by zonefs_free_zones(). */
	sbi->s_zones = kvcalloc(nr, sizeof(*sbi->s_zones), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sbi->s_zones);

	strscpy(sb->s_id, "kunit", sizeof(sb->s_id));
	sb->s_blocksize = 4096;
	sb->s_blocksize_bits = 12;
	sb->s_fs_info = sbi;
	sbi->s_nr_zones = nr;
	sbi->s_zone_sectors_shift = ilog2(ZT_ZONE_SECTORS);

	return sb;
}

/* One report entry for zone @idx; @wp_off and @cap in sectors (cap 0: none). */
static int zonefs_test_report(struct super_block *sb, unsigned int idx,
			      u8 type, u8 cond, sector_t wp_off, sector_t cap)
{
	struct blk_zone zone = {
		.start = idx * ZT_ZONE_SECTORS,
		.len = ZT_ZONE_SECTORS,
		.wp = idx * ZT_ZONE_SECTORS + wp_off,
		.type = type,
		.cond = cond,
		.capacity = cap,
	};

	return zonefs_init_zone_cb(&zone, idx, sb);
}

#define CNV	BLK_ZONE_TYPE_CONVENTIONAL
#define SWR	BLK_ZONE_TYPE_SEQWRITE_REQ
#define FULL_BLOCKS	(ZT_ZONE_SECTORS / ZT_BLOCK_SECTORS)

/* Every condition a zone can be reported in, and what the scan makes of it. */
static void zonefs_test_scan_conditions(struct kunit *test)
{
	static const struct {
		u8 type, cond;
		sector_t wp_off;
		u8 flags;
		u32 wpoff;	/* blocks */
	} rows[ZT_NR_ZONES] = {
		{ CNV, BLK_ZONE_COND_NOT_WP, 0, 0, FULL_BLOCKS },
		{ CNV, BLK_ZONE_COND_NOT_WP, 0, 0, FULL_BLOCKS },
		{ SWR, BLK_ZONE_COND_EMPTY, 0, ZONEFS_ZONE_SEQ, 0 },
		{ SWR, BLK_ZONE_COND_IMP_OPEN, 16, ZONEFS_ZONE_SEQ, 2 },
		/* Open or closed with no data: reset at mount, not closed. */
		{ SWR, BLK_ZONE_COND_CLOSED, 0,
		  ZONEFS_ZONE_SEQ | ZONEFS_ZONE_MOUNT_NODATA, 0 },
		{ SWR, BLK_ZONE_COND_FULL, ZT_ZONE_SECTORS, ZONEFS_ZONE_SEQ,
		  FULL_BLOCKS },
		/* Its write pointer means nothing: size 0, mode 000. */
		{ SWR, BLK_ZONE_COND_READONLY, 64, ZONEFS_ZONE_SEQ |
		  ZONEFS_ZONE_READONLY | ZONEFS_ZONE_RO_MOUNT, 0 },
		{ SWR, BLK_ZONE_COND_OFFLINE, 64,
		  ZONEFS_ZONE_SEQ | ZONEFS_ZONE_OFFLINE, 0 },
	};
	struct super_block *sb = zonefs_test_sb(test, ZT_NR_ZONES);
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	unsigned int i;

	for (i = 0; i < ZT_NR_ZONES; i++) {
		KUNIT_EXPECT_EQ_MSG(test, 0,
				    zonefs_test_report(sb, i, rows[i].type,
						       rows[i].cond,
						       rows[i].wp_off, 0),
				    "zone %u", i);
		KUNIT_EXPECT_EQ_MSG(test, rows[i].flags, sbi->s_zones[i].z_flags,
				    "zone %u flags", i);
		KUNIT_EXPECT_EQ_MSG(test, rows[i].wpoff, sbi->s_zones[i].z_wpoff,
				    "zone %u write pointer (blocks)", i);
		KUNIT_EXPECT_EQ_MSG(test, rows[i].cond, sbi->s_zones[i].z_cond,
				    "zone %u condition", i);
	}
	/* No capacity reported: the zone's length; all equal: no array. */
	KUNIT_EXPECT_EQ(test, ZT_ZONE_SECTORS, (u64)sbi->s_zone_cap);
	KUNIT_EXPECT_NULL(test, sbi->s_zone_caps);
	zonefs_free_zones(ZONEFS_SB(sb));
}

/* Reports that must fail the mount, and the errno each gets. */
static void zonefs_test_scan_refusals(struct kunit *test)
{
	struct super_block *sb = zonefs_test_sb(test, ZT_NR_ZONES);
	struct blk_zone zone = {
		.start = 3 * ZT_ZONE_SECTORS,
		.len = ZT_ZONE_SECTORS,
		.wp = 3 * ZT_ZONE_SECTORS,
		.type = SWR,
		.cond = BLK_ZONE_COND_EMPTY,
	};

	/* A capacity above the length would reach into the next zone. */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			zonefs_test_report(sb, 1, SWR, BLK_ZONE_COND_EMPTY, 0,
					   ZT_ZONE_SECTORS + ZT_BLOCK_SECTORS));
	/* A capacity that is not whole blocks. */
	KUNIT_EXPECT_EQ(test, -EIO,
			zonefs_test_report(sb, 1, SWR, BLK_ZONE_COND_EMPTY, 0,
					   ZT_ZONE_SECTORS - 1));
	/* An unknown zone type (ZBC's sequential or before required: 4). */
	KUNIT_EXPECT_EQ(test, -EIO,
			zonefs_test_report(sb, 1, 4, BLK_ZONE_COND_EMPTY, 0, 0));
	/* A zone reported out of place, and one past the last. */
	KUNIT_EXPECT_EQ(test, -EIO, zonefs_init_zone_cb(&zone, 2, sb));
	zone.start = ZT_NR_ZONES * ZT_ZONE_SECTORS;
	KUNIT_EXPECT_EQ(test, -EIO, zonefs_init_zone_cb(&zone, ZT_NR_ZONES, sb));
	zonefs_free_zones(ZONEFS_SB(sb));
}

/* Zones of different capacities: each file has its own. */
static void zonefs_test_scan_capacities(struct kunit *test)
{
	struct super_block *sb = zonefs_test_sb(test, 4);
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);

	KUNIT_ASSERT_EQ(test, 0, zonefs_test_report(sb, 0, CNV,
				BLK_ZONE_COND_NOT_WP, 0, 0));
	KUNIT_ASSERT_EQ(test, 0, zonefs_test_report(sb, 1, SWR,
				BLK_ZONE_COND_EMPTY, 0, 0));
	KUNIT_ASSERT_EQ(test, 0, zonefs_test_report(sb, 2, SWR,
				BLK_ZONE_COND_FULL, 1536, 1536));
	KUNIT_ASSERT_EQ(test, 0, zonefs_test_report(sb, 3, SWR,
				BLK_ZONE_COND_IMP_OPEN, 2048, 1024));
	KUNIT_ASSERT_NOT_NULL(test, sbi->s_zone_caps);
	KUNIT_EXPECT_EQ(test, 2048ULL, (u64)zonefs_zone_cap(sbi, 1));
	KUNIT_EXPECT_EQ(test, 1536ULL, (u64)zonefs_zone_cap(sbi, 2));
	KUNIT_EXPECT_EQ(test, 1024ULL, (u64)zonefs_zone_cap(sbi, 3));
	KUNIT_EXPECT_EQ(test, 1536U / ZT_BLOCK_SECTORS, sbi->s_zones[2].z_wpoff);
	/* A write pointer past the capacity: the size is the capacity. */
	KUNIT_EXPECT_EQ(test, 1024U / ZT_BLOCK_SECTORS, sbi->s_zones[3].z_wpoff);
	zonefs_free_zones(ZONEFS_SB(sb));
}

/*
 * The conventional files that aggr_cnv makes from a layout: @types and
 * @conds per zone (zone 0 is the superblock's), @caps in sectors; the
 * expected files as their first zone and zone count.
 */
struct zonefs_test_layout {
	const char *name;
	bool aggr;
	unsigned int nr;
	u8 seq[ZT_NR_ZONES];
	u8 cond[ZT_NR_ZONES];
	u32 cap[ZT_NR_ZONES];
	unsigned int nfiles;
	u32 first[ZT_NR_ZONES];
	u32 nzones[ZT_NR_ZONES];
};

#define NW	BLK_ZONE_COND_NOT_WP
#define RO	BLK_ZONE_COND_READONLY
#define L	ZT_ZONE_SECTORS

static const struct zonefs_test_layout zonefs_test_layouts[] = {
	{ "three conventional zones make one file", true, 5,
	  { 0, 0, 0, 0, 1 }, { NW, NW, NW, NW, 0 }, { L, L, L, L, L },
	  1, { 1 }, { 3 } },
	{ "a sequential zone between: two files", true, 5,
	  { 0, 0, 1, 0, 1 }, { NW, NW, 0, NW, 0 }, { L, L, L, L, L },
	  2, { 1, 3 }, { 1, 1 } },
	{ "a capacity below the length joins nothing", true, 6,
	  { 0, 0, 0, 0, 0, 1 }, { NW, NW, NW, NW, NW, 0 },
	  { L, L, L / 2, L, L, L },
	  3, { 1, 2, 3 }, { 1, 1, 2 } },
	{ "a read-only zone does not join a writable one", true, 5,
	  { 0, 0, 0, 0, 1 }, { NW, NW, RO, RO, 0 }, { L, L, L, L, L },
	  2, { 1, 2 }, { 1, 2 } },
	{ "without aggr_cnv: a file per zone", false, 5,
	  { 0, 0, 0, 0, 1 }, { NW, NW, NW, NW, 0 }, { L, L, L, L, L },
	  3, { 1, 2, 3 }, { 1, 1, 1 } },
};

static void zonefs_test_aggr_cnv(struct kunit *test)
{
	unsigned int t, i;

	for (t = 0; t < ARRAY_SIZE(zonefs_test_layouts); t++) {
		const struct zonefs_test_layout *l = &zonefs_test_layouts[t];
		struct super_block *sb = zonefs_test_sb(test, l->nr);
		struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
		struct zonefs_zone_group *g = &sbi->s_groups[ZONEFS_ZTYPE_CNV];

		sbi->s_features = l->aggr ? ZONEFS_F_AGGRCNV : 0;
		sbi->s_zone_caps = kvcalloc(l->nr, sizeof(u32), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sbi->s_zone_caps);
		for (i = 0; i < l->nr; i++) {
			sbi->s_zones[i].z_flags = l->seq[i] ? ZONEFS_ZONE_SEQ : 0;
			sbi->s_zones[i].z_cond = l->cond[i];
			sbi->s_zone_caps[i] = l->cap[i];
		}
		KUNIT_EXPECT_EQ_MSG(test, 0, zonefs_init_group(sb, ZONEFS_ZTYPE_CNV),
				    "%s", l->name);
		KUNIT_EXPECT_EQ_MSG(test, l->nfiles, g->g_nr_files, "%s", l->name);
		for (i = 0; i < l->nfiles && i < g->g_nr_files; i++) {
			u32 first = g->g_map ? g->g_map[i] : g->g_first + i;
			u32 nzones = g->g_nzones ? g->g_nzones[i] : 1;

			KUNIT_EXPECT_EQ_MSG(test, l->first[i], first,
					    "%s: file %u's first zone", l->name, i);
			KUNIT_EXPECT_EQ_MSG(test, l->nzones[i], nzones,
					    "%s: file %u's zones", l->name, i);
		}
		zonefs_free_zones(sbi);
	}
}

/*
 * zonefs(5) I/O ERRORS, written out: after an error, the file's size is the
 * device's write pointer if that is below the size; above it, repair
 * takes the write pointer, remount-ro and zone-ro keep the size, and
 * zone-offline (or an offline zone) leaves 0. zone-ro and a read-only
 * zone make the zone read-only, zone-offline and an offline zone make it
 * offline, once; remount-ro makes the file system read-only.
 */
static void zonefs_test_policy(struct kunit *test)
{
	static const enum zonefs_errors modes[] = {
		ZONEFS_ERRORS_RO, ZONEFS_ERRORS_ZONE_RO,
		ZONEFS_ERRORS_ZONE_OFFLINE, ZONEFS_ERRORS_REPAIR,
	};
	static const u8 conds[] = {
		BLK_ZONE_COND_EMPTY, BLK_ZONE_COND_IMP_OPEN,
		BLK_ZONE_COND_EXP_OPEN, BLK_ZONE_COND_CLOSED,
		BLK_ZONE_COND_FULL, BLK_ZONE_COND_READONLY,
		BLK_ZONE_COND_OFFLINE,
	};
	static const u8 flags[] = {
		0, ZONEFS_ZONE_READONLY, ZONEFS_ZONE_OFFLINE,
	};
	static const loff_t dsizes[] = { 0, 4096, 65536, 131072 };
	const loff_t isize = 65536;
	unsigned int i, n = ARRAY_SIZE(modes) * ARRAY_SIZE(conds) *
			    ARRAY_SIZE(flags) * ARRAY_SIZE(dsizes);

	/* Every (mode, condition, flags, write pointer). */
	for (i = 0; i < n; i++) {
		unsigned int k = i;
		loff_t dsize = dsizes[k % ARRAY_SIZE(dsizes)];
		u8 zflags = flags[(k /= ARRAY_SIZE(dsizes)) % ARRAY_SIZE(flags)];
		u8 cond = conds[(k /= ARRAY_SIZE(flags)) % ARRAY_SIZE(conds)];
		enum zonefs_errors mode = modes[k / ARRAY_SIZE(conds)];
		bool offline = cond == BLK_ZONE_COND_OFFLINE ||
			       mode == ZONEFS_ERRORS_ZONE_OFFLINE;
		bool readonly = !offline && (cond == BLK_ZONE_COND_READONLY ||
					     mode == ZONEFS_ERRORS_ZONE_RO);
		struct zonefs_policy p;
		loff_t size;
		u8 take = 0;

		if (offline)
			size = 0;
		else if (dsize < isize)
			size = dsize;
		else if (mode == ZONEFS_ERRORS_REPAIR && !readonly)
			size = dsize;
		else
			size = isize;
		if (offline && !(zflags & ZONEFS_ZONE_OFFLINE))
			take = ZONEFS_ZONE_OFFLINE;
		else if (readonly && !zflags)
			take = ZONEFS_ZONE_READONLY;

		zonefs_policy_decide(mode, cond, zflags, isize, dsize, &p);
		KUNIT_EXPECT_EQ_MSG(test, size, p.size,
				    "mode %d cond %u flags %u size %lld wp %lld: size",
				    mode, cond, zflags, isize, dsize);
		KUNIT_EXPECT_EQ_MSG(test, take, p.take_away,
				    "mode %d cond %u flags %u size %lld wp %lld: take-away",
				    mode, cond, zflags, isize, dsize);
		KUNIT_EXPECT_EQ_MSG(test, mode == ZONEFS_ERRORS_RO, p.remount_ro,
				    "mode %d cond %u flags %u size %lld wp %lld: remount-ro",
				    mode, cond, zflags, isize, dsize);
		/* Nothing this file did not acknowledge, unless repair. */
		if (mode != ZONEFS_ERRORS_REPAIR)
			KUNIT_EXPECT_LE(test, p.size, isize);
		KUNIT_EXPECT_LE(test, p.size, dsize);
	}
}

static void zonefs_test_policy_table(struct kunit *test)
{
	const loff_t isize = 8192;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(zonefs_test_policy_rows); i++) {
		const struct zonefs_test_policy_row *r =
			&zonefs_test_policy_rows[i];
		struct zonefs_policy p;

		zonefs_policy_decide(r->mode, r->cond, r->zflags, isize,
				     r->dsize, &p);
		KUNIT_EXPECT_EQ_MSG(test, r->size, p.size, "row %u: size", i);
		KUNIT_EXPECT_EQ_MSG(test, r->take_away, p.take_away,
				    "row %u: take-away", i);
		KUNIT_EXPECT_EQ_MSG(test, r->remount_ro, p.remount_ro,
				    "row %u: remount-ro", i);
	}
}

static void zonefs_test_device_table(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(zonefs_test_device_rows); i++) {
		const struct zonefs_test_device_row *r =
			&zonefs_test_device_rows[i];

		KUNIT_EXPECT_EQ_MSG(test, r->device,
				    zonefs_error_is_device(r->err, r->seq, 8192,
							   16384, r->dsize),
				    "row %u", i);
	}
}

static struct kunit_case zonefs_test_cases[] = {
	KUNIT_CASE(zonefs_test_scan_conditions),
	KUNIT_CASE(zonefs_test_scan_refusals),
	KUNIT_CASE(zonefs_test_scan_capacities),
	KUNIT_CASE(zonefs_test_aggr_cnv),
	KUNIT_CASE(zonefs_test_policy),
	KUNIT_CASE(zonefs_test_policy_table),
	KUNIT_CASE(zonefs_test_device_table),
	{}
};

static struct kunit_suite zonefs_test_suite = {
	.name = "zonefs",
	.test_cases = zonefs_test_cases,
};

kunit_test_suite(zonefs_test_suite);

MODULE_DESCRIPTION("KUnit suite of zonefs");
MODULE_LICENSE("GPL");
