// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs zone handling: the mount-time zone report that fills the compact
 * per-zone array and the file groups, zone management commands, and the
 * write pointer recovery that follows an I/O error.
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
		z->z_flags &= ~ZONEFS_ZONE_OPEN;
		z->z_cond = BLK_ZONE_COND_FULL;
	}
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
	unsigned int zidx = zonefs_inode_zidx(inode);
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

/* Report the first zone of a file. Return: 0 or -errno. */
static int zonefs_report_zone(struct inode *inode, struct blk_zone *zone)
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
	if (ret == 1)
		return 0;

	zonefs_err_ratelimited(sb, "zone %u: report failed (%d)\n", zidx, ret);
	return ret < 0 ? ret : -EIO;
}

/*
 * Take a zone away from writers (offline or read-only, by the device or by
 * the errors= policy). A zone the device still holds open or active gives
 * its slots back, since nothing will write it again in this mount and the
 * device frees nothing by itself while the zone is still good. On a device
 * with an active zone limit (ZNS) a closed zone still holds an active
 * slot, so the zone is finished: FINISH keeps its data readable and frees
 * both slots (the next mount sees it full). Without an active limit (ZBC),
 * or on a read-only mount, which sends no FINISH, an open zone is closed.
 *
 * Context: as zonefs_zone_resync(); i_mode changes under inode->i_rwsem.
 */
static void zonefs_zone_take_away(struct inode *inode, u8 flag, u8 dev_cond)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_zone *z = zonefs_inode_zone(inode);

	if (zonefs_cond_is_active(dev_cond) &&
	    ZONEFS_SB(sb)->s_max_active_seq_files && !sb_rdonly(sb)) {
		if (!zonefs_zone_mgmt(inode, REQ_OP_ZONE_FINISH))
			z->z_cond = BLK_ZONE_COND_FULL;
	} else if ((dev_cond == BLK_ZONE_COND_EXP_OPEN ||
		    dev_cond == BLK_ZONE_COND_IMP_OPEN) &&
		   !zonefs_zone_mgmt(inode, REQ_OP_ZONE_CLOSE)) {
		z->z_cond = BLK_ZONE_COND_CLOSED;
	}
	z->z_flags &= ~ZONEFS_ZONE_OPEN;

	zonefs_zone_set_flags(inode, flag);
	if (flag & ZONEFS_ZONE_OFFLINE)
		inode->i_mode &= ~0777;
	else
		inode->i_mode &= ~0222;
}

/*
 * The amount of data the device holds for a file, from its zone report:
 * the write pointer of a sequential zone (the capacity once it is full),
 * the capacity of a conventional file.
 */
static loff_t zonefs_report_data_size(struct inode *inode,
				      struct blk_zone *zone)
{
	loff_t wp;

	if (!zonefs_inode_is_seq(inode))
		return zonefs_inode_max_size(inode);

	switch (zone->cond) {
	case BLK_ZONE_COND_OFFLINE:
	case BLK_ZONE_COND_EMPTY:
		return 0;
	case BLK_ZONE_COND_FULL:
		return zonefs_inode_max_size(inode);
	case BLK_ZONE_COND_READONLY:
		/* No write pointer: what was written stays readable. */
		return i_size_read(inode);
	default:
		wp = (loff_t)(zone->wp - zone->start) << SECTOR_SHIFT;
		return min(wp, zonefs_inode_max_size(inode));
	}
}

/*
 * Whether the device's report shows a zone that went bad since the file
 * last looked: offline, or read-only while the file is still writable.
 */
static bool zonefs_zone_went_bad(struct inode *inode, struct blk_zone *zone)
{
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	unsigned int zidx = zonefs_inode_zidx(inode);

	if (zone->cond == BLK_ZONE_COND_OFFLINE &&
	    !(z->z_flags & ZONEFS_ZONE_OFFLINE)) {
		zonefs_err_ratelimited(inode->i_sb, "zone %u: offline\n", zidx);
		return true;
	}
	if (zone->cond == BLK_ZONE_COND_READONLY &&
	    !(z->z_flags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY))) {
		zonefs_err_ratelimited(inode->i_sb, "zone %u: read-only\n", zidx);
		return true;
	}
	return false;
}

/*
 * Whether an error of kind @err, with the zone still good, is the device
 * failing, so that the errors= policy applies. The file has @isize bytes
 * and has issued writes up to @issued; the device holds @dsize bytes of
 * the file's zone. The other cases change nothing, or only the size:
 *
 * - ZONEFS_ERR_NONE: nothing failed, the report was only looked at;
 * - ZONEFS_ERR_NO_WRITE: a read or a zone close failed, which changes
 *   nothing while the device's data size is the file's size;
 * - ZONEFS_ERR_LOCAL: a write failed that the device did not (a user
 *   fault, a resource refusal) after part of it was sent: data between the
 *   size and the write pointer as issued is this file's own, and is kept
 *   (zonefs_zone_resync()).
 */
static bool zonefs_error_is_device(enum zonefs_error err, bool seq,
				   loff_t isize, loff_t issued, loff_t dsize)
{
	switch (err) {
	case ZONEFS_ERR_NONE:
		return false;
	case ZONEFS_ERR_NO_WRITE:
		return seq && dsize != isize;
	case ZONEFS_ERR_LOCAL:
		return seq && (dsize < isize || dsize > issued);
	case ZONEFS_ERR_DEVICE:
	default:
		return true;
	}
}

/**
 * zonefs_policy_decide() - what an error does to a file (SPEC section 5)
 * @mode:	the mount's errors= mode
 * @cond:	the zone's condition in the device's report
 * @zflags:	the zone's ZONEFS_ZONE_* flags
 * @isize:	the file's size
 * @dsize:	the data the device holds for the file (its write pointer)
 * @p:		the decision
 *
 * The errors= policy of the mount, or the zone's own bad condition: the
 * zone is taken away (offline or read-only) if it comes to that and was
 * not already, and the file system becomes read-only under
 * errors=remount-ro. A write pointer below the size always lowers the
 * size. Above it, errors=repair takes the write pointer, remount-ro and
 * zone-ro keep the size, so that nothing the file did not acknowledge is
 * exposed, and an offline zone (or zone-offline) leaves nothing.
 */
VISIBLE_IF_KUNIT void zonefs_policy_decide(enum zonefs_errors mode, u8 cond,
					   unsigned int zflags, loff_t isize,
					   loff_t dsize, struct zonefs_policy *p)
{
	p->take_away = 0;
	p->size = dsize;
	p->remount_ro = mode == ZONEFS_ERRORS_RO;

	if (cond == BLK_ZONE_COND_OFFLINE || mode == ZONEFS_ERRORS_ZONE_OFFLINE) {
		if (!(zflags & ZONEFS_ZONE_OFFLINE))
			p->take_away = ZONEFS_ZONE_OFFLINE;
		p->size = 0;
	} else if (cond == BLK_ZONE_COND_READONLY ||
		   mode == ZONEFS_ERRORS_ZONE_RO) {
		if (!(zflags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY)))
			p->take_away = ZONEFS_ZONE_READONLY;
		p->size = min(dsize, isize);
	} else if (mode != ZONEFS_ERRORS_REPAIR) {
		p->size = min(dsize, isize);
	}
}
EXPORT_SYMBOL_IF_KUNIT(zonefs_policy_decide);

/*
 * Apply the decision of zonefs_policy_decide() to @inode, of @isize bytes,
 * whose zone the device reports as @zone with @dsize bytes of data, and
 * return the size the file keeps.
 */
static loff_t zonefs_apply_policy(struct inode *inode, struct blk_zone *zone,
				  loff_t isize, loff_t dsize)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	struct zonefs_policy p;

	if (zonefs_zone_is_seq(z) && dsize != isize)
		zonefs_warn_ratelimited(sb, "zone %u: size %lld, device write pointer %lld\n",
					zonefs_inode_zidx(inode), isize, dsize);

	zonefs_policy_decide(READ_ONCE(ZONEFS_SB(sb)->s_errors), zone->cond,
			     z->z_flags, isize, dsize, &p);
	/* Before a take-away, which may close or finish the zone. */
	z->z_cond = zone->cond;
	if (p.take_away)
		zonefs_zone_take_away(inode, p.take_away, zone->cond);
	if (p.remount_ro && !sb_rdonly(sb)) {
		zonefs_warn(sb, "remounting file system read-only\n");
		sb->s_flags |= SB_RDONLY;
	}

	return p.size;
}

/*
 * Give @inode the size @size: a sequential file's write pointer, as the
 * zone record and as issued, follows it.
 */
static void zonefs_file_take_size(struct inode *inode, loff_t size)
{
	if (zonefs_inode_is_seq(inode)) {
		zonefs_zone_set_wpoff(inode, size);
		ZONEFS_I(inode)->i_wpoffset = size;
	} else {
		i_size_write(inode, size);
	}
}

/*
 * With explicit-open, the writers of a file hold its zone open: once the
 * zone is no longer open (zonefs_zone_resync()), open it again for those
 * still there, as after a reset, unless the zone or the file system
 * cannot be written. Else their writes would open it implicitly, and it
 * would stay open past the last close, where no count of this module
 * sees it. A refusal leaves it so: the next write finds out.
 */
static void zonefs_zone_reopen(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_zone *z = zonefs_inode_zone(inode);

	if (z->z_wr_refcnt && !sb_rdonly(sb) &&
	    (READ_ONCE(ZONEFS_SB(sb)->s_mount_opts) &
	     ZONEFS_MNTOPT_EXPLICIT_OPEN) &&
	    !(z->z_flags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY |
			    ZONEFS_ZONE_RO_MOUNT | ZONEFS_ZONE_OPEN)) &&
	    i_size_read(inode) < zonefs_inode_max_size(inode))
		zonefs_zone_open_explicit(inode);
	zonefs_zone_update_active(sb, zonefs_inode_zidx(inode));
}

/**
 * zonefs_zone_resync() - bring a file back in line with its zone
 * @inode:	the file's inode
 * @err:	what went wrong (enum zonefs_error)
 *
 * Asks the device for the file's zone. If the zone went bad, or the error
 * is the device failing (zonefs_error_is_device()), the errors= policy
 * applies (zonefs_apply_policy()) and the file takes the size it leaves:
 * a sequential file its write pointer too, a conventional file keeps its
 * size unless it went offline. After a local failure, a sequential file
 * takes what its own writes put in the zone.
 *
 * Context: process context, inode->i_rwsem held exclusive (a take-away
 * changes i_mode, as chmod does under that lock) and the file's
 * i_truncate_mutex held, no write in flight on the file.
 */
void zonefs_zone_resync(struct inode *inode, enum zonefs_error err)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	bool seq = zonefs_inode_is_seq(inode);
	loff_t isize, dsize, reported;
	struct blk_zone zone;
	bool lost_open;

	lockdep_assert_held_write(&inode->i_rwsem);
	lockdep_assert_held(&zi->i_truncate_mutex);

	if (zonefs_report_zone(inode, &zone))
		return;	/* Nothing is known: keep the file as it is. */

	/*
	 * A zone held open that the device no longer shows explicitly open
	 * was reset, closed or finished behind the mount: it is not held
	 * any more, and a last close must not send a CLOSE, which a device
	 * may refuse for an empty zone (ZNS, null_blk).
	 */
	lost_open = (z->z_flags & ZONEFS_ZONE_OPEN) &&
		    zone.cond != BLK_ZONE_COND_EXP_OPEN;
	if (lost_open)
		z->z_flags &= ~ZONEFS_ZONE_OPEN;

	isize = i_size_read(inode);
	dsize = zonefs_report_data_size(inode, &zone);
	reported = dsize;
	if (zonefs_zone_went_bad(inode, &zone) ||
	    zonefs_error_is_device(err, seq, isize, zi->i_wpoffset, dsize))
		dsize = zonefs_apply_policy(inode, &zone, isize, dsize);
	else if (err != ZONEFS_ERR_LOCAL || !seq)
		goto reopen;
	/* Else what a write sent before it failed locally is its own. */

	zonefs_file_take_size(inode, dsize);
	/*
	 * The zone changed behind the page cache: after a reset and writes
	 * from outside, even the data below both sizes may not be what was
	 * cached. The caller drops it all once it has let go of the mutex
	 * (zonefs_drop_stale_cache()); errors are rare.
	 */
	if (dsize != isize)
		zonefs_recovery_set(inode, ZONEFS_RECOVERY_STALE_CACHE);
	if (seq && reported > dsize)
		z->z_flags |= ZONEFS_ZONE_FOREIGN;
	else
		z->z_flags &= ~ZONEFS_ZONE_FOREIGN;

reopen:
	if (lost_open)
		zonefs_zone_reopen(inode);
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
 * Return: false if the zone is still held open.
 */
bool zonefs_zone_close_explicit(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	struct blk_zone zone;

	if (zonefs_zone_mgmt(inode, REQ_OP_ZONE_CLOSE)) {
		zonefs_zone_resync(inode, ZONEFS_ERR_NO_WRITE);
		if (!(z->z_flags & ZONEFS_ZONE_OPEN))
			return true;
		if (!sb_rdonly(sb)) {
			zonefs_warn(sb, "zone %u: cannot close it: remounting file system read-only\n",
				    zonefs_inode_zidx(inode));
			sb->s_flags |= SB_RDONLY;
		}
		return false;
	}

	z->z_flags &= ~ZONEFS_ZONE_OPEN;
	z->z_cond = BLK_ZONE_COND_CLOSED;
	if (i_size_read(inode) || zonefs_report_zone(inode, &zone))
		return true;

	z->z_cond = zone.cond;
	if (zone.cond == BLK_ZONE_COND_CLOSED && zone.wp == zone.start) {
		if (!sb_rdonly(sb) && !zonefs_zone_mgmt(inode, REQ_OP_ZONE_RESET))
			z->z_cond = BLK_ZONE_COND_EMPTY;
	} else if (zone.cond != BLK_ZONE_COND_EMPTY) {
		/* Data or a condition that the file does not know of. */
		zonefs_zone_resync(inode, ZONEFS_ERR_NO_WRITE);
	}

	return true;
}

static struct workqueue_struct *zonefs_recovery_wq;

/**
 * zonefs_note_error() - record that an I/O failed
 * @inode:	the file of the failed I/O
 * @err:	ZONEFS_ERR_DEVICE (a write or flush the device failed),
 *		ZONEFS_ERR_NO_WRITE (a read the device failed) or ZONEFS_ERR_LOCAL
 *		(a write that failed after part of it was sent)
 * @issuer:	the caller's issuer recovers when the I/O returns (a
 *		synchronous direct I/O, with inode->i_rwsem held); else the
 *		recovery is queued on the mount's work, holding a reference
 *		on @inode (not on a file, so that close and umount are never
 *		delayed by it) until it has run
 *
 * The recovery waits until no I/O is in flight on the file: a write still
 * in flight moves the device's write pointer, and recovering before it
 * completes would put the file's write pointer behind it.
 *
 * Context: any, including interrupt context (read completion).
 */
void zonefs_note_error(struct inode *inode, enum zonefs_error err, bool issuer)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(inode->i_sb);

	switch (err) {
	case ZONEFS_ERR_DEVICE:
		zonefs_recovery_set(inode, ZONEFS_RECOVERY_DEVICE);
		break;
	case ZONEFS_ERR_NO_WRITE:
		zonefs_recovery_set(inode, ZONEFS_RECOVERY_NO_WRITE);
		break;
	default:
		zonefs_recovery_set(inode, ZONEFS_RECOVERY_LOCAL);
		break;
	}
	zonefs_recovery_set(inode, ZONEFS_RECOVERY_PENDING);
	if (issuer ||
	    test_and_set_bit(zonefs_inode_zidx(inode), sbi->s_recovery_map))
		return;

	ihold(inode);
	queue_work(zonefs_recovery_wq, &sbi->s_recovery_work);
}

/**
 * zonefs_recover() - bring a file back in line with its zone after errors
 * @inode:	the file's inode
 * @err:	the error seen by the caller, or ZONEFS_ERR_NONE; the errors
 *		recorded by zonefs_note_error() since the last recovery are
 *		folded in, the device's first
 *
 * The one recovery of every path: synchronous I/O and truncation call it,
 * the work queue runs it for what completed asynchronously. With
 * ZONEFS_ERR_NONE and nothing recorded, there is nothing to do. Every
 * recovery of a sequential file ends with its issued write pointer at its
 * size: with no I/O in flight, a reservation that a failed write left is
 * given back, whoever failed.
 *
 * Context: process context, inode->i_rwsem held exclusive, so that no new
 * I/O starts; the I/O in flight is waited for here.
 */
void zonefs_recover(struct inode *inode, enum zonefs_error err)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	bool device, local, no_write;

	if (err == ZONEFS_ERR_NONE && !zonefs_recovery_pending(inode))
		return;

	inode_dio_wait(inode);
	zonefs_recovery_test_and_clear(inode, ZONEFS_RECOVERY_PENDING);
	device = zonefs_recovery_test_and_clear(inode, ZONEFS_RECOVERY_DEVICE);
	local = zonefs_recovery_test_and_clear(inode, ZONEFS_RECOVERY_LOCAL);
	no_write = zonefs_recovery_test_and_clear(inode,
						  ZONEFS_RECOVERY_NO_WRITE);
	zonefs_recovery_test_and_clear(inode, ZONEFS_RECOVERY_REFUSED_OPEN);
	zonefs_recovery_test_and_clear(inode, ZONEFS_RECOVERY_REFUSED_ACTIVE);
	if (device)
		err = ZONEFS_ERR_DEVICE;
	else if (local && err != ZONEFS_ERR_DEVICE)
		err = ZONEFS_ERR_LOCAL;
	else if (no_write && err == ZONEFS_ERR_NONE)
		err = ZONEFS_ERR_NO_WRITE;

	mutex_lock(&zi->i_truncate_mutex);
	zonefs_zone_resync(inode, err);
	if (zonefs_inode_is_seq(inode))
		zi->i_wpoffset = i_size_read(inode);
	mutex_unlock(&zi->i_truncate_mutex);
	zonefs_drop_stale_cache(inode);
}

/**
 * zonefs_drop_stale_cache() - drop the pages zonefs_zone_resync() found stale
 * @inode:	the file's inode
 *
 * Not under i_truncate_mutex: a read in progress holds pages locked while
 * it waits for that mutex (zonefs_iomap_begin()), and a truncation of the
 * page cache waits for them. The invalidate lock keeps new reads out.
 *
 * Context: inode->i_rwsem held exclusive, mapping->invalidate_lock and
 * the file's i_truncate_mutex not held.
 */
void zonefs_drop_stale_cache(struct inode *inode)
{
	if (!zonefs_recovery_test(inode, ZONEFS_RECOVERY_STALE_CACHE))
		return;
	filemap_invalidate_lock(inode->i_mapping);
	if (zonefs_recovery_test_and_clear(inode, ZONEFS_RECOVERY_STALE_CACHE))
		truncate_pagecache(inode, 0);
	filemap_invalidate_unlock(inode->i_mapping);
}

/**
 * zonefs_recovery_work() - recover after asynchronous I/O errors
 * @work:	zonefs_sb_info.s_recovery_work
 *
 * Runs the recovery of each file marked in s_recovery_map, one after the
 * other, and drops the reference zonefs_note_error() took. A file's mark
 * is cleared before its recovery, so that an error during it queues
 * another.
 */
void zonefs_recovery_work(struct work_struct *work)
{
	struct zonefs_sb_info *sbi =
		container_of(work, struct zonefs_sb_info, s_recovery_work);
	unsigned int zidx = 0;
	struct inode *inode;

	for (;;) {
		zidx = find_next_bit(sbi->s_recovery_map, sbi->s_nr_zones, zidx);
		if (zidx >= sbi->s_nr_zones)
			break;
		clear_bit(zidx, sbi->s_recovery_map);
		/*
		 * Pairs with the ordered test_and_set_bit() of
		 * zonefs_note_error(): an error that found the mark still
		 * set is seen by the recovery below.
		 */
		smp_mb__after_atomic();
		/* Found: zonefs_note_error() holds a reference on it. */
		inode = ilookup(sbi->s_sb, zidx);
		if (WARN_ON_ONCE(!inode))
			continue;
		inode_lock(inode);
		zonefs_recover(inode, ZONEFS_ERR_NONE);
		inode_unlock(inode);
		iput(inode);
		iput(inode);
	}
}

/**
 * zonefs_recovery_flush() - wait for the queued recoveries
 *
 * A queued recovery holds a reference on its inode: the inodes of a super
 * block being killed must have none.
 */
void zonefs_recovery_flush(void)
{
	flush_workqueue(zonefs_recovery_wq);
}

int zonefs_recovery_init(void)
{
	zonefs_recovery_wq = alloc_workqueue("zonefs_recovery",
					     WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return zonefs_recovery_wq ? 0 : -ENOMEM;
}

void zonefs_recovery_exit(void)
{
	destroy_workqueue(zonefs_recovery_wq);
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

/**
 * zonefs_close_open_zones() - give back the zone slots left held, and count
 * actives
 * @sb:	super block
 *
 * Zones left open (explicitly or implicitly) by a previous user are closed,
 * so that they do not hold the device's open zone resources. A zone left
 * open or closed with no data in it is reset instead: closing it would
 * leave it closed, and active, on a ZNS device, and a reset loses nothing.
 * Nothing is sent on a read-only mount; the zones are counted as the
 * device counts them.
 *
 * A zone that fails to close or reset is logged and left as it is.
 *
 * Context: mount time, after zonefs_init_zones().
 */
void zonefs_close_open_zones(struct super_block *sb)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	unsigned int i;

	for (i = 1; i < sbi->s_nr_zones; i++) {
		struct zonefs_zone *z = &sbi->s_zones[i];
		bool nodata = z->z_flags & ZONEFS_ZONE_MOUNT_NODATA;

		z->z_flags &= ~ZONEFS_ZONE_MOUNT_NODATA;
		if (!zonefs_zone_is_seq(z) || sb_rdonly(sb)) {
			/* Nothing to send. */
		} else if (nodata) {
			if (!zonefs_zone_mgmt_idx(sb, i, REQ_OP_ZONE_RESET))
				z->z_cond = BLK_ZONE_COND_EMPTY;
		} else if ((z->z_cond == BLK_ZONE_COND_IMP_OPEN ||
			    z->z_cond == BLK_ZONE_COND_EXP_OPEN) &&
			   !zonefs_zone_mgmt_idx(sb, i, REQ_OP_ZONE_CLOSE)) {
			z->z_cond = BLK_ZONE_COND_CLOSED;
		}
		zonefs_zone_update_active(sb, i);
	}
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
