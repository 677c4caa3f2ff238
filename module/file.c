// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs files: iomap mappings, address space operations, the read and
 * write paths, truncation (zone reset and finish), mmap, fsync and the
 * open/close accounting of sequential files.
 *
 * A conventional file behaves much like a fixed-size regular file. A
 * sequential file only takes direct writes at its write pointer; its size
 * is what the device acknowledged, while i_wpoffset is ahead of it by the
 * writes in flight, so that several asynchronous writes can be queued
 * back to back.
 */
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/io.h>
#include <linux/uio.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/swap.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/sched/signal.h>
#include <linux/ioprio.h>

#include "zonefs.h"
#include "trace.h"

/*
 * Map a file range. Files map linearly onto their zones (aggr_cnv only
 * joins zones without a gap between their capacities), so one mapping
 * covers everything from @offset to the end of the data that can be read,
 * or for a write, to the capacity. A read at or past the size sees a hole:
 * that is also how the tail of the last page of a file whose capacity is
 * not a multiple of the page size is read.
 */
static int zonefs_iomap_begin(struct inode *inode, loff_t offset,
			      loff_t length, unsigned int flags,
			      struct iomap *iomap, struct iomap *srcmap)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	struct super_block *sb = inode->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	loff_t isize, end;

	if (WARN_ON_ONCE((flags & IOMAP_WRITE) &&
			 offset >= zonefs_inode_max_size(inode)))
		return -EIO;

	mutex_lock(&zi->i_truncate_mutex);
	iomap->bdev = sb->s_bdev;
	iomap->offset = ALIGN_DOWN(offset, sb->s_blocksize);
	isize = i_size_read(inode);
	end = (flags & IOMAP_WRITE) ? zonefs_inode_max_size(inode) : isize;
	if (iomap->offset >= end) {
		iomap->type = IOMAP_HOLE;
		iomap->addr = IOMAP_NULL_ADDR;
		iomap->length = offset + length - iomap->offset;
	} else {
		iomap->type = IOMAP_MAPPED;
		iomap->addr = (zonefs_zone_start(sbi, zonefs_inode_zidx(inode))
			       << SECTOR_SHIFT) + iomap->offset;
		iomap->length = end - iomap->offset;
	}
	mutex_unlock(&zi->i_truncate_mutex);

	trace_zonefs_iomap_begin(inode, flags, iomap);

	return 0;
}

static const struct iomap_ops zonefs_iomap_ops = {
	.iomap_begin	= zonefs_iomap_begin,
};

static int zonefs_read_folio(struct file *unused, struct folio *folio)
{
	return iomap_read_folio(folio, &zonefs_iomap_ops);
}

static void zonefs_readahead(struct readahead_control *rac)
{
	iomap_readahead(rac, &zonefs_iomap_ops);
}

/*
 * Whether a file's data can no longer be written: the file system is
 * read-only (mounted so, or made so by errors=), or the file's zone was
 * taken away (offline or read-only, by the device or by errors=).
 */
static bool zonefs_file_is_readonly(struct inode *inode)
{
	return sb_rdonly(inode->i_sb) ||
	       (zonefs_inode_zone(inode)->z_flags &
		(ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY |
		 ZONEFS_ZONE_RO_MOUNT));
}

/*
 * Only conventional files have dirty pages: seq files take no buffered
 * writes and no shared writable mappings. Pages dirtied before the file
 * became read-only are not written: the writeback fails with EROFS, which
 * fsync() and msync() report, and the pages are left clean.
 */
static int zonefs_write_map_blocks(struct iomap_writepage_ctx *wpc,
				   struct inode *inode, loff_t offset)
{
	if (WARN_ON_ONCE(zonefs_inode_is_seq(inode)))
		return -EIO;
	if (zonefs_file_is_readonly(inode))
		return -EROFS;
	if (offset >= wpc->iomap.offset &&
	    offset < wpc->iomap.offset + wpc->iomap.length)
		return 0;

	return zonefs_iomap_begin(inode, offset,
				  zonefs_inode_max_size(inode) - offset,
				  IOMAP_WRITE, &wpc->iomap, NULL);
}

/* iomap's completion of a writeback bio (zonefs_prepare_ioend()). */
static bio_end_io_t *zonefs_iomap_wb_end_io;

/*
 * Writeback bio completion, in any context: a write that the device failed
 * applies the errors= policy (zonefs_note_error()); iomap then ends the
 * pages' writeback and records the error for fsync(), as always. An error
 * that fsync() reports without such a failure (pages left unwritten
 * because the file is read-only, the page cache found stale after a
 * direct write) is the caller's alone.
 */
static void zonefs_wb_bio_end_io(struct bio *bio)
{
	struct iomap_ioend *ioend = bio->bi_private;

	if (zonefs_status_is_device(bio->bi_status))
		zonefs_note_error(ioend->io_inode, ZONEFS_ERR_DEVICE, false);
	READ_ONCE(zonefs_iomap_wb_end_io)(bio);
}

/*
 * Before an ioend's last bio (the one the others of the ioend complete
 * into) is sent: iomap has just set its own completion, which
 * zonefs_wb_bio_end_io() calls in turn. An ioend failed before it was
 * sent (@status) never reached the device: left as it is.
 */
static int zonefs_prepare_ioend(struct iomap_ioend *ioend, int status)
{
	if (status)
		return status;
	WRITE_ONCE(zonefs_iomap_wb_end_io, ioend->io_bio->bi_end_io);
	ioend->io_bio->bi_end_io = zonefs_wb_bio_end_io;
	return 0;
}

static const struct iomap_writeback_ops zonefs_writeback_ops = {
	.map_blocks	= zonefs_write_map_blocks,
	.prepare_ioend	= zonefs_prepare_ioend,
};

static int zonefs_writepages(struct address_space *mapping,
			     struct writeback_control *wbc)
{
	struct iomap_writepage_ctx wpc = { };

	return iomap_writepages(mapping, wbc, &wpc, &zonefs_writeback_ops);
}

static int zonefs_swap_activate(struct swap_info_struct *sis,
				struct file *swap_file, sector_t *span)
{
	struct inode *inode = file_inode(swap_file);

	if (zonefs_inode_is_seq(inode)) {
		zonefs_err(inode->i_sb,
			   "swap file must be a conventional zone file\n");
		return -EINVAL;
	}

	return iomap_swapfile_activate(sis, swap_file, span, &zonefs_iomap_ops);
}

const struct address_space_operations zonefs_file_aops = {
	.read_folio		= zonefs_read_folio,
	.readahead		= zonefs_readahead,
	.writepages		= zonefs_writepages,
	.dirty_folio		= filemap_dirty_folio,
	.release_folio		= iomap_release_folio,
	.invalidate_folio	= iomap_invalidate_folio,
	.migrate_folio		= filemap_migrate_folio,
	.is_partially_uptodate	= iomap_is_partially_uptodate,
	.error_remove_page	= generic_error_remove_page,
	.direct_IO		= noop_direct_IO,
	.swap_activate		= zonefs_swap_activate,
};

/* Whether a sequential file's zone can be reset or finished now. */
static int zonefs_truncate_check(struct inode *inode)
{
	struct zonefs_zone *z = zonefs_inode_zone(inode);

	if (z->z_flags & ZONEFS_ZONE_OFFLINE)
		return -EIO;
	if (sb_rdonly(inode->i_sb) ||
	    (z->z_flags & (ZONEFS_ZONE_READONLY | ZONEFS_ZONE_RO_MOUNT)))
		return -EROFS;
	return 0;
}

/*
 * Whether a truncation to @isize has nothing to send: the file is already
 * empty or full, and its zone holds just what the file has. Not so when
 * the device's write pointer was found past the size (data errors= kept
 * out of the file: the user resets the zone to write it again), nor for
 * an empty zone left open or closed without this module holding it (after
 * a read-only mount or file system), which the device counts as active
 * until a reset.
 */
static bool zonefs_truncate_is_noop(struct inode *inode, loff_t isize)
{
	struct zonefs_zone *z = zonefs_inode_zone(inode);

	if (isize != i_size_read(inode) || (z->z_flags & ZONEFS_ZONE_FOREIGN))
		return false;
	return isize || (z->z_flags & ZONEFS_ZONE_OPEN) ||
	       !zonefs_cond_is_active(z->z_cond);
}

/*
 * Truncation of a sequential file to 0 resets its zone and truncation to
 * its capacity finishes it. Nothing else can change a file's size.
 */
static int zonefs_file_truncate(struct inode *inode, loff_t isize)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	enum req_op op;
	int ret = 0;

	if (!zonefs_zone_is_seq(z))
		return -EPERM;
	if (isize == 0)
		op = REQ_OP_ZONE_RESET;
	else if (isize == zonefs_inode_max_size(inode))
		op = REQ_OP_ZONE_FINISH;
	else
		return -EPERM;

	/* After the writes in flight: one of them may fail. */
	inode_dio_wait(inode);
	zonefs_recover(inode, ZONEFS_ERR_NONE);
	filemap_invalidate_lock(inode->i_mapping);
	mutex_lock(&zi->i_truncate_mutex);

	ret = zonefs_truncate_check(inode);
	if (ret)
		goto unlock;

	if (zonefs_truncate_is_noop(inode, isize))
		goto unlock;

	/*
	 * A zone can go offline or read-only at any time, and not every
	 * device refuses to reset or finish such a zone: ask the device
	 * first, so that the file follows its zone's condition and the
	 * errors= policy applies if the zone went bad. A zone the device
	 * finished by itself is no error: the truncation goes on.
	 */
	zonefs_zone_resync(inode, ZONEFS_ERR_NONE);
	ret = zonefs_truncate_check(inode);
	if (ret)
		goto unlock;

	/*
	 * A FINISH needs an active zone slot: at the device's limit it is
	 * refused (EOVERFLOW), the zone is as it was and the caller gets
	 * the errno; so is a command to a read-only block device (EROFS).
	 * Only a failure of the device applies errors=.
	 */
	ret = zonefs_zone_mgmt(inode, op);
	if (ret) {
		if (zonefs_errno_is_device(ret))
			zonefs_zone_resync(inode, ZONEFS_ERR_DEVICE);
		goto unlock;
	}

	z->z_flags &= ~ZONEFS_ZONE_FOREIGN;
	if (op == REQ_OP_ZONE_RESET) {
		z->z_cond = BLK_ZONE_COND_EMPTY;
		zonefs_zone_clear_open(inode->i_sb, z);
		/*
		 * A reset zone is closed. With explicit-open, a file open for
		 * write holds its zone open, also one that was full when the
		 * file was opened or that filled up since: open it again.
		 * Else the writes that follow would open it implicitly, and
		 * it would stay open on the device past the last close,
		 * where no count of this module sees it.
		 */
		if (z->z_wr_refcnt &&
		    (READ_ONCE(ZONEFS_SB(inode->i_sb)->s_mount_opts) &
		     ZONEFS_MNTOPT_EXPLICIT_OPEN))
			zonefs_zone_open_explicit(inode);
	} else {
		/* A full zone is neither open nor active. */
		z->z_cond = BLK_ZONE_COND_FULL;
		zonefs_zone_clear_open(inode->i_sb, z);
	}
	zonefs_zone_set_wpoff(inode, isize);
	zi->i_wpoffset = isize;
	truncate_pagecache(inode, isize);

unlock:
	filemap_invalidate_unlock(inode->i_mapping);
	zonefs_resync_unlock(inode);

	return ret;
}

/* Copy what outlives a file's inode into its zonefs_attr. */
static void zonefs_attr_fill(struct zonefs_attr *attr, struct inode *inode)
{
	attr->a_mode = inode->i_mode;
	attr->a_uid = inode->i_uid;
	attr->a_gid = inode->i_gid;
	attr->a_atime = inode->i_atime;
	attr->a_mtime = inode->i_mtime;
	attr->a_ctime = inode->i_ctime;
}

/*
 * Make sure a file that may change (chmod, chown, a write) has a
 * zonefs_attr, so that its mode, owner and timestamps outlive its inode.
 * The entry is allocated here, in process context, so that saving it when
 * the inode is evicted never needs memory.
 */
static int zonefs_get_attr(struct inode *inode)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(inode->i_sb);
	unsigned int zidx = zonefs_inode_zidx(inode);
	struct zonefs_attr *attr;
	int ret;

	if (xa_load(&sbi->s_attrs, zidx))
		return 0;

	attr = kmalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	zonefs_attr_fill(attr, inode);
	ret = xa_insert(&sbi->s_attrs, zidx, attr, GFP_KERNEL);
	if (ret) {
		kfree(attr);
		/* Another opener of the same file was first: fine. */
		return ret == -EBUSY ? 0 : ret;
	}

	return 0;
}

/**
 * zonefs_file_save_attr() - keep a file's mode, owner and times
 * @inode:	a file inode being evicted
 *
 * Context: eviction; the entry, if the file has one, exists already.
 */
void zonefs_file_save_attr(struct inode *inode)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(inode->i_sb);
	struct zonefs_attr *attr;

	attr = xa_load(&sbi->s_attrs, zonefs_inode_zidx(inode));
	if (attr)
		zonefs_attr_fill(attr, inode);
}

static int zonefs_file_setattr(struct user_namespace *mnt_userns,
			       struct dentry *dentry, struct iattr *iattr)
{
	struct inode *inode = d_inode(dentry);
	unsigned int allowed = ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_CTIME |
			       ATTR_FORCE | ATTR_KILL_SUID | ATTR_KILL_SGID |
			       ATTR_KILL_PRIV;
	int ret;

	/* truncate(), ftruncate() and O_TRUNC also set times and flags. */
	if (iattr->ia_valid & ATTR_SIZE)
		allowed |= ATTR_SIZE | ATTR_MTIME | ATTR_FILE | ATTR_OPEN;
	if (iattr->ia_valid & ~allowed)
		return -EPERM;

	ret = setattr_prepare(mnt_userns, dentry, iattr);
	if (ret)
		return ret;

	/*
	 * The permission bits that a zone's take-away cleared say what the
	 * zone allows: they cannot be given back. Other changes (owner, the
	 * remaining bits) are allowed, as the file stays usable for reads.
	 */
	if ((iattr->ia_valid & ATTR_MODE) &&
	    (iattr->ia_mode & ~inode->i_mode &
	     zonefs_zone_taken_bits(zonefs_inode_zone(inode)->z_flags)))
		return -EPERM;

	/* Before the zone changes: nothing may fail after a reset. */
	ret = zonefs_get_attr(inode);
	if (ret)
		return ret;

	if (iattr->ia_valid & ATTR_SIZE) {
		ret = zonefs_file_truncate(inode, iattr->ia_size);
		if (ret)
			return ret;
	}

	setattr_copy(mnt_userns, inode, iattr);
	zonefs_file_save_attr(inode);

	return 0;
}

const struct inode_operations zonefs_file_inode_operations = {
	.setattr	= zonefs_file_setattr,
};

/**
 * zonefs_file_init() - set up a new file inode from its zone record
 * @inode:	new inode, its number set (zonefs_inode_zidx())
 * @nzones:	number of zones of the file
 *
 * The mode, owner and timestamps come from what the file had when its
 * last inode was evicted, else from the superblock and the mount time; the
 * zone's condition then takes away what it must.
 *
 * Context: the inode is I_NEW.
 */
void zonefs_file_init(struct inode *inode, unsigned int nzones)
{
	struct super_block *sb = inode->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	unsigned int zidx = zonefs_inode_zidx(inode);
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	struct zonefs_attr *attr = xa_load(&sbi->s_attrs, zidx);
	loff_t size;
	unsigned int i;

	/* The capacity, which zonefs_inode_max_size() reads back. */
	inode->i_blocks = 0;
	for (i = 0; i < nzones; i++)
		inode->i_blocks += zonefs_zone_cap(sbi, zidx + i);

	if (attr) {
		inode->i_mode = attr->a_mode;
		inode->i_uid = attr->a_uid;
		inode->i_gid = attr->a_gid;
		inode->i_atime = attr->a_atime;
		inode->i_mtime = attr->a_mtime;
		inode->i_ctime = attr->a_ctime;
	} else {
		inode->i_mode = S_IFREG | sbi->s_perm;
		inode->i_uid = sbi->s_uid;
		inode->i_gid = sbi->s_gid;
	}

	inode->i_mode &= ~zonefs_zone_taken_bits(z->z_flags);
	if (z->z_flags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_RO_MOUNT))
		size = 0;
	else if (zonefs_zone_is_seq(z))
		size = (loff_t)READ_ONCE(z->z_wpoff) << sb->s_blocksize_bits;
	else
		size = zonefs_inode_max_size(inode);
	i_size_write(inode, size);
	ZONEFS_I(inode)->i_wpoffset = size;
	set_nlink(inode, 1);
	/*
	 * Reads do not move the access time: a file that is only read has
	 * nowhere to keep it once its inode is reclaimed.
	 */
	inode->i_flags |= S_NOATIME;

	inode->i_op = &zonefs_file_inode_operations;
	inode->i_fop = &zonefs_file_operations;
	inode->i_mapping->a_ops = &zonefs_file_aops;
}

/*
 * A direct I/O must be block aligned, and its buffer must meet the
 * device's DMA alignment. A write to a sequential file also needs every
 * segment of its buffer aligned to the block, which is the zone write
 * granularity: the block layer cuts a request wherever the buffer's
 * segments and the queue's limits say, at any logical block, and on a 512e
 * disk a request that ends inside a physical block fails at the device.
 * Pinned user pages are whole pages, so a write from a block-aligned
 * buffer that faults part way still sends whole blocks. Checked before
 * anything is reserved or sent, so that a misaligned I/O is the caller's
 * EINVAL and never looks like a device error.
 */
static bool zonefs_dio_is_aligned(struct kiocb *iocb, struct iov_iter *iter,
				  bool seq_write)
{
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	if ((iocb->ki_pos | iov_iter_count(iter)) & (sb->s_blocksize - 1))
		return false;
	if (seq_write)
		return !(iov_iter_alignment(iter) & (sb->s_blocksize - 1));
	return bdev_iter_is_aligned(sb->s_bdev, iter);
}

/*
 * Each direct I/O bio carries its inode, so that its completion can record
 * what the device answered (zonefs_status_is_device()) where the I/O's
 * completion finds it: the errno that reaches the end of a direct I/O
 * cannot tell a device failure from a signal or a bad user page.
 */
struct zonefs_dio_bio {
	struct inode	*inode;
	struct bio	bio;	/* last: the bio_set's front pad is the rest */
};

static struct bio_set zonefs_dio_bio_set;

static struct inode *zonefs_bio_inode(struct bio *bio)
{
	return container_of(bio, struct zonefs_dio_bio, bio)->inode;
}

/* Read bio completion, in any context: a device failure is recorded. */
static void zonefs_read_bio_end_io(struct bio *bio)
{
	if (zonefs_status_is_device(bio->bi_status))
		zonefs_recovery_set(zonefs_bio_inode(bio),
				    ZONEFS_RECOVERY_NO_WRITE);
	iomap_dio_bio_end_io(bio);
}

static void zonefs_read_submit_io(const struct iomap_iter *iter,
				  struct bio *bio, loff_t file_offset)
{
	container_of(bio, struct zonefs_dio_bio, bio)->inode = iter->inode;
	bio->bi_end_io = zonefs_read_bio_end_io;
	submit_bio(bio);
}

/*
 * Direct read completion, in any context: a read that the device failed
 * (a bio of it completed with a device status) is recorded for recovery
 * in process context (zonefs_note_error()), so that an asynchronous read
 * learns of a zone gone bad as a synchronous one does. Any other error (a
 * signal, a bad user page) is only the caller's.
 */
static int zonefs_read_dio_end_io(struct kiocb *iocb, ssize_t size,
				  int error, unsigned int flags)
{
	struct inode *inode = file_inode(iocb->ki_filp);

	/* A non-blocking read leaves the recovery to the work queue. */
	if (error && zonefs_recovery_test(inode, ZONEFS_RECOVERY_NO_WRITE))
		zonefs_note_error(inode, ZONEFS_ERR_NO_WRITE,
				  is_sync_kiocb(iocb) &&
				  !(iocb->ki_flags & IOCB_NOWAIT));

	return error;
}

static const struct iomap_dio_ops zonefs_read_dio_ops = {
	.end_io		= zonefs_read_dio_end_io,
	.submit_io	= zonefs_read_submit_io,
	.bio_set	= &zonefs_dio_bio_set,
};

static ssize_t zonefs_file_dio_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	loff_t isize;
	ssize_t ret;

	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock_shared(inode))
			return -EAGAIN;
	} else {
		inode_lock_shared(inode);
	}

	isize = i_size_read(inode);
	if (iocb->ki_pos >= isize) {
		ret = 0;
		goto inode_unlock;
	}
	iov_iter_truncate(to, isize - iocb->ki_pos);
	if (!zonefs_dio_is_aligned(iocb, to, false)) {
		ret = -EINVAL;
		goto inode_unlock;
	}
	ret = iomap_dio_rw(iocb, to, &zonefs_iomap_ops, &zonefs_read_dio_ops,
			   0, NULL, 0);

inode_unlock:
	inode_unlock_shared(inode);

	/* A synchronous read that failed recovers now, unless it must not wait. */
	if (ret != -EIOCBQUEUED && !(iocb->ki_flags & IOCB_NOWAIT) &&
	    zonefs_recovery_pending(inode)) {
		inode_lock(inode);
		zonefs_recover(inode, ZONEFS_ERR_NONE);
		inode_unlock(inode);
	}

	return ret;
}

static ssize_t zonefs_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	ssize_t ret;

	if (z->z_flags & ZONEFS_ZONE_OFFLINE)
		return -EIO;
	if (!iov_iter_count(to))
		return 0;

	if (iocb->ki_flags & IOCB_DIRECT)
		return zonefs_file_dio_read(iocb, to);

	ret = generic_file_read_iter(iocb, to);
	/* A zone that fails a read may have gone bad: look, or have it looked at. */
	if (ret == -EIO && (iocb->ki_flags & IOCB_NOWAIT)) {
		zonefs_note_error(inode, ZONEFS_ERR_NO_WRITE, false);
	} else if (ret == -EIO) {
		inode_lock(inode);
		zonefs_recover(inode, ZONEFS_ERR_NO_WRITE);
		inode_unlock(inode);
	}

	return ret;
}

/*
 * Checks common to every write. An append to a sequential file goes to
 * the write pointer as issued, which is ahead of the size while writes are
 * in flight. A write is cut at the capacity, at RLIMIT_FSIZE (beyond which
 * it fails with EFBIG and SIGXFSZ; for a direct write, which is in whole
 * blocks, the limit is the last block boundary at or below it) and,
 * without O_LARGEFILE, at the last block below 2 GiB.
 *
 * Return: the number of bytes to write, 0, or -errno.
 */
static ssize_t zonefs_write_checks(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	loff_t limit = rlimit(RLIMIT_FSIZE);
	loff_t max_size = zonefs_inode_max_size(inode);

	if (IS_SWAPFILE(inode))
		return -ETXTBSY;
	if (!iov_iter_count(from))
		return 0;
	if (sb_rdonly(inode->i_sb))
		return -EROFS;
	if (z->z_flags & ZONEFS_ZONE_OFFLINE)
		return -EIO;
	if (z->z_flags & (ZONEFS_ZONE_READONLY | ZONEFS_ZONE_RO_MOUNT))
		return -EROFS;
	/*
	 * The zone holds data past the size that errors= kept out of the
	 * file: the device refuses a write at the size, and that refusal
	 * would apply errors= again after each remount,rw. Nothing is sent
	 * until a truncation to 0 resets the zone.
	 */
	if (z->z_flags & ZONEFS_ZONE_FOREIGN)
		return -EIO;
	if ((iocb->ki_flags & IOCB_NOWAIT) && !(iocb->ki_flags & IOCB_DIRECT))
		return -EINVAL;

	if (iocb->ki_flags & IOCB_APPEND) {
		if (!zonefs_zone_is_seq(z))
			return -EINVAL;
		mutex_lock(&zi->i_truncate_mutex);
		iocb->ki_pos = zi->i_wpoffset;
		mutex_unlock(&zi->i_truncate_mutex);
	}

	if (limit != RLIM_INFINITY) {
		if (iocb->ki_flags & IOCB_DIRECT)
			limit = round_down(limit, inode->i_sb->s_blocksize);
		if (iocb->ki_pos >= limit) {
			send_sig(SIGXFSZ, current, 0);
			return -EFBIG;
		}
		iov_iter_truncate(from, limit - iocb->ki_pos);
	}
	/* In whole blocks, so that a direct write there is EFBIG, not EINVAL. */
	if (!(file->f_flags & O_LARGEFILE))
		max_size = min_t(loff_t, max_size,
				 round_down(MAX_NON_LFS, inode->i_sb->s_blocksize));
	if (iocb->ki_pos >= max_size)
		return -EFBIG;
	iov_iter_truncate(from, max_size - iocb->ki_pos);

	return iov_iter_count(from);
}

/*
 * What an asynchronous write to a sequential file, of @size bytes at
 * ki_pos, refused for want of zone resources after part of it was sent,
 * put in the zone: the device's write pointer says. The requests of a
 * zone reach the device one at a time, in order (mq-deadline), so the
 * requests of this write before the refused one landed, and none after
 * it did: they no longer started at the write pointer. The writes queued
 * behind this one failed the same way, so the write pointer is where
 * the refused request started. The recovery, which waits for this
 * completion, gives the file that size.
 *
 * Context: process context, before the write's recovery: the completion
 * work of an asynchronous direct write, or the issuer of one sent in
 * pieces (zonefs_dio_write_pieces()), which holds the inode lock.
 * Return: the bytes that landed (0 if none, or if the device cannot say).
 */
static ssize_t zonefs_write_landed(struct kiocb *iocb, ssize_t size)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct blk_zone zone;
	loff_t wp;

	if (zonefs_report_zone(inode, &zone) ||
	    (zone.cond != BLK_ZONE_COND_IMP_OPEN &&
	     zone.cond != BLK_ZONE_COND_EXP_OPEN &&
	     zone.cond != BLK_ZONE_COND_CLOSED))
		return 0;
	wp = (loff_t)(zone.wp - zone.start) << SECTOR_SHIFT;
	return clamp_t(loff_t, wp - iocb->ki_pos, 0, size);
}

/*
 * Direct write completion: the device acknowledged @size bytes at
 * ki_pos, so a sequential file grows to there. Completions can be seen out
 * of order, so the size only ever grows. A write that the device failed (a
 * bio of the file completed with a device status,
 * zonefs_write_bio_status()) is recorded for the errors= recovery
 * (zonefs_note_error()). Any other failure is the caller's: a signal or a
 * bad page while pinning the buffer, a refusal. If part of such a write was
 * sent, the recovery takes what the file's own writes put in the zone;
 * if nothing was, the issuer gives back the write pointer it reserved and
 * nothing else changed. An asynchronous write refused for want of zone
 * resources after part of it landed completes with the count that landed,
 * as a synchronous one returns it (zonefs_file_dio_write()).
 */
static int zonefs_write_dio_end_io(struct kiocb *iocb, ssize_t size,
				   int error, unsigned int flags)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	bool seq = zonefs_inode_is_seq(inode);
	ssize_t landed = 0;

	if (error) {
		if (zonefs_recovery_test(inode, ZONEFS_RECOVERY_DEVICE))
			zonefs_note_error(inode, ZONEFS_ERR_DEVICE,
					  is_sync_kiocb(iocb));
		else if (size)
			zonefs_note_error(inode, ZONEFS_ERR_LOCAL,
					  is_sync_kiocb(iocb));
		if (seq && size && !is_sync_kiocb(iocb) &&
		    zonefs_error_is_resource(error))
			landed = zonefs_write_landed(iocb, size);
	} else if (size && seq) {
		mutex_lock(&zi->i_truncate_mutex);
		if (i_size_read(inode) < iocb->ki_pos + size)
			zonefs_zone_set_wpoff(inode, iocb->ki_pos + size);
		mutex_unlock(&zi->i_truncate_mutex);
	}

	trace_zonefs_write_end_io(inode, iocb->ki_pos, size, error,
				  zi->i_wpoffset);

	return landed ? landed : error;
}

/*
 * A device out of open or active zones refuses the first request it
 * cannot take (ETOOMANYREFS, EOVERFLOW) and changes nothing; the requests
 * of the file that follow it (the rest of the write's pieces, the writes
 * queued behind) then fail because they no longer start at the write
 * pointer. Those failures are the refusal's: they complete with its
 * status, so that the caller gets the resource errno and no errors=
 * policy applies. The recovery, which runs before the file's next write
 * is issued, checks that the device's write pointer is between the size
 * and the end of the writes issued, and clears the state.
 */
static void zonefs_write_bio_status(struct bio *bio)
{
	struct inode *inode = zonefs_bio_inode(bio);
	int error = blk_status_to_errno(bio->bi_status);

	if (zonefs_error_is_resource(error)) {
		if (!zonefs_recovery_test(inode, ZONEFS_RECOVERY_REFUSED_OPEN) &&
		    !zonefs_recovery_test(inode, ZONEFS_RECOVERY_REFUSED_ACTIVE))
			zonefs_recovery_set(inode, error == -ETOOMANYREFS ?
					    ZONEFS_RECOVERY_REFUSED_OPEN :
					    ZONEFS_RECOVERY_REFUSED_ACTIVE);
	} else if (error) {
		if (zonefs_recovery_test(inode, ZONEFS_RECOVERY_REFUSED_OPEN))
			bio->bi_status = BLK_STS_ZONE_OPEN_RESOURCE;
		else if (zonefs_recovery_test(inode,
					      ZONEFS_RECOVERY_REFUSED_ACTIVE))
			bio->bi_status = BLK_STS_ZONE_ACTIVE_RESOURCE;
		else if (zonefs_status_is_device(bio->bi_status))
			zonefs_recovery_set(inode, ZONEFS_RECOVERY_DEVICE);
	}
}

/* Write bio completion, in any context. */
static void zonefs_write_bio_end_io(struct bio *bio)
{
	zonefs_write_bio_status(bio);
	iomap_dio_bio_end_io(bio);
}

/*
 * Completion of a piece of a write bio cut off by zonefs_write_submit_io(),
 * in any context: it completes into the rest of the bio as a chained bio
 * does, after its own status has been looked at.
 */
static void zonefs_write_piece_end_io(struct bio *bio)
{
	struct bio *parent = bio->bi_private;

	zonefs_write_bio_status(bio);
	if (bio->bi_status && !parent->bi_status)
		parent->bi_status = bio->bi_status;
	bio_put(bio);
	bio_endio(parent);
}

/*
 * The largest request the block layer makes of a bio starting at @sector,
 * whatever its segments: the queue's largest request, cut at the next
 * chunk boundary (a zoned device's chunk is its zone, which a write never
 * crosses; a device may have smaller ones).
 */
static unsigned int zonefs_max_request_sectors(struct request_queue *q,
					       sector_t sector)
{
	unsigned int max = queue_max_sectors(q);

	if (q->limits.chunk_sectors)
		max = min(max, blk_chunk_sectors_left(sector,
						      q->limits.chunk_sectors));
	return max;
}

/*
 * The sectors at the head of @bio that the block layer sends as one
 * request, in whole blocks of @bsize bytes (0 if not even one): within
 * zonefs_max_request_sectors() and the queue's segment count, the
 * segments counted as the block layer cuts them (at the largest segment
 * size and at the segment boundary, a bvec of physically contiguous pages
 * at a time), and up to the first gap at the queue's virtual boundary.
 * zonefs_request_bytes() is the same model for a write not yet in a bio.
 */
static unsigned int zonefs_bio_request_sectors(struct bio *bio,
					       unsigned int bsize)
{
	struct request_queue *q = bdev_get_queue(bio->bi_bdev);
	unsigned long boundary = queue_virt_boundary(q);
	unsigned long seg_mask = queue_segment_boundary(q);
	unsigned int max_bytes =
		zonefs_max_request_sectors(q, bio->bi_iter.bi_sector) << SECTOR_SHIFT;
	unsigned int max_segs = queue_max_segments(q);
	unsigned int bytes = 0, segs = 0, prev_end = 0;
	struct bvec_iter iter;
	struct bio_vec bv;

	bio_for_each_bvec(bv, bio, iter) {
		phys_addr_t addr = page_to_phys(bv.bv_page) + bv.bv_offset;
		unsigned int left = bv.bv_len;

		if (bytes && boundary &&
		    ((prev_end & boundary) || (bv.bv_offset & boundary)))
			break;
		while (left) {
			unsigned long to_boundary = seg_mask - (addr & seg_mask) + 1;
			unsigned int seg = min(left, queue_max_segment_size(q));

			if (to_boundary && to_boundary < seg)
				seg = to_boundary;
			if (segs == max_segs || bytes + seg >= max_bytes) {
				if (segs < max_segs)
					bytes = max_bytes;
				goto out;
			}
			segs++;
			bytes += seg;
			addr += seg;
			left -= seg;
		}
		prev_end = bv.bv_offset + bv.bv_len;
	}
out:
	return round_down(bytes, bsize) >> SECTOR_SHIFT;
}

/*
 * A device out of open or active zones may refuse any request of a write:
 * the first one if the zone is empty, or closed (a device at its open
 * limit closes zones to open others, and may then refuse to open one
 * again), and a later one if the device closed the zone between two
 * requests. The block layer, which cuts a bio into requests, reports only
 * the last failure of the bio, and that is the EIO of a request behind
 * the refused one, not the refusal. On a device with zone limits, the
 * write bio is therefore cut here into pieces that each go as one request,
 * and each piece's completion sees the device's own answer; with
 * mq-deadline, one write per zone is at the device at a time, so the
 * refusal is recorded before the next piece is sent. Without a scheduler,
 * a write is sent one request at a time already.
 */
static void zonefs_write_submit_io(const struct iomap_iter *iter,
				   struct bio *bio, loff_t file_offset)
{
	struct inode *inode = iter->inode;
	struct zonefs_sb_info *sbi = ZONEFS_SB(inode->i_sb);
	struct bio *piece;
	unsigned int sectors;

	container_of(bio, struct zonefs_dio_bio, bio)->inode = inode;
	bio->bi_end_io = zonefs_write_bio_end_io;

	/*
	 * mq-deadline serves its priority classes in turn: a write queued at
	 * a higher priority than one before it in the same zone would reach
	 * the device first, off the write pointer. Every write to a
	 * sequential zone goes in one class, best effort.
	 */
	if (zonefs_inode_is_seq(inode))
		bio->bi_ioprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE,
						   IOPRIO_BE_NORM);

	if (!zonefs_inode_is_seq(inode) ||
	    !(sbi->s_max_active_seq_files || sbi->s_max_wro_seq_files) ||
	    !zonefs_bdev_has_elevator(inode->i_sb->s_bdev))
		goto submit;

	for (;;) {
		sectors = zonefs_bio_request_sectors(bio, inode->i_sb->s_blocksize);
		if (!sectors || sectors >= bio_sectors(bio))
			break;
		bio_clear_polled(bio);
		piece = bio_split(bio, sectors, GFP_NOIO, &zonefs_dio_bio_set);
		if (!piece)
			break;
		container_of(piece, struct zonefs_dio_bio, bio)->inode = inode;
		piece->bi_private = bio;
		piece->bi_end_io = zonefs_write_piece_end_io;
		bio_inc_remaining(bio);
		submit_bio(piece);
	}

submit:
	submit_bio(bio);
}

static const struct iomap_dio_ops zonefs_write_dio_ops = {
	.end_io		= zonefs_write_dio_end_io,
	.submit_io	= zonefs_write_submit_io,
	.bio_set	= &zonefs_dio_bio_set,
};

int zonefs_dio_init(void)
{
	return bioset_init(&zonefs_dio_bio_set, BIO_POOL_SIZE,
			   offsetof(struct zonefs_dio_bio, bio),
			   BIOSET_NEED_BVECS);
}

void zonefs_dio_exit(void)
{
	bioset_exit(&zonefs_dio_bio_set);
}

/*
 * Move the issued write pointer of a sequential file past a write of @len
 * bytes at @pos, before the write is submitted: the write must start
 * there, and the next one will start where this one ends.
 */
static int zonefs_reserve_wp(struct inode *inode, loff_t pos, size_t len)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	int ret = 0;

	mutex_lock(&zi->i_truncate_mutex);
	if (pos == zi->i_wpoffset)
		zi->i_wpoffset += len;
	else
		ret = -EINVAL;
	mutex_unlock(&zi->i_truncate_mutex);

	return ret;
}

/*
 * The largest piece of a direct write at file offset @pos that the block
 * layer sends as one request, before it is in a bio: within
 * zonefs_max_request_sectors() and the queue's segment count (a segment
 * per page at most, the buffer's segments being block aligned), and
 * within one bio. A buffer that is not page aligned may be cut at a page
 * boundary (a virtual boundary): then one block at a time.
 */
static size_t zonefs_request_bytes(struct inode *inode, struct iov_iter *from,
				   loff_t pos)
{
	struct super_block *sb = inode->i_sb;
	struct request_queue *q = bdev_get_queue(sb->s_bdev);
	size_t seg = min_t(size_t, queue_max_segment_size(q), PAGE_SIZE);
	sector_t sector = zonefs_zone_start(ZONEFS_SB(sb),
					    zonefs_inode_zidx(inode)) +
			  (pos >> SECTOR_SHIFT);
	size_t max;

	if (iov_iter_alignment(from) & ~PAGE_MASK)
		return sb->s_blocksize;
	max = min3((size_t)zonefs_max_request_sectors(q, sector) << SECTOR_SHIFT,
		   (size_t)queue_max_segments(q) * seg,
		   (size_t)BIO_MAX_VECS << PAGE_SHIFT);
	return max_t(size_t, round_down(max, sb->s_blocksize), sb->s_blocksize);
}

/*
 * Without an I/O scheduler that orders zone writes (none, NVMe's default;
 * a bio-based device, whose scheduler is below it), requests queued to
 * one zone can reach the device out of order: the requests of one write
 * leave from a plug that is flushed in part when the submitter sleeps,
 * or from another CPU's queue, and a requeued request goes behind later
 * ones. One request at a time per zone cannot be reordered: the write is
 * sent in pieces that each fit one request, each waited for before the
 * next is sent, whether the caller is synchronous or not.
 *
 * Return: the bytes written, or -errno if none were.
 */
static ssize_t zonefs_dio_write_pieces(struct kiocb *iocb,
				       struct iov_iter *from, loff_t *end)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret = 0, done = 0;

	/*
	 * Each piece is waited for, by the issuer: a polled one would wait
	 * for an interrupt that a polled queue never raises.
	 */
	iocb->ki_flags &= ~IOCB_HIPRI;
	while (iov_iter_count(from)) {
		size_t piece = min(iov_iter_count(from),
				   zonefs_request_bytes(inode, from,
							iocb->ki_pos));
		size_t rest = iov_iter_count(from) - piece;

		ret = zonefs_reserve_wp(inode, iocb->ki_pos, piece);
		if (ret)
			break;
		*end = iocb->ki_pos + piece;
		iov_iter_truncate(from, piece);
		ret = iomap_dio_rw(iocb, from, &zonefs_iomap_ops,
				   &zonefs_write_dio_ops,
				   IOMAP_DIO_PARTIAL | IOMAP_DIO_FORCE_WAIT,
				   NULL, 0);
		iov_iter_reexpand(from, iov_iter_count(from) + rest);
		if (ret > 0)
			done += ret;
		if (ret < (ssize_t)piece || zonefs_recovery_pending(inode))
			break;
	}

	return done ? done : ret;
}

static ssize_t zonefs_file_dio_write(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	bool seq = zonefs_inode_is_seq(inode);
	size_t count;
	ssize_t ret;
	loff_t pos, end;

	/*
	 * An asynchronous write that could not wait would be retried later,
	 * after the writes queued behind it: they would no longer start at
	 * the write pointer. Refuse it, so that io_uring issues such writes
	 * in order from its workers.
	 */
	if (seq && !is_sync_kiocb(iocb) && (iocb->ki_flags & IOCB_NOWAIT))
		return -EOPNOTSUPP;

	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock(inode))
			return -EAGAIN;
	} else {
		inode_lock(inode);
	}

	/*
	 * Without a scheduler that orders zone writes, a write is sent one
	 * request at a time (zonefs_dio_write_pieces()), once the file's
	 * earlier direct I/O is done.
	 */
	if (seq && !zonefs_bdev_has_elevator(inode->i_sb->s_bdev) &&
	    atomic_read(&inode->i_dio_count)) {
		if (iocb->ki_flags & IOCB_NOWAIT) {
			ret = -EAGAIN;
			goto inode_unlock;
		}
		inode_dio_wait(inode);
	}

	/* An earlier write failed: its recovery, which may sleep, comes first. */
	if (zonefs_recovery_pending(inode)) {
		if (iocb->ki_flags & IOCB_NOWAIT) {
			ret = -EAGAIN;
			goto inode_unlock;
		}
		zonefs_recover(inode, ZONEFS_ERR_NONE);
	}

	ret = zonefs_write_checks(iocb, from);
	if (ret <= 0)
		goto inode_unlock;
	count = ret;
	pos = iocb->ki_pos;

	/*
	 * A sequential write that has started must land whole, or up to a
	 * point from which the caller can go on: a later request refused for
	 * want of a tag (REQ_NOWAIT) would leave the ones behind it off the
	 * write pointer. RWF_NOWAIT only spares the wait for the inode and
	 * for a recovery, above.
	 */
	if (seq)
		iocb->ki_flags &= ~IOCB_NOWAIT;

	if (!zonefs_dio_is_aligned(iocb, from, seq)) {
		ret = -EINVAL;
		goto inode_unlock;
	}

	ret = kiocb_modified(iocb);
	if (ret)
		goto inode_unlock;

	end = pos + count;
	if (seq && !zonefs_bdev_has_elevator(inode->i_sb->s_bdev)) {
		ret = zonefs_dio_write_pieces(iocb, from, &end);
	} else {
		if (seq) {
			ret = zonefs_reserve_wp(inode, pos, count);
			if (ret)
				goto inode_unlock;
		}
		/*
		 * IOMAP_DIO_PARTIAL: a user page that faults part way ends
		 * the write there, synchronously, as a short write of what
		 * reached the device.
		 */
		ret = iomap_dio_rw(iocb, from, &zonefs_iomap_ops,
				   &zonefs_write_dio_ops, IOMAP_DIO_PARTIAL,
				   NULL, 0);
		if (ret == -EIOCBQUEUED) {
			/*
			 * An asynchronous write whose submission stopped
			 * short (a signal or a bad page while its buffer was
			 * pinned) has only its first part in flight: the next
			 * write goes after that part, not after the rest,
			 * which will never be sent.
			 */
			if (seq && iov_iter_count(from)) {
				mutex_lock(&zi->i_truncate_mutex);
				if (zi->i_wpoffset == end)
					zi->i_wpoffset = end - iov_iter_count(from);
				mutex_unlock(&zi->i_truncate_mutex);
			}
			goto inode_unlock;
		}
	}

	if (zonefs_recovery_pending(inode)) {
		/*
		 * This write, or an I/O in flight before it, failed: the
		 * recovery also gives back what this write reserved. A write
		 * refused for want of zone resources after some of its
		 * requests reached the device returns what landed: the
		 * recovery of a failure the device did not make takes only
		 * what the file's own writes put in the zone, and this
		 * write's reservation is the last one (the inode lock is
		 * held), so the bytes past its offset are its own. A caller
		 * who goes on from the returned count writes at the write
		 * pointer. After a device failure, the errno.
		 */
		bool local = zonefs_recovery_test(inode, ZONEFS_RECOVERY_LOCAL) &&
			     !zonefs_recovery_test(inode, ZONEFS_RECOVERY_DEVICE);

		zonefs_recover(inode, ZONEFS_ERR_NONE);
		if (seq && local && ret < 0 && i_size_read(inode) > pos) {
			ret = min_t(loff_t, i_size_read(inode) - pos, count);
			iocb->ki_pos = pos + ret;
		}
	} else if (seq && ret < (ssize_t)count) {
		/*
		 * Nothing, or less than reserved, was written and nothing
		 * failed on the device: give back what was not written.
		 * This write's reservation is the last one, as the inode
		 * lock is held.
		 */
		mutex_lock(&zi->i_truncate_mutex);
		if (zi->i_wpoffset == end)
			zi->i_wpoffset = max(pos + max_t(ssize_t, ret, 0),
					     i_size_read(inode));
		mutex_unlock(&zi->i_truncate_mutex);
	}

	/* Page cache invalidation failed: a sequential file has no fallback. */
	if (seq && ret == -ENOTBLK)
		ret = -EBUSY;

inode_unlock:
	inode_unlock(inode);

	return ret;
}

static ssize_t zonefs_file_buffered_write(struct kiocb *iocb,
					  struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	/* A sequential zone only takes direct writes. */
	if (zonefs_inode_is_seq(inode))
		return -EOPNOTSUPP;

	inode_lock(inode);

	ret = zonefs_write_checks(iocb, from);
	if (ret <= 0)
		goto inode_unlock;

	ret = file_modified(iocb->ki_filp);
	if (ret)
		goto inode_unlock;

	/*
	 * A buffered write only fills the page cache: a device error here
	 * (EIO, ENODATA, ...: the errno of the failed bio) is the read of a
	 * block that the write covers in part, returned as it is and treated
	 * as the read it is. The device's write failures show at writeback.
	 */
	ret = iomap_file_buffered_write(iocb, from, &zonefs_iomap_ops);
	if (ret > 0)
		iocb->ki_pos += ret;
	else if (zonefs_errno_is_device(ret))
		zonefs_recover(inode, ZONEFS_ERR_NO_WRITE);

inode_unlock:
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);

	return ret;
}

static ssize_t zonefs_file_write_iter(struct kiocb *iocb,
				      struct iov_iter *from)
{
	ssize_t ret;

	if (iocb->ki_flags & IOCB_DIRECT) {
		ret = zonefs_file_dio_write(iocb, from);
		if (ret != -ENOTBLK)
			return ret;
	}

	return zonefs_file_buffered_write(iocb, from);
}

static vm_fault_t zonefs_filemap_page_mkwrite(struct vm_fault *vmf)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	vm_fault_t ret;

	if (WARN_ON_ONCE(zonefs_inode_is_seq(inode)))
		return VM_FAULT_SIGBUS;

	/*
	 * A store into a mapping of a file that can no longer be written
	 * (the mapping was made before) gets SIGBUS. A store that passes
	 * here as the file becomes read-only leaves a dirty page that
	 * writeback does not write (zonefs_write_map_blocks()).
	 */
	if (zonefs_file_is_readonly(inode))
		return VM_FAULT_SIGBUS;

	sb_start_pagefault(inode->i_sb);
	file_update_time(vmf->vma->vm_file);

	filemap_invalidate_lock_shared(inode->i_mapping);
	ret = iomap_page_mkwrite(vmf, &zonefs_iomap_ops);
	filemap_invalidate_unlock_shared(inode->i_mapping);

	sb_end_pagefault(inode->i_sb);

	return ret;
}

static const struct vm_operations_struct zonefs_file_vm_ops = {
	.fault		= filemap_fault,
	.map_pages	= filemap_map_pages,
	.page_mkwrite	= zonefs_filemap_page_mkwrite,
};

static int zonefs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	/*
	 * Writing a sequential zone through the page cache could not keep
	 * to the write pointer: only private or read-only shared mappings.
	 */
	if (zonefs_inode_is_seq(file_inode(file)) &&
	    (vma->vm_flags & VM_SHARED) && (vma->vm_flags & VM_MAYWRITE))
		return -EINVAL;

	file_accessed(file);
	vma->vm_ops = &zonefs_file_vm_ops;

	return 0;
}

static loff_t zonefs_file_llseek(struct file *file, loff_t offset, int whence)
{
	loff_t isize = i_size_read(file_inode(file));

	return generic_file_llseek_size(file, offset, whence, isize, isize);
}

static int zonefs_file_fsync(struct file *file, loff_t start, loff_t end,
			     int datasync)
{
	struct inode *inode = file_inode(file);
	struct bio bio;
	int ret = 0;

	if (zonefs_inode_zone(inode)->z_flags & ZONEFS_ZONE_OFFLINE)
		return -EIO;

	/*
	 * Sequential files have no dirty pages: direct writes only. A
	 * writeback error is reported as it is: the writes that the device
	 * failed applied errors= as they completed (zonefs_wb_bio_end_io()).
	 */
	if (!zonefs_inode_is_seq(inode))
		ret = file_write_and_wait_range(file, start, end);
	if (ret)
		return ret;

	/*
	 * fsync also runs inside a direct O_DSYNC write's completion, with
	 * the inode lock held or with its issuer waiting for it: the
	 * recovery of a flush that the device failed, which takes that
	 * lock, is queued.
	 */
	bio_init(&bio, inode->i_sb->s_bdev, NULL, 0,
		 REQ_OP_WRITE | REQ_PREFLUSH);
	ret = submit_bio_wait(&bio);
	if (zonefs_status_is_device(bio.bi_status))
		zonefs_note_error(inode, ZONEFS_ERR_DEVICE, false);
	bio_uninit(&bio);

	return ret;
}

/*
 * The first open for write of a sequential file counts it in
 * s_wro_seq_files and, with explicit-open, opens its zone, within the
 * device's open zone limit. The zone record counts the file's writers, up
 * to U16_MAX open file descriptions: past that, EMFILE.
 */
static int zonefs_seq_file_write_open(struct inode *inode)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	struct super_block *sb = inode->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct zonefs_zone *z = zonefs_inode_zone(inode);
	unsigned int wro;
	int ret = 0;

	mutex_lock(&zi->i_truncate_mutex);

	if (z->z_wr_refcnt == U16_MAX) {
		ret = -EMFILE;
		goto unlock;
	}
	/*
	 * A file with writers is counted, and so is one whose zone is still
	 * held open after a CLOSE failed (zonefs_seq_file_write_close()).
	 */
	if (z->z_wr_refcnt || (z->z_flags & ZONEFS_ZONE_OPEN))
		goto count_ref;

	wro = atomic_inc_return(&sbi->s_wro_seq_files);
	if (!(READ_ONCE(sbi->s_mount_opts) & ZONEFS_MNTOPT_EXPLICIT_OPEN) ||
	    (z->z_flags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_READONLY |
			   ZONEFS_ZONE_RO_MOUNT)))
		goto count_ref;

	if (sbi->s_max_wro_seq_files && wro > sbi->s_max_wro_seq_files) {
		ret = -EBUSY;
		goto dec_wro;
	}

	/* A full zone cannot be opened; it needs no open either. */
	if (i_size_read(inode) < zonefs_inode_max_size(inode) &&
	    !(z->z_flags & ZONEFS_ZONE_OPEN)) {
		ret = zonefs_zone_open_explicit(inode);
		if (ret)
			goto dec_wro;
		zonefs_zone_update_active(sb, zonefs_inode_zidx(inode));
	}

count_ref:
	z->z_wr_refcnt++;
	mutex_unlock(&zi->i_truncate_mutex);
	return 0;

dec_wro:
	atomic_dec(&sbi->s_wro_seq_files);
unlock:
	mutex_unlock(&zi->i_truncate_mutex);
	return ret;
}

static void zonefs_seq_file_write_close(struct inode *inode)
{
	struct zonefs_inode_info *zi = ZONEFS_I(inode);
	struct super_block *sb = inode->i_sb;
	struct zonefs_zone *z = zonefs_inode_zone(inode);

	/*
	 * A CLOSE that fails may take the zone away, which changes i_mode:
	 * under the inode lock, as chmod does.
	 */
	inode_lock(inode);
	mutex_lock(&zi->i_truncate_mutex);

	if (WARN_ON_ONCE(!z->z_wr_refcnt) || --z->z_wr_refcnt)
		goto unlock;

	/*
	 * A zone still flagged open is held open by this module: a zone that
	 * filled up, or that an error took away, gave its open slot back
	 * already, and the file is counted no more. The CLOSE of one that
	 * is, once it succeeds, ends its count (zonefs_zone_clear_open()).
	 * One that cannot be closed keeps its flag and its count, as the
	 * device still has it open, and the file system is read-only
	 * (zonefs_zone_close_explicit()) until remount,rw closes it
	 * (zonefs_close_open_zones()).
	 */
	if (z->z_flags & ZONEFS_ZONE_OPEN) {
		zonefs_zone_close_explicit(inode);
		zonefs_zone_update_active(sb, zonefs_inode_zidx(inode));
	} else {
		atomic_dec(&ZONEFS_SB(sb)->s_wro_seq_files);
	}

unlock:
	zonefs_resync_unlock(inode);
	inode_unlock(inode);
}

static int zonefs_file_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = generic_file_open(inode, file);
	if (ret)
		return ret;

	/* A writer changes the file's times: keep them past its inode. */
	if (file->f_mode & FMODE_WRITE) {
		ret = zonefs_get_attr(inode);
		if (ret)
			return ret;
	}

	if ((file->f_mode & FMODE_WRITE) && zonefs_inode_is_seq(inode))
		return zonefs_seq_file_write_open(inode);

	return 0;
}

static int zonefs_file_release(struct inode *inode, struct file *file)
{
	if ((file->f_mode & FMODE_WRITE) && zonefs_inode_is_seq(inode))
		zonefs_seq_file_write_close(inode);

	return 0;
}

const struct file_operations zonefs_file_operations = {
	.open		= zonefs_file_open,
	.release	= zonefs_file_release,
	.fsync		= zonefs_file_fsync,
	.mmap		= zonefs_file_mmap,
	.llseek		= zonefs_file_llseek,
	.read_iter	= zonefs_file_read_iter,
	.write_iter	= zonefs_file_write_iter,
	.splice_read	= generic_file_splice_read,
	.splice_write	= iter_file_splice_write,
	.iopoll		= iocb_bio_iopoll,
};
