// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs zone handling: the mount-time zone report that fills the compact
 * per-zone array and the file groups, the zone records and their counters,
 * and the zone management commands (the recovery after an I/O error is in
 * recovery.c).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/file.h>
#include <linux/blkdev.h>
#include <kunit/visibility.h>

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

/* Whether the device counts a zone in this condition as open or active. */
bool zonefs_cond_is_active(u8 cond)
{
	return cond == BLK_ZONE_COND_IMP_OPEN ||
	       cond == BLK_ZONE_COND_EXP_OPEN || cond == BLK_ZONE_COND_CLOSED;
}

/**
 * zonefs_zone_update_active() - recount a zone in s_active_seq_files
 * @sb:		super block
 * @zidx:	zone index
 *
 * A sequential zone is active when it is open (explicitly, by this module)
 * or partially written, and it can still be written: a full zone is
 * neither open nor active. A zone closed with no data in it is active too,
 * as a ZNS device counts it: closing an empty open zone leaves it closed.
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
			    ZONEFS_ZONE_RO_MOUNT)) &&
	    z->z_wpoff < zonefs_zone_cap_blocks(sb, zidx))
		active = (z->z_flags & ZONEFS_ZONE_OPEN) || z->z_wpoff ||
			 zonefs_cond_is_active(z->z_cond);

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
	unsigned int zidx = zonefs_inode_zidx(inode);
	struct zonefs_zone *z = &sbi->s_zones[zidx];
	u64 used = zonefs_zone_used_blocks(sb, zidx);

	WRITE_ONCE(z->z_wpoff, size >> sb->s_blocksize_bits);
	if (size >= zonefs_inode_max_size(inode)) {
		/* The device closed the zone when it filled up. */
		zonefs_zone_clear_open(sb, z);
		z->z_cond = BLK_ZONE_COND_FULL;
	}
	atomic64_add(zonefs_zone_used_blocks(sb, zidx) - used,
		     &sbi->s_used_blocks);
	i_size_write(inode, size);
	zonefs_zone_update_active(sb, zidx);
}

/* Set zone state bits, keeping the statfs and active counters right. */
void zonefs_zone_set_flags(struct inode *inode, u8 flags)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	unsigned int zidx = zonefs_inode_zidx(inode);
	struct zonefs_zone *z = &sbi->s_zones[zidx];
	u64 used = zonefs_zone_used_blocks(sb, zidx);

	z->z_flags |= flags;
	atomic64_add(zonefs_zone_used_blocks(sb, zidx) - used,
		     &sbi->s_used_blocks);
	zonefs_zone_update_active(sb, zidx);
}

/**
 * zonefs_zone_clear_open() - the zone is no longer held open by this module
 * @sb:	super block
 * @z:	the zone's record
 *
 * A zone held open for no writer is one whose CLOSE failed at the last
 * close of its file (zonefs_seq_file_write_close()): it stays counted in
 * s_wro_seq_files, as the device still counts it open, until here.
 *
 * Context: the file's i_truncate_mutex held, or mount and remount time.
 */
void zonefs_zone_clear_open(struct super_block *sb, struct zonefs_zone *z)
{
	if (!(z->z_flags & ZONEFS_ZONE_OPEN))
		return;
	z->z_flags &= ~ZONEFS_ZONE_OPEN;
	if (!z->z_wr_refcnt)
		atomic_dec(&ZONEFS_SB(sb)->s_wro_seq_files);
}

int zonefs_zone_mgmt_idx(struct super_block *sb, unsigned int zidx,
				enum req_op op)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	sector_t start = zonefs_zone_start(sbi, zidx);
	sector_t nr = min_t(sector_t, 1ULL << sbi->s_zone_sectors_shift,
			    bdev_nr_sectors(sb->s_bdev) - start);
	int ret;

	/*
	 * The block layer refuses zone commands to a block device made
	 * read-only (blockdev --setro) with EPERM: nothing was sent, and
	 * for the caller that is a read-only device, not a failing one.
	 */
	if (bdev_read_only(sb->s_bdev))
		return -EROFS;

	trace_zonefs_zone_mgmt(sb, zidx, op, start, nr);
	ret = blkdev_zone_mgmt(sb->s_bdev, op, start, nr, GFP_NOFS);
	/* A refusal for want of zone resources is the caller's errno. */
	if (ret && !zonefs_error_is_resource(ret))
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
	return zonefs_zone_mgmt_idx(inode->i_sb, zonefs_inode_zidx(inode), op);
}

static int zonefs_copy_zone_cb(struct blk_zone *zone, unsigned int idx,
			       void *data)
{
	memcpy(data, zone, sizeof(*zone));
	return 0;
}

/*
 * Report the first zone of a file. The caller says what a failure means.
 * Return: 0 or -errno.
 */
int zonefs_report_zone(struct inode *inode, struct blk_zone *zone)
{
	struct super_block *sb = inode->i_sb;
	unsigned int zidx = zonefs_inode_zidx(inode);
	unsigned int noio_flag;
	int ret;

	/*
	 * Memory reclaim must not wait for writeback of this very file
	 * system while the report buffer is allocated.
	 */
	noio_flag = memalloc_noio_save();
	ret = blkdev_report_zones(sb->s_bdev,
				  zonefs_zone_start(ZONEFS_SB(sb), zidx), 1,
				  zonefs_copy_zone_cb, zone);
	memalloc_noio_restore(noio_flag);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;

	/*
	 * A write pointer outside its zone (an open or closed zone whose
	 * write pointer is below its start or past its capacity) is no
	 * answer: the device contradicts itself, as a failed report does.
	 */
	if ((zone->cond == BLK_ZONE_COND_IMP_OPEN ||
	     zone->cond == BLK_ZONE_COND_EXP_OPEN ||
	     zone->cond == BLK_ZONE_COND_CLOSED) &&
	    (zone->wp < zone->start ||
	     zone->wp > zone->start + (zone->capacity ? zone->capacity : zone->len))) {
		zonefs_err_ratelimited(sb, "zone %u: write pointer %llu outside the zone\n",
				       zidx, (unsigned long long)zone->wp);
		return -EIO;
	}
	return 0;
}

/*
 * A failed zonefs_report_zone() whose caller goes on without the zone's
 * state, changing nothing: said once, rate limited.
 */
void zonefs_report_failed(struct inode *inode, int error)
{
	zonefs_err_ratelimited(inode->i_sb, "zone %u: report failed (%d)\n",
			       zonefs_inode_zidx(inode), error);
}

/**
 * zonefs_zone_open_explicit() - open a file's zone for its writers
 * @inode:	the file's inode, a sequential file
 *
 * Sends OPEN ZONE; on success the zone is flagged as held open by this
 * module. The caller recounts the zone as active.
 *
 * Context: the file's i_truncate_mutex held.
 * Return: 0 or -errno (the device refused: the zone is as it was).
 */
int zonefs_zone_open_explicit(struct inode *inode)
{
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	int ret;

	ret = zonefs_zone_mgmt(inode, REQ_OP_ZONE_OPEN);
	if (ret)
		return ret;
	z->z_flags |= ZONEFS_ZONE_OPEN;
	z->z_cond = BLK_ZONE_COND_EXP_OPEN;
	return 0;
}

/**
 * zonefs_zone_close_explicit() - give back a file's explicit zone open
 * @inode:	a sequential file whose zone this module opened explicitly
 *
 * Sent at the last close of the file for write. CLOSE keeps the data and
 * is sent even on a read-only file system. If it fails, the zone is looked
 * at: a zone that went bad was taken away, and one that is still held
 * open keeps its flag and its count, and makes the file system read-only,
 * as mainline does: zones left open would soon leave none to write.
 *
 * A file of size 0 is then asked for: ZBC empties a closed zone with no
 * data, ZNS keeps it closed and active. A reset gives the active slot
 * back, but only where the device's report shows no data (a writer behind
 * the file system's back may have put some there), and never on a
 * read-only file system.
 *
 * Context: inode->i_rwsem held exclusive and the file's i_truncate_mutex
 * held (zonefs_zone_resync()).
 */
void zonefs_zone_close_explicit(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	struct blk_zone zone;
	int ret;

	if (zonefs_zone_mgmt(inode, REQ_OP_ZONE_CLOSE)) {
		zonefs_zone_resync(inode, ZONEFS_ERR_NO_WRITE);
		if (z->z_flags & ZONEFS_ZONE_OPEN)
			zonefs_remount_ro(sb, "cannot close it",
					  zonefs_inode_zidx(inode));
		return;
	}

	zonefs_zone_clear_open(sb, z);
	z->z_cond = BLK_ZONE_COND_CLOSED;
	if (i_size_read(inode))
		return;
	ret = zonefs_report_zone(inode, &zone);
	if (ret) {
		zonefs_report_failed(inode, ret);
		return;
	}

	z->z_cond = zone.cond;
	if (zone.cond == BLK_ZONE_COND_CLOSED && zone.wp == zone.start) {
		if (!sb_rdonly(sb) && !zonefs_zone_mgmt(inode, REQ_OP_ZONE_RESET))
			z->z_cond = BLK_ZONE_COND_EMPTY;
	} else if (zone.cond != BLK_ZONE_COND_EMPTY) {
		/* Data or a condition that the file does not know of. */
		zonefs_zone_resync(inode, ZONEFS_ERR_NO_WRITE);
	}
}

VISIBLE_IF_KUNIT int zonefs_init_zone_cb(struct blk_zone *zone, unsigned int idx,
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
	/* A file must never reach into the next zone. */
	if (cap > zone->len) {
		zonefs_err(sb, "zone %u: capacity %llu larger than its length %llu\n",
			   idx, (u64)cap, zone->len);
		return -EINVAL;
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
		if (!wp)
			z->z_flags |= ZONEFS_ZONE_MOUNT_NODATA;
		break;
	}

	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(zonefs_init_zone_cb);

/*
 * Whether zone @zidx joins the file of zone @zidx - 1: with aggr_cnv,
 * contiguous conventional zones with the same condition make one file.
 * A zone whose capacity is below its length (a ZBC-2 disk with gap zones)
 * joins nothing, so that a file's offsets never land outside a capacity.
 * Zone 0 holds the superblock and is never part of a file.
 */
static bool zonefs_zone_joins_prev(struct zonefs_sb_info *sbi,
				   unsigned int zidx, bool aggr)
{
	struct zonefs_zone *z = &sbi->s_zones[zidx];
	sector_t len = 1ULL << sbi->s_zone_sectors_shift;

	return aggr && zidx > 1 && !zonefs_zone_is_seq(z) &&
	       !zonefs_zone_is_seq(z - 1) && z->z_cond == (z - 1)->z_cond &&
	       zonefs_zone_cap(sbi, zidx) == len &&
	       zonefs_zone_cap(sbi, zidx - 1) == len;
}

VISIBLE_IF_KUNIT int zonefs_init_group(struct super_block *sb,
				   enum zonefs_ztype ztype)
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
EXPORT_SYMBOL_IF_KUNIT(zonefs_init_group);

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
	sbi->s_recovery = kvcalloc(BITS_TO_LONGS((size_t)sbi->s_nr_zones *
						 ZONEFS_RECOVERY_NR_BITS),
				   sizeof(unsigned long), GFP_KERNEL);
	sbi->s_recovery_map = kvcalloc(BITS_TO_LONGS(sbi->s_nr_zones),
				       sizeof(unsigned long), GFP_KERNEL);
	if (!sbi->s_zones || !sbi->s_recovery || !sbi->s_recovery_map)
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

/*
 * A zone record changes under its file's i_truncate_mutex (the write and
 * close paths), and at mount and remount time: there, the files still
 * open (writers from before a remount read-only by errors=, readers, a
 * queued recovery) may change it too, so a zone whose file has an inode is
 * changed under that inode's mutex. A zone without an inode has no file
 * open and no I/O.
 */
static struct inode *zonefs_zone_lock(struct super_block *sb, unsigned int zidx)
{
	struct inode *inode;

	/* At mount time (the super block is not active yet), no file is. */
	if (!(sb->s_flags & SB_ACTIVE))
		return NULL;
	inode = ilookup(sb, zidx);
	if (inode)
		mutex_lock(&ZONEFS_I(inode)->i_truncate_mutex);
	return inode;
}

static void zonefs_zone_unlock(struct inode *inode)
{
	if (!inode)
		return;
	mutex_unlock(&ZONEFS_I(inode)->i_truncate_mutex);
	iput(inode);
}

/**
 * zonefs_close_open_zones() - give back the zone slots left held, and count
 * actives
 * @sb:		super block
 * @send:	send the commands: a read-write mount, or a remount to
 *		read-write (the super block is still read-only then)
 *
 * Zones left open (explicitly or implicitly) by a previous user, or by
 * this module when a close failed, are closed, so that they do not hold
 * the device's open zone resources. A zone left open or closed with no
 * data in it is reset instead: closing it would leave it closed, and
 * active, on a ZNS device, and a reset loses nothing. A zone that this
 * module holds open for a file's writers (they stayed across a remount
 * read-only by errors=) is left to them. Without @send, the zones are only
 * counted, as the device counts them.
 *
 * A zone that fails to close or reset is logged and left as it is.
 *
 * Context: mount time, after zonefs_init_zones(); or remount,rw, after
 * zonefs_rescan_open_zones().
 */
void zonefs_close_open_zones(struct super_block *sb, bool send)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	unsigned int i;

	for (i = 1; i < sbi->s_nr_zones; i++) {
		struct zonefs_zone *z = &sbi->s_zones[i];
		struct inode *inode = zonefs_zone_lock(sb, i);
		bool nodata = z->z_flags & ZONEFS_ZONE_MOUNT_NODATA;

		z->z_flags &= ~ZONEFS_ZONE_MOUNT_NODATA;
		if (!zonefs_zone_is_seq(z) || !send ||
		    ((z->z_flags & ZONEFS_ZONE_OPEN) && z->z_wr_refcnt)) {
			/* Nothing to send. */
		} else if (nodata) {
			if (!zonefs_zone_mgmt_idx(sb, i, REQ_OP_ZONE_RESET)) {
				z->z_cond = BLK_ZONE_COND_EMPTY;
				zonefs_zone_clear_open(sb, z);
			}
		} else if ((z->z_cond == BLK_ZONE_COND_IMP_OPEN ||
			    z->z_cond == BLK_ZONE_COND_EXP_OPEN) &&
			   !zonefs_zone_mgmt_idx(sb, i, REQ_OP_ZONE_CLOSE)) {
			z->z_cond = BLK_ZONE_COND_CLOSED;
			zonefs_zone_clear_open(sb, z);
		}
		zonefs_zone_update_active(sb, i);
		zonefs_zone_unlock(inode);
	}
}

/* What zonefs_rescan_zone_cb() found of one zone. */
static void zonefs_rescan_zone(struct super_block *sb, struct zonefs_zone *z,
			       struct blk_zone *zone)
{
	if (zonefs_cond_is_active(zone->cond)) {
		z->z_cond = zone->cond;
		if (zone->wp == zone->start && !z->z_wpoff)
			z->z_flags |= ZONEFS_ZONE_MOUNT_NODATA;
	} else if (zone->cond == BLK_ZONE_COND_EMPTY && !z->z_wpoff) {
		/* Reset behind the mount: no longer open or active. */
		z->z_cond = zone->cond;
		zonefs_zone_clear_open(sb, z);
	}
}

/*
 * The condition of each sequential zone that is open or closed on the
 * device, for zonefs_close_open_zones() at remount,rw: the device may
 * have opened zones while the file system was read-only, and a read-only
 * mount sent nothing for those it found.
 */
static int zonefs_rescan_zone_cb(struct blk_zone *zone, unsigned int idx,
				 void *data)
{
	struct super_block *sb = data;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct inode *inode;
	struct zonefs_zone *z;

	if (idx >= sbi->s_nr_zones || zone->start != zonefs_zone_start(sbi, idx))
		return -EIO;
	z = &sbi->s_zones[idx];
	if (!zonefs_zone_is_seq(z))
		return 0;
	inode = zonefs_zone_lock(sb, idx);
	if (!(z->z_flags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY |
			    ZONEFS_ZONE_RO_MOUNT)) &&
	    !((z->z_flags & ZONEFS_ZONE_OPEN) && z->z_wr_refcnt))
		zonefs_rescan_zone(sb, z, zone);
	zonefs_zone_unlock(inode);
	return 0;
}

/**
 * zonefs_rescan_open_zones() - read the zone conditions again at remount,rw
 * @sb:	super block, still read-only
 *
 * Context: reconfiguration, s_umount held: the file system stays read-only
 * until it returns, so no write, truncation or open for write changes a
 * zone record meanwhile; the files still open may (zonefs_zone_lock()).
 * Return: 0 or -errno (the device could not report its zones: the remount
 * fails).
 */
int zonefs_rescan_open_zones(struct super_block *sb)
{
	unsigned int noio_flag;
	int ret;

	noio_flag = memalloc_noio_save();
	ret = blkdev_report_zones(sb->s_bdev, 0, BLK_ALL_ZONES,
				  zonefs_rescan_zone_cb, sb);
	memalloc_noio_restore(noio_flag);
	if (ret < 0) {
		zonefs_err(sb, "zone report failed (%d)\n", ret);
		return ret;
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
	kvfree(sbi->s_recovery_map);
	kvfree(sbi->s_recovery);
	kvfree(sbi->s_zones);
}
EXPORT_SYMBOL_IF_KUNIT(zonefs_free_zones);
