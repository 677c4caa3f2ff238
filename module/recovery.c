// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs recovery: what an I/O error does to a file. The device's zone
 * report is compared with the file, and the mount's errors= policy is
 * applied when the device failed; recoveries of asynchronous I/O run on
 * a work queue.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/blkdev.h>

#include "zonefs.h"
#include "trace.h"

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
	zonefs_zone_clear_open(sb, z);

	zonefs_zone_set_flags(inode, flag);
	inode->i_mode &= ~zonefs_zone_taken_bits(flag);
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

/**
 * zonefs_remount_ro() - make the file system read-only after a failure
 * @sb:		super block
 * @why:	what failed, for the one kernel line
 * @zidx:	the zone it failed on
 *
 * The file system stops taking writes, truncations and stores through
 * shared mappings (zonefs_filemap_page_mkwrite()); pages dirtied before
 * are not written back (zonefs_write_map_blocks()).
 */
void zonefs_remount_ro(struct super_block *sb, const char *why,
		       unsigned int zidx)
{
	if (sb_rdonly(sb))
		return;
	zonefs_warn(sb, "zone %u: %s: remounting file system read-only\n",
		    zidx, why);
	sb->s_flags |= SB_RDONLY;
}

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
	if (p.remount_ro)
		zonefs_remount_ro(sb, "errors=remount-ro",
				  zonefs_inode_zidx(inode));

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
 * Asks the device for the file's zone. If it cannot answer after an error,
 * the file system becomes read-only. If the zone went bad, or the error
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
	int ret;

	lockdep_assert_held_write(&inode->i_rwsem);
	lockdep_assert_held(&zi->i_truncate_mutex);

	ret = zonefs_report_zone(inode, &zone);
	if (ret) {
		/*
		 * A device that fails an I/O and then cannot say what its
		 * zone holds is failing: whatever errors= says, nothing more
		 * is written to it. So is one that fails the report itself
		 * after a write failed otherwise. The file keeps its size,
		 * the last one the device confirmed. Without an error, or
		 * after one that was not the device's and a report that
		 * could not be made (no memory), a failed look changes
		 * nothing.
		 */
		if (err == ZONEFS_ERR_DEVICE || err == ZONEFS_ERR_NO_WRITE ||
		    (err == ZONEFS_ERR_LOCAL && zonefs_errno_is_device(ret)))
			zonefs_remount_ro(inode->i_sb,
					  "zone report failed after an I/O error",
					  zonefs_inode_zidx(inode));
		else
			zonefs_report_failed(inode, ret);
		return;
	}

	/*
	 * A zone held open that the device no longer shows explicitly open
	 * was reset, closed or finished behind the mount: it is not held
	 * any more, and a last close must not send a CLOSE, which a device
	 * may refuse for an empty zone (ZNS, null_blk).
	 */
	lost_open = (z->z_flags & ZONEFS_ZONE_OPEN) &&
		    zone.cond != BLK_ZONE_COND_EXP_OPEN;
	if (lost_open)
		zonefs_zone_clear_open(inode->i_sb, z);

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
	 * cached. It is all dropped once the caller lets go of the mutex
	 * (zonefs_resync_unlock()); errors are rare.
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
	unsigned int zidx = zonefs_inode_zidx(inode);

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
	    test_and_set_bit(zonefs_recovery_bit(inode, ZONEFS_RECOVERY_QUEUED),
			     sbi->s_recovery))
		return;

	/*
	 * The reference first, then the mark that the work looks for: the
	 * work drops a reference for each mark it finds, and a mark seen
	 * before its reference was taken would drop the caller's.
	 */
	ihold(inode);
	set_bit(zidx, sbi->s_recovery_map);
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
	zonefs_resync_unlock(inode);
}

/**
 * zonefs_resync_unlock() - let go of a file's i_truncate_mutex after a resync
 * @inode:	the file's inode
 *
 * Every path that may have called zonefs_zone_resync() under the mutex
 * lets go of it here: the pages the resync found stale are dropped once
 * the mutex is let go. A read fills pages under the invalidate lock
 * (shared) and waits for the mutex in zonefs_iomap_begin() with those
 * pages locked: taken here first, the invalidate lock waits for such
 * reads and keeps new ones out, so the truncation of the page cache
 * waits for no locked page. (The truncation path, which holds the
 * invalidate lock before the mutex, lets go of it first.)
 *
 * Context: inode->i_rwsem held exclusive and the file's i_truncate_mutex
 * held; mapping->invalidate_lock not held.
 */
void zonefs_resync_unlock(struct inode *inode)
{
	mutex_unlock(&ZONEFS_I(inode)->i_truncate_mutex);
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
		 * zonefs_note_error(): an error that found the file still
		 * queued is seen by the recovery below, and one after this
		 * queues the file again, with a reference of its own. Cleared
		 * by the zone's index, before the lookup: a file whose lookup
		 * failed is not left marked queued for good.
		 */
		clear_bit((unsigned long)zidx * ZONEFS_RECOVERY_NR_BITS +
			  ZONEFS_RECOVERY_QUEUED,
			  sbi->s_recovery);
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
 * zonefs_recovery_flush() - wait for a mount's queued recoveries
 * @sb:		the super block
 *
 * A queued recovery holds a reference on its inode: the inodes of a super
 * block being killed must have none. Only this mount's work is waited
 * for, not that of the other mounts.
 */
void zonefs_recovery_flush(struct super_block *sb)
{
	flush_work(&ZONEFS_SB(sb)->s_recovery_work);
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
