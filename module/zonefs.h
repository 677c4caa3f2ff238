/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zonefs: expose the zones of a zoned block device as files.
 *
 * In-memory types shared by the module's files, their accessors, the log
 * macros and the prototypes of every non-static function, grouped by the
 * file that defines them.
 */
#ifndef _ZONEFS_H
#define _ZONEFS_H

#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/uuid.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <linux/kobject.h>
#include <linux/completion.h>
#include <linux/blkdev.h>
#include <linux/workqueue.h>
#include <linux/ratelimit.h>

#include "zonefs_format.h"
#include "zonefs_policy.h"

/* Longest file name: a zone's start sector in decimal fits (bytes). */
#define ZONEFS_NAME_MAX		16


/**
 * struct zonefs_zone - what is kept in memory for each zone of the device
 * @z_wpoff:	write pointer offset in the zone, which is the size of a
 *		sequential zone's file (file system blocks)
 * @z_cond:	zone condition (BLK_ZONE_COND_*) as last reported
 * @z_flags:	ZONEFS_ZONE_* bits
 * @z_wr_refcnt: number of open file descriptions with write access of
 *		the sequential file of the zone (at most U16_MAX)
 *
 * This is the only per-zone record, so it is kept small: 8 bytes per zone,
 * i.e. 600 KB for 75,000 zones. The zone start is the zone index times the
 * zone size and the capacity is shared (zonefs_sb_info.s_zone_cap), so
 * neither is stored. Only when zone capacities differ does a u32 per zone
 * array (zonefs_sb_info.s_zone_caps) add 4 bytes, and only when the files
 * of a group do not map one to one onto contiguous zones does the group's
 * map add 4 bytes per file. Everything else (inodes, dentries) is created
 * on lookup and can be reclaimed; chmod/chown of a file is remembered in
 * zonefs_sb_info.s_attrs, which holds entries for changed files only.
 *
 * Updates to a zone's record are made with its file's i_truncate_mutex
 * held, or at mount time before any file exists.
 */
struct zonefs_zone {
	u32	z_wpoff;
	u8	z_cond;
	u8	z_flags;
	u16	z_wr_refcnt;
};

/**
 * enum zonefs_ztype - file groups, one per sub-directory of the root
 * @ZONEFS_ZTYPE_CNV:	conventional zones, directory "cnv"
 * @ZONEFS_ZTYPE_SEQ:	sequential zones, directory "seq"
 * @ZONEFS_ZTYPE_MAX:	number of groups
 */
enum zonefs_ztype {
	ZONEFS_ZTYPE_CNV,
	ZONEFS_ZTYPE_SEQ,
	ZONEFS_ZTYPE_MAX,
};

/**
 * struct zonefs_zone_group - the files of one sub-directory
 * @g_nr_files:	number of files in the group
 * @g_first:	zone index of file 0, used when @g_map is NULL
 * @g_map:	zone index of each file's first zone, in increasing order, or
 *		NULL when file i is zone @g_first + i
 * @g_nzones:	number of zones of each file (aggr_cnv), or NULL when every
 *		file is one zone
 */
struct zonefs_zone_group {
	unsigned int	g_nr_files;
	unsigned int	g_first;
	u32		*g_map;
	u32		*g_nzones;
};

/**
 * struct zonefs_attr - the state of a file that outlives its inode
 * @a_mode:	file mode (permission bits and file type)
 * @a_uid:	owner
 * @a_gid:	group
 * @a_atime:	access time
 * @a_mtime:	modification time
 * @a_ctime:	change time
 *
 * Only files that were changed since mount (chmod, chown, or opened for
 * write) have one; every other file has the superblock's owner and mode
 * and the mount time.
 */
struct zonefs_attr {
	umode_t			a_mode;
	kuid_t			a_uid;
	kgid_t			a_gid;
	struct timespec64	a_atime;
	struct timespec64	a_mtime;
	struct timespec64	a_ctime;
};


/* Mount option bits (zonefs_sb_info.s_mount_opts). */
#define ZONEFS_MNTOPT_EXPLICIT_OPEN	(1U << 0) /* open zones explicitly */

/**
 * struct zonefs_sb_info - per mount state
 * @s_mount_opts:	ZONEFS_MNTOPT_* bits; a remount changes them and
 *			@s_errors while files are in use: read both with
 *			READ_ONCE()
 * @s_errors:		enum zonefs_errors
 * @s_features:		superblock feature bits (ZONEFS_F_*)
 * @s_uid:		default owner of files
 * @s_gid:		default group of files
 * @s_perm:		default permission bits of files
 * @s_uuid:		volume UUID
 * @s_mount_time:	time of the mount: every inode's timestamps start here
 * @s_zone_sectors_shift: log2 of the zone size (512B sectors)
 * @s_nr_zones:		number of zones of the device
 * @s_zone_cap:		capacity of every zone when @s_zone_caps is NULL
 *			(512B sectors)
 * @s_zone_caps:	capacity of each zone (512B sectors), or NULL
 * @s_zones:		array of @s_nr_zones zone records
 * @s_recovery:		ZONEFS_RECOVERY_NR_BITS bits per zone: the
 *			recovery state of the file starting there
 * @s_recovery_map:	one bit per zone: the file starting there has a
 *			recovery queued on @s_recovery_work, which holds a
 *			reference on its inode
 * @s_recovery_work:	runs the queued recoveries (zonefs_note_error())
 * @s_sb:		the super block
 * @s_groups:		cnv and seq file groups
 * @s_blocks:		sum of the capacities of the files (blocks)
 * @s_used_blocks:	blocks written in sequential files, plus the whole
 *			capacity of conventional files (blocks)
 * @s_max_wro_seq_files: device's max open zones (0: no limit)
 * @s_max_active_seq_files: device's max active zones (0: no limit)
 * @s_wro_seq_files:	sequential files open for write
 * @s_active_seq_files:	sequential zones open or partially written
 * @s_attrs:		zone index -> struct zonefs_attr for files changed
 *			since mount
 * @s_kobj:		sysfs directory /sys/fs/zonefs/<dev>
 * @s_kobj_unregister:	completed when @s_kobj is released
 * @s_sysfs_registered:	@s_kobj was added
 * @s_msg_ratelimit:	the mount's own limit on its rate-limited kernel
 *			messages, so that one device's flood of errors hides
 *			no other device's
 */
struct zonefs_sb_info {
	unsigned int		s_mount_opts;
	enum zonefs_errors	s_errors;
	u64			s_features;
	kuid_t			s_uid;
	kgid_t			s_gid;
	umode_t			s_perm;
	uuid_t			s_uuid;
	struct timespec64	s_mount_time;

	unsigned int		s_zone_sectors_shift;
	unsigned int		s_nr_zones;
	u32			s_zone_cap;
	u32			*s_zone_caps;
	struct zonefs_zone	*s_zones;
	struct zonefs_zone_group s_groups[ZONEFS_ZTYPE_MAX];
	unsigned long		*s_recovery;
	unsigned long		*s_recovery_map;
	struct work_struct	s_recovery_work;
	struct super_block	*s_sb;

	u64			s_blocks;
	atomic64_t		s_used_blocks;

	unsigned int		s_max_wro_seq_files;
	unsigned int		s_max_active_seq_files;
	atomic_t		s_wro_seq_files;
	atomic_t		s_active_seq_files;

	struct xarray		s_attrs;

	struct kobject		s_kobj;
	struct completion	s_kobj_unregister;
	bool			s_sysfs_registered;

	struct ratelimit_state	s_msg_ratelimit;
};

/*
 * Recovery state of a file (zonefs_sb_info.s_recovery, bits
 * zonefs_recovery_bit()), set from I/O completion in any context,
 * consumed in process context. It is kept per zone rather than in the
 * inode, whose size decides how many fit in a slab.
 *
 * ZONEFS_RECOVERY_PENDING: an I/O failed; the file must be brought back in
 * line with its zone before the next write.
 * ZONEFS_RECOVERY_DEVICE, _NO_WRITE, _LOCAL: the kinds of failure seen
 * (enum zonefs_error).
 * ZONEFS_RECOVERY_REFUSED_OPEN, _ACTIVE: the device refused a write
 * request for want of open (BLK_STS_ZONE_OPEN_RESOURCE) or active zones
 * (BLK_STS_ZONE_ACTIVE_RESOURCE): the write requests of the file that
 * fail after it, until the recovery, failed because of it.
 * ZONEFS_RECOVERY_STALE_CACHE: the zone changed behind the page cache;
 * zonefs_resync_unlock() drops the file's pages.
 * ZONEFS_RECOVERY_QUEUED: the file's recovery is queued on the mount's work
 * (zonefs_note_error()), which holds a reference on its inode; set before
 * that reference is taken, and before the file's bit in s_recovery_map,
 * which the work looks for.
 */
#define ZONEFS_RECOVERY_PENDING		0
#define ZONEFS_RECOVERY_DEVICE		1
#define ZONEFS_RECOVERY_NO_WRITE	2
#define ZONEFS_RECOVERY_LOCAL		3
#define ZONEFS_RECOVERY_REFUSED_OPEN	4
#define ZONEFS_RECOVERY_REFUSED_ACTIVE	5
#define ZONEFS_RECOVERY_STALE_CACHE	6
#define ZONEFS_RECOVERY_QUEUED		7
#define ZONEFS_RECOVERY_NR_BITS		8

/**
 * struct zonefs_inode_info - in-memory inode of a zonefs file or directory
 * @i_vnode:		the VFS inode. A file's inode number is the index of
 *			its first zone (zonefs_inode_zidx()), and its
 *			i_blocks, set once, its capacity
 *			(zonefs_inode_max_size())
 * @i_wpoffset:		write pointer of a sequential file as issued: the
 *			end of the last write submitted. It is at or above
 *			i_size, above it while writes are in flight (bytes)
 * @i_truncate_mutex:	serializes changes of @i_wpoffset, i_size and the
 *			zone record
 *
 * Everything else of a file is in its zone record and the super block:
 * 672 bytes on Debian's 6.1 kernel, 24 in a 16 KiB slab.
 *
 * Lock order: inode->i_rwsem, then mapping->invalidate_lock, then
 * i_truncate_mutex.
 */
struct zonefs_inode_info {
	struct inode		i_vnode;
	loff_t			i_wpoffset;
	struct mutex		i_truncate_mutex;
};

static inline struct zonefs_sb_info *ZONEFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct zonefs_inode_info *ZONEFS_I(struct inode *inode)
{
	return container_of(inode, struct zonefs_inode_info, i_vnode);
}

/* Index of a file's first zone. */
static inline unsigned int zonefs_inode_zidx(struct inode *inode)
{
	return inode->i_ino;
}

/* Capacity of a file (bytes). */
static inline loff_t zonefs_inode_max_size(struct inode *inode)
{
	return (loff_t)inode->i_blocks << SECTOR_SHIFT;
}

/* The zone record of a file's first zone. */
static inline struct zonefs_zone *zonefs_inode_zone(struct inode *inode)
{
	return &ZONEFS_SB(inode->i_sb)->s_zones[zonefs_inode_zidx(inode)];
}

/* Index in zonefs_sb_info.s_recovery of bit @bit of a file's state. */
static inline unsigned long zonefs_recovery_bit(struct inode *inode,
						unsigned int bit)
{
	return (unsigned long)zonefs_inode_zidx(inode) *
	       ZONEFS_RECOVERY_NR_BITS + bit;
}

static inline bool zonefs_recovery_test(struct inode *inode, unsigned int bit)
{
	return test_bit(zonefs_recovery_bit(inode, bit),
			ZONEFS_SB(inode->i_sb)->s_recovery);
}

static inline void zonefs_recovery_set(struct inode *inode, unsigned int bit)
{
	set_bit(zonefs_recovery_bit(inode, bit),
		ZONEFS_SB(inode->i_sb)->s_recovery);
}

static inline bool zonefs_recovery_test_and_clear(struct inode *inode,
						  unsigned int bit)
{
	return test_and_clear_bit(zonefs_recovery_bit(inode, bit),
				  ZONEFS_SB(inode->i_sb)->s_recovery);
}

/* Whether an I/O of the file failed and its recovery has not run yet. */
static inline bool zonefs_recovery_pending(struct inode *inode)
{
	return zonefs_recovery_test(inode, ZONEFS_RECOVERY_PENDING);
}

/*
 * The permission bits that a zone's condition takes from its file's mode,
 * for good: all of them for an offline zone, and for a zone that was
 * read-only at mount (its write pointer means nothing, so neither does
 * its data); the write bits for a zone that went read-only.
 */
static inline umode_t zonefs_zone_taken_bits(u8 z_flags)
{
	if (z_flags & (ZONEFS_ZONE_OFFLINE | ZONEFS_ZONE_RO_MOUNT))
		return 0777;
	if (z_flags & ZONEFS_ZONE_READONLY)
		return 0222;
	return 0;
}

static inline bool zonefs_zone_is_seq(const struct zonefs_zone *z)
{
	return z->z_flags & ZONEFS_ZONE_SEQ;
}

static inline bool zonefs_inode_is_seq(struct inode *inode)
{
	return zonefs_zone_is_seq(zonefs_inode_zone(inode));
}

/*
 * Whether the device's request queue has an I/O scheduler. Only a
 * scheduler with the zoned sequential-write feature (mq-deadline) delivers
 * the writes queued to one zone in the order they were issued. On 6.1
 * only SCSI disks and null_blk require one: an NVMe ZNS namespace on a
 * controller with several queues starts with none, and the user may set
 * none anywhere. kyber and bfq do not order zone writes either, but cannot
 * be told from mq-deadline here.
 */
static inline bool zonefs_bdev_has_elevator(struct block_device *bdev)
{
	return READ_ONCE(bdev_get_queue(bdev)->elevator) != NULL;
}

/*
 * The device's answers to a write or a zone command for want of open or
 * active zones. The device refused the command and changed nothing: the
 * caller gets the errno, and no errors= policy applies.
 */
static inline bool zonefs_error_is_resource(int error)
{
	return error == -ETOOMANYREFS || error == -EOVERFLOW;
}

/*
 * The evidence that the device failed a command this module sent: the
 * status the driver completed it with (bi_status). Only these apply the
 * errors= policy: the medium, the target or the transport failed, the
 * command timed out, or the device went offline. Every other status is not
 * the device failing what it was told: a command the block layer did not
 * send for want of memory or tags (RESOURCE, DEV_RESOURCE, AGAIN), one it
 * refused (NOTSUPP, NOSPC), or the zone resource answers. An errno that
 * did not come from a completion status (a signal while pinning user
 * pages, a bad buffer, a stale page cache) is never evidence.
 */
static inline bool zonefs_status_is_device(blk_status_t status)
{
	switch (status) {
	case BLK_STS_TIMEOUT:
	case BLK_STS_TRANSPORT:
	case BLK_STS_TARGET:
	case BLK_STS_NEXUS:
	case BLK_STS_MEDIUM:
	case BLK_STS_PROTECTION:
	case BLK_STS_IOERR:
	case BLK_STS_OFFLINE:
		return true;
	default:
		return false;
	}
}

/*
 * The same evidence, for a command whose status the block layer gives back
 * as an errno (blk_status_to_errno()): a zone command or a zone report.
 */
static inline bool zonefs_errno_is_device(int error)
{
	switch (error) {
	case -ETIMEDOUT:
	case -ENOLINK:
	case -EREMOTEIO:
	case -EBADE:
	case -ENODATA:
	case -EILSEQ:
	case -EIO:
	case -ENODEV:
		return true;
	default:
		return false;
	}
}

/* Start sector of zone @zidx. */
static inline sector_t zonefs_zone_start(struct zonefs_sb_info *sbi,
					 unsigned int zidx)
{
	return (sector_t)zidx << sbi->s_zone_sectors_shift;
}

/* Capacity of zone @zidx (512B sectors). */
static inline sector_t zonefs_zone_cap(struct zonefs_sb_info *sbi,
				       unsigned int zidx)
{
	if (sbi->s_zone_caps)
		return sbi->s_zone_caps[zidx];
	return sbi->s_zone_cap;
}

static inline unsigned int zonefs_root_ino(struct zonefs_sb_info *sbi)
{
	return sbi->s_nr_zones;
}

static inline unsigned int zonefs_group_ino(struct zonefs_sb_info *sbi,
					    enum zonefs_ztype ztype)
{
	return sbi->s_nr_zones + 1 + ztype;
}

/*
 * The tags of Linux's own zonefs ("zonefs (sdX) ERROR: ", "WARNING: "), so
 * that the same log rules match the messages of both modules.
 */
#define zonefs_err(sb, fmt, args...) \
	printk(KERN_ERR "zonefs (%s) ERROR: " fmt, (sb)->s_id, ##args)
#define zonefs_warn(sb, fmt, args...) \
	printk(KERN_WARNING "zonefs (%s) WARNING: " fmt, (sb)->s_id, ##args)
#define zonefs_info(sb, fmt, args...) \
	printk(KERN_INFO "zonefs (%s): " fmt, (sb)->s_id, ##args)
#define zonefs_err_ratelimited(sb, fmt, args...)			\
	do {								\
		if (__ratelimit(&ZONEFS_SB(sb)->s_msg_ratelimit))	\
			zonefs_err(sb, fmt, ##args);			\
	} while (0)
#define zonefs_warn_ratelimited(sb, fmt, args...)			\
	do {								\
		if (__ratelimit(&ZONEFS_SB(sb)->s_msg_ratelimit))	\
			zonefs_warn(sb, fmt, ##args);			\
	} while (0)

/* dir.c */
struct inode *zonefs_iget(struct super_block *sb, unsigned int ino);
int zonefs_make_root(struct super_block *sb);
extern const struct inode_operations zonefs_dir_inode_operations;
extern const struct file_operations zonefs_dir_operations;

/* file.c */
void zonefs_file_init(struct inode *inode, unsigned int nzones);
void zonefs_file_save_attr(struct inode *inode);
extern const struct inode_operations zonefs_file_inode_operations;
extern const struct file_operations zonefs_file_operations;
extern const struct address_space_operations zonefs_file_aops;
int zonefs_dio_init(void);
void zonefs_dio_exit(void);

/* zone.c */
int zonefs_init_zones(struct super_block *sb);
void zonefs_free_zones(struct zonefs_sb_info *sbi);
void zonefs_close_open_zones(struct super_block *sb, bool send);
int zonefs_rescan_open_zones(struct super_block *sb);
int zonefs_report_zone(struct inode *inode, struct blk_zone *zone);
void zonefs_report_failed(struct inode *inode, int error);
int zonefs_zone_mgmt_idx(struct super_block *sb, unsigned int zidx,
			 enum req_op op);
int zonefs_zone_mgmt(struct inode *inode, enum req_op op);
void zonefs_zone_set_wpoff(struct inode *inode, loff_t size);
void zonefs_zone_set_flags(struct inode *inode, u8 flags);
void zonefs_zone_clear_open(struct super_block *sb, struct zonefs_zone *z);
bool zonefs_cond_is_active(u8 cond);
void zonefs_zone_update_active(struct super_block *sb, unsigned int zidx);
int zonefs_zone_open_explicit(struct inode *inode);
void zonefs_zone_close_explicit(struct inode *inode);

/* recovery.c */
void zonefs_remount_ro(struct super_block *sb, const char *why,
		       unsigned int zidx);
void zonefs_zone_resync(struct inode *inode, enum zonefs_error err);
void zonefs_note_error(struct inode *inode, enum zonefs_error err, bool issuer);
void zonefs_recover(struct inode *inode, enum zonefs_error err);
void zonefs_resync_unlock(struct inode *inode);
void zonefs_recovery_work(struct work_struct *work);
void zonefs_recovery_flush(struct super_block *sb);
int zonefs_recovery_init(void);
void zonefs_recovery_exit(void);

/* sysfs.c */
int zonefs_sysfs_register(struct super_block *sb);
void zonefs_sysfs_unregister(struct super_block *sb);
int zonefs_sysfs_init(void);
void zonefs_sysfs_exit(void);

/* zone.c, visible to the KUnit suite (zonefs_test.c) only. */
#if IS_ENABLED(CONFIG_KUNIT)
int zonefs_init_zone_cb(struct blk_zone *zone, unsigned int idx, void *data);
int zonefs_init_group(struct super_block *sb, enum zonefs_ztype ztype);
#endif

#endif /* _ZONEFS_H */
