// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs zone handling: the mount-time zone report that fills the compact
 * per-zone array and the file groups, zone management commands, and the
 * write pointer recovery that follows an I/O error.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/blkdev.h>

#include "zonefs.h"
#include "trace.h"

static unsigned int zonefs_sect_to_blocks(struct super_block *sb,
					  sector_t sectors)
{
	return sectors >> (sb->s_blocksize_bits - SECTOR_SHIFT);
}

static unsigned int zonefs_zone_cap_blocks(struct super_block *sb,
					   unsigned int zidx)
{
	return zonefs_sect_to_blocks(sb, zonefs_zone_cap(ZONEFS_SB(sb), zidx));
}

/*
 * Blocks of a zone that count as used in statfs: all of a conventional
 * zone, all of a zone that cannot be written any more, and the written part
 * of a sequential zone.
 */
static u64 zonefs_zone_used_blocks(struct super_block *sb, unsigned int zidx)
{
	struct zonefs_zone *z = &ZONEFS_SB(sb)->s_zones[zidx];

	if (!zonefs_zone_is_seq(z) ||
	    (z->z_flags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY |
			   ZONEFS_ZONE_RO_MOUNT)))
		return zonefs_zone_cap_blocks(sb, zidx);
	return z->z_wpoff;
}

/**
 * zonefs_zone_update_active() - recount a zone in s_active_seq_files
 * @sb:		super block
 * @zidx:	zone index
 *
 * A sequential zone is active when it is open (explicitly, by this module)
 * or partially written, and it can still be written.
 *
 * Context: the file's i_truncate_mutex held, or mount time.
 */
void zonefs_zone_update_active(struct super_block *sb, unsigned int zidx)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct zonefs_zone *z = &sbi->s_zones[zidx];
	bool active = false;

	if (zonefs_zone_is_seq(z) &&
	    !(z->z_flags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY |
			    ZONEFS_ZONE_RO_MOUNT)))
		active = (z->z_flags & ZONEFS_ZONE_OPEN) ||
			 (z->z_wpoff &&
			  z->z_wpoff < zonefs_zone_cap_blocks(sb, zidx));

	if (active && !(z->z_flags & ZONEFS_ZONE_ACTIVE)) {
		z->z_flags |= ZONEFS_ZONE_ACTIVE;
		atomic_inc(&sbi->s_active_seq_files);
	} else if (!active && (z->z_flags & ZONEFS_ZONE_ACTIVE)) {
		z->z_flags &= ~ZONEFS_ZONE_ACTIVE;
		atomic_dec(&sbi->s_active_seq_files);
	}
}

/**
 * zonefs_zone_set_wpoff() - set the size of a sequential file
 * @inode:	the file's inode
 * @size:	new size, which is the zone's write pointer offset (bytes)
 *
 * Updates i_size, the zone record and the statfs and active counters.
 *
 * Context: the file's i_truncate_mutex held.
 */
void zonefs_zone_set_wpoff(struct inode *inode, loff_t size)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	unsigned int zidx = ZONEFS_I(inode)->i_zidx;
	struct zonefs_zone *z = &sbi->s_zones[zidx];
	u64 used = zonefs_zone_used_blocks(sb, zidx);

	WRITE_ONCE(z->z_wpoff, size >> sb->s_blocksize_bits);
	atomic64_add(zonefs_zone_used_blocks(sb, zidx) - used,
		     &sbi->s_used_blocks);
	i_size_write(inode, size);
	zonefs_zone_update_active(sb, zidx);
}

/* Set zone state bits, keeping the statfs and active counters right. */
static void zonefs_zone_set_flags(struct inode *inode, u8 flags)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	unsigned int zidx = ZONEFS_I(inode)->i_zidx;
	struct zonefs_zone *z = &sbi->s_zones[zidx];
	u64 used = zonefs_zone_used_blocks(sb, zidx);

	z->z_flags |= flags;
	atomic64_add(zonefs_zone_used_blocks(sb, zidx) - used,
		     &sbi->s_used_blocks);
	zonefs_zone_update_active(sb, zidx);
}

static int zonefs_zone_mgmt_idx(struct super_block *sb, unsigned int zidx,
				enum req_op op)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	sector_t start = zonefs_zone_start(sbi, zidx);
	sector_t nr = min_t(sector_t, 1ULL << sbi->s_zone_sectors_shift,
			    bdev_nr_sectors(sb->s_bdev) - start);
	int ret;

	trace_zonefs_zone_mgmt(sb, zidx, op, start, nr);
	ret = blkdev_zone_mgmt(sb->s_bdev, op, start, nr, GFP_NOFS);
	if (ret)
		zonefs_err_ratelimited(sb, "zone %u: %s failed (%d)\n",
				       zidx, blk_op_str(op), ret);
	return ret;
}

/**
 * zonefs_zone_mgmt() - send a zone management command for a file's zone
 * @inode:	the file's inode (one zone: a sequential file)
 * @op:		REQ_OP_ZONE_RESET, _OPEN, _CLOSE or _FINISH
 *
 * Context: process context, the file's i_truncate_mutex held.
 * Return: 0 or -errno.
 */
int zonefs_zone_mgmt(struct inode *inode, enum req_op op)
{
	return zonefs_zone_mgmt_idx(inode->i_sb, ZONEFS_I(inode)->i_zidx, op);
}

static int zonefs_copy_zone_cb(struct blk_zone *zone, unsigned int idx,
			       void *data)
{
	memcpy(data, zone, sizeof(*zone));
	return 0;
}

/*
 * Apply the errors= policy to a file after an error. The caller has already
 * brought the size and the zone condition in line with the device.
 */
static void zonefs_apply_errors_policy(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);

	switch (sbi->s_mount_opts & ZONEFS_MNTOPT_ERRORS_MASK) {
	case ZONEFS_MNTOPT_ERRORS_ZRO:
		/* Only this file stops accepting writes. */
		zonefs_zone_set_flags(inode, ZONEFS_ZONE_READONLY);
		inode->i_mode &= ~0222;
		break;
	case ZONEFS_MNTOPT_ERRORS_ZOL:
		/* This file is treated as if its zone had gone offline. */
		zonefs_zone_set_wpoff(inode, 0);
		zonefs_zone_set_flags(inode, ZONEFS_ZONE_OFFLINE);
		ZONEFS_I(inode)->i_wpoffset = 0;
		inode->i_mode &= ~0777;
		break;
	case ZONEFS_MNTOPT_ERRORS_REPAIR:
		/* The size was fixed from the device's view: go on. */
		break;
	default:
		/* errors=remount-ro: stop every further change. */
		if (!sb_rdonly(sb)) {
			zonefs_warn(sb, "remounting file system read-only\n");
			sb->s_flags |= SB_RDONLY;
		}
		break;
	}
}

/**
 * __zonefs_io_error() - bring a file back in line with its zone
 * @inode:	the file's inode
 * @write:	the error happened on a write (or a zone management command)
 *
 * Asks the device for the file's zone, sets the size and the issued write
 * pointer from what the device reports and applies the zone's condition.
 * Then, if a write failed, the device's view differs from ours or the zone
 * has just gone offline or read-only, applies the errors= policy.
 *
 * Context: process context, the file's i_truncate_mutex held.
 */
void __zonefs_io_error(struct inode *inode, bool write)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	struct super_block *sb = inode->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	unsigned int noio_flag;
	struct blk_zone zone;
	u8 bad = ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY;
	bool was_bad = z->z_flags & bad;
	loff_t wpoff;
	bool mismatch = false;
	int ret;

	/*
	 * The report is done with memory reclaim kept away from I/O: this can
	 * run from the write completion path, and writeback of this very
	 * file system must not be needed to allocate the report buffer.
	 */
	noio_flag = memalloc_noio_save();
	ret = blkdev_report_zones(sb->s_bdev, zonefs_zone_start(sbi, zi->i_zidx),
				  1, zonefs_copy_zone_cb, &zone);
	memalloc_noio_restore(noio_flag);
	if (ret != 1) {
		zonefs_err_ratelimited(sb, "zone %u: report failed (%d)\n",
				       zi->i_zidx, ret);
		/* Nothing is known: keep the file as it is. */
		return;
	}

	z->z_cond = zone.cond;
	switch (zone.cond) {
	case BLK_ZONE_COND_OFFLINE:
		/* Nothing can be read or written any more. */
		zonefs_err_ratelimited(sb, "zone %u: offline\n", zi->i_zidx);
		zonefs_zone_set_wpoff(inode, 0);
		zonefs_zone_set_flags(inode, ZONEFS_ZONE_OFFLINE);
		zi->i_wpoffset = 0;
		inode->i_mode &= ~0777;
		break;
	case BLK_ZONE_COND_READONLY:
		/* What was written stays readable; the size is kept. */
		zonefs_err_ratelimited(sb, "zone %u: read-only\n", zi->i_zidx);
		zonefs_zone_set_flags(inode, ZONEFS_ZONE_READONLY);
		inode->i_mode &= ~0222;
		break;
	default:
		if (!zonefs_zone_is_seq(z))
			break;
		if (zone.cond == BLK_ZONE_COND_FULL)
			wpoff = zi->i_max_size;
		else if (zone.cond == BLK_ZONE_COND_EMPTY)
			wpoff = 0;
		else
			wpoff = (zone.wp - zone.start) << SECTOR_SHIFT;
		if (wpoff > zi->i_max_size)
			wpoff = zi->i_max_size;
		if (wpoff != i_size_read(inode) || wpoff != zi->i_wpoffset) {
			zonefs_warn_ratelimited(sb, "zone %u: size %lld, write pointer %lld, device write pointer %lld\n",
						zi->i_zidx,
						i_size_read(inode),
						zi->i_wpoffset, wpoff);
			mismatch = wpoff != i_size_read(inode);
		}
		/*
		 * The device's write pointer is the truth: what it holds is
		 * readable and the next write must go there.
		 */
		zonefs_zone_set_wpoff(inode, wpoff);
		zi->i_wpoffset = wpoff;
		break;
	}

	if (write || mismatch || (!was_bad && (z->z_flags & bad)))
		zonefs_apply_errors_policy(inode);
}

/**
 * zonefs_io_error() - bring a file back in line with its zone
 * @inode:	the file's inode
 * @write:	the error happened on a write
 *
 * Locked wrapper of __zonefs_io_error().
 *
 * Context: process context, i_truncate_mutex not held.
 */
void zonefs_io_error(struct inode *inode, bool write)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);

	mutex_lock(&zi->i_truncate_mutex);
	__zonefs_io_error(inode, write);
	mutex_unlock(&zi->i_truncate_mutex);
}

static int zonefs_init_zone_cb(struct blk_zone *zone, unsigned int idx,
			       void *data)
{
	struct super_block *sb = data;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct zonefs_zone *z;
	sector_t cap = zone->capacity ? zone->capacity : zone->len;
	sector_t wp;

	if (idx >= sbi->s_nr_zones ||
	    zone->start != zonefs_zone_start(sbi, idx) || cap > U32_MAX ||
	    cap & ((sb->s_blocksize >> SECTOR_SHIFT) - 1)) {
		zonefs_err(sb, "zone %u: unexpected report (start %llu, capacity %llu)\n",
			   idx, zone->start, (u64)cap);
		return -EIO;
	}
	z = &sbi->s_zones[idx];

	if (idx == 0)
		sbi->s_zone_cap = cap;
	if (cap != sbi->s_zone_cap && !sbi->s_zone_caps) {
		unsigned int i;

		sbi->s_zone_caps = kvmalloc_array(sbi->s_nr_zones, sizeof(u32),
						  GFP_KERNEL);
		if (!sbi->s_zone_caps)
			return -ENOMEM;
		for (i = 0; i < idx; i++)
			sbi->s_zone_caps[i] = sbi->s_zone_cap;
	}
	if (sbi->s_zone_caps)
		sbi->s_zone_caps[idx] = cap;

	switch (zone->type) {
	case BLK_ZONE_TYPE_CONVENTIONAL:
		break;
	case BLK_ZONE_TYPE_SEQWRITE_REQ:
	case BLK_ZONE_TYPE_SEQWRITE_PREF:
		z->z_flags |= ZONEFS_ZONE_SEQ;
		break;
	default:
		zonefs_err(sb, "zone %u: unsupported zone type 0x%x\n",
			   idx, zone->type);
		return -EIO;
	}

	z->z_cond = zone->cond;
	switch (zone->cond) {
	case BLK_ZONE_COND_OFFLINE:
		z->z_flags |= ZONEFS_ZONE_OFFLINE;
		z->z_wpoff = 0;
		break;
	case BLK_ZONE_COND_READONLY:
		/* Its write pointer means nothing: size 0, mode 000. */
		z->z_flags |= ZONEFS_ZONE_READONLY | ZONEFS_ZONE_RO_MOUNT;
		z->z_wpoff = 0;
		break;
	case BLK_ZONE_COND_FULL:
		z->z_wpoff = zonefs_sect_to_blocks(sb, cap);
		break;
	case BLK_ZONE_COND_EMPTY:
		z->z_wpoff = zonefs_sect_to_blocks(sb, zonefs_zone_is_seq(z) ?
						   0 : cap);
		break;
	default:
		if (!zonefs_zone_is_seq(z)) {
			z->z_wpoff = zonefs_sect_to_blocks(sb, cap);
			break;
		}
		wp = zone->wp - zone->start;
		z->z_wpoff = zonefs_sect_to_blocks(sb, min(wp, cap));
		break;
	}

	return 0;
}

/*
 * Whether zone @zidx joins the file of zone @zidx - 1: with aggr_cnv,
 * contiguous conventional zones with the same condition make one file.
 * Zone 0 holds the superblock and is never part of a file.
 */
static bool zonefs_zone_joins_prev(struct zonefs_sb_info *sbi,
				   unsigned int zidx, bool aggr)
{
	struct zonefs_zone *z = &sbi->s_zones[zidx];

	return aggr && zidx > 1 && !zonefs_zone_is_seq(z) &&
	       !zonefs_zone_is_seq(z - 1) && z->z_cond == (z - 1)->z_cond;
}

static int zonefs_init_group(struct super_block *sb, enum zonefs_ztype ztype)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct zonefs_zone_group *g = &sbi->s_groups[ztype];
	bool seq = ztype == ZONEFS_ZTYPE_SEQ;
	bool aggr = !seq && (sbi->s_features & ZONEFS_F_AGGRCNV);
	bool linear = true;
	unsigned int i, n = 0;

	/* First pass: count the files, see whether a map is needed. */
	for (i = 1; i < sbi->s_nr_zones; i++) {
		if (zonefs_zone_is_seq(&sbi->s_zones[i]) != seq)
			continue;
		if (zonefs_zone_joins_prev(sbi, i, aggr)) {
			linear = false;
			continue;
		}
		if (!n)
			g->g_first = i;
		else if (i != g->g_first + n)
			linear = false;
		n++;
	}
	g->g_nr_files = n;
	if (linear || !n)
		return 0;

	/* Second pass: record each file's first zone and zone count. */
	g->g_map = kvmalloc_array(n, sizeof(u32), GFP_KERNEL);
	if (!g->g_map)
		return -ENOMEM;
	if (aggr) {
		g->g_nzones = kvmalloc_array(n, sizeof(u32), GFP_KERNEL);
		if (!g->g_nzones)
			return -ENOMEM;
	}
	n = 0;
	for (i = 1; i < sbi->s_nr_zones; i++) {
		if (zonefs_zone_is_seq(&sbi->s_zones[i]) != seq)
			continue;
		if (zonefs_zone_joins_prev(sbi, i, aggr)) {
			g->g_nzones[n - 1]++;
			continue;
		}
		g->g_map[n] = i;
		if (g->g_nzones)
			g->g_nzones[n] = 1;
		n++;
	}

	return 0;
}

/**
 * zonefs_init_zones() - read the zone report and build the file groups
 * @sb:	super block, with s_blocksize set
 *
 * The device's zones are reported once, into the compact per-zone array.
 *
 * Context: mount time.
 * Return: 0 or -errno.
 */
int zonefs_init_zones(struct super_block *sb)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct block_device *bdev = sb->s_bdev;
	sector_t zone_sectors = bdev_zone_sectors(bdev);
	unsigned int i;
	int ret;

	if (!zone_sectors || !is_power_of_2(zone_sectors)) {
		zonefs_err(sb, "invalid zone size %llu\n", (u64)zone_sectors);
		return -EINVAL;
	}
	sbi->s_zone_sectors_shift = ilog2(zone_sectors);
	sbi->s_nr_zones = bdev_nr_zones(bdev);
	if (sbi->s_nr_zones < 2) {
		zonefs_err(sb, "too few zones (%u)\n", sbi->s_nr_zones);
		return -EINVAL;
	}

	sbi->s_zones = kvcalloc(sbi->s_nr_zones, sizeof(struct zonefs_zone),
				GFP_KERNEL);
	if (!sbi->s_zones)
		return -ENOMEM;

	ret = blkdev_report_zones(bdev, 0, BLK_ALL_ZONES, zonefs_init_zone_cb,
				  sb);
	if (ret < 0) {
		zonefs_err(sb, "zone report failed (%d)\n", ret);
		return ret;
	}
	if (ret != sbi->s_nr_zones) {
		zonefs_err(sb, "zone report gave %d zones, expected %u\n",
			   ret, sbi->s_nr_zones);
		return -EIO;
	}

	for (i = ZONEFS_ZTYPE_CNV; i < ZONEFS_ZTYPE_MAX; i++) {
		ret = zonefs_init_group(sb, i);
		if (ret)
			return ret;
	}

	for (i = 1; i < sbi->s_nr_zones; i++) {
		sbi->s_blocks += zonefs_zone_cap_blocks(sb, i);
		atomic64_add(zonefs_zone_used_blocks(sb, i),
			     &sbi->s_used_blocks);
	}

	return 0;
}

/**
 * zonefs_close_open_zones() - close the zones left open, and count actives
 * @sb:	super block
 *
 * Zones left open (explicitly or implicitly) by a previous user are closed,
 * so that they do not hold the device's open zone resources. Nothing is
 * sent on a read-only mount.
 *
 * Context: mount time, after zonefs_init_zones().
 * Return: 0; a zone that fails to close is logged and left as it is.
 */
int zonefs_close_open_zones(struct super_block *sb)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	unsigned int i;

	for (i = 1; i < sbi->s_nr_zones; i++) {
		struct zonefs_zone *z = &sbi->s_zones[i];

		if (zonefs_zone_is_seq(z) && !sb_rdonly(sb) &&
		    (z->z_cond == BLK_ZONE_COND_IMP_OPEN ||
		     z->z_cond == BLK_ZONE_COND_EXP_OPEN) &&
		    !zonefs_zone_mgmt_idx(sb, i, REQ_OP_ZONE_CLOSE))
			z->z_cond = z->z_wpoff ? BLK_ZONE_COND_CLOSED :
						 BLK_ZONE_COND_EMPTY;
		zonefs_zone_update_active(sb, i);
	}

	return 0;
}

/**
 * zonefs_free_zones() - free the zone array and the group maps
 * @sbi:	per mount state, possibly half built
 */
void zonefs_free_zones(struct zonefs_sb_info *sbi)
{
	unsigned int i;

	for (i = 0; i < ZONEFS_ZTYPE_MAX; i++) {
		kvfree(sbi->s_groups[i].g_map);
		kvfree(sbi->s_groups[i].g_nzones);
	}
	kvfree(sbi->s_zone_caps);
	kvfree(sbi->s_zones);
}
