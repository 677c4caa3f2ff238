// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs: a file system that exposes each zone of a zoned block device as
 * a file. Super block handling: mount options (fs_context), superblock
 * validation, fill_super/kill_sb, statfs, show_options and the module's
 * init and exit.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/seq_file.h>
#include <linux/statfs.h>
#include <linux/crc32.h>
#include <linux/bio.h>
#include <linux/writeback.h>

#include "zonefs.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static struct kmem_cache *zonefs_inode_cachep;

/**
 * struct zonefs_context - mount options being parsed
 * @c_mount_opts:	ZONEFS_MNTOPT_* bits
 * @c_errors:		enum zonefs_errors
 */
struct zonefs_context {
	unsigned int		c_mount_opts;
	enum zonefs_errors	c_errors;
};

static struct inode *zonefs_alloc_inode(struct super_block *sb)
{
	struct zonefs_inode_info *zi;

	zi = alloc_inode_sb(sb, zonefs_inode_cachep, GFP_KERNEL);
	if (!zi)
		return NULL;

	zi->i_wpoffset = 0;

	return &zi->i_vnode;
}

/* A file's mode, owner and times outlive its inode (zonefs_file_save_attr). */
static void zonefs_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (inode->i_ino < ZONEFS_SB(inode->i_sb)->s_nr_zones)
		zonefs_file_save_attr(inode);
}

static void zonefs_free_inode(struct inode *inode)
{
	kmem_cache_free(zonefs_inode_cachep, ZONEFS_I(inode));
}

static int zonefs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct super_block *sb = dentry->d_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	u64 used = atomic64_read(&sbi->s_used_blocks);
	unsigned int i;

	buf->f_type = ZONEFS_MAGIC;
	buf->f_bsize = sb->s_blocksize;
	buf->f_namelen = ZONEFS_NAME_MAX;
	buf->f_blocks = sbi->s_blocks;
	buf->f_bfree = used < sbi->s_blocks ? sbi->s_blocks - used : 0;
	buf->f_bavail = buf->f_bfree;

	/* Each group's files and its directory; the root is not counted. */
	buf->f_files = 0;
	for (i = 0; i < ZONEFS_ZTYPE_MAX; i++)
		if (sbi->s_groups[i].g_nr_files)
			buf->f_files += 1 + sbi->s_groups[i].g_nr_files;
	buf->f_ffree = 0;
	buf->f_fsid = uuid_to_fsid(sbi->s_uuid.b);

	return 0;
}

static const char *zonefs_errors_name(enum zonefs_errors errors)
{
	switch (errors) {
	case ZONEFS_ERRORS_ZONE_RO:
		return "zone-ro";
	case ZONEFS_ERRORS_ZONE_OFFLINE:
		return "zone-offline";
	case ZONEFS_ERRORS_REPAIR:
		return "repair";
	default:
		return "remount-ro";
	}
}

static int zonefs_show_options(struct seq_file *seq, struct dentry *root)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(root->d_sb);
	enum zonefs_errors errors = READ_ONCE(sbi->s_errors);

	if (errors != ZONEFS_ERRORS_RO)
		seq_printf(seq, ",errors=%s", zonefs_errors_name(errors));
	if (READ_ONCE(sbi->s_mount_opts) & ZONEFS_MNTOPT_EXPLICIT_OPEN)
		seq_puts(seq, ",explicit-open");

	return 0;
}

static const struct super_operations zonefs_sops = {
	.alloc_inode	= zonefs_alloc_inode,
	.free_inode	= zonefs_free_inode,
	.evict_inode	= zonefs_evict_inode,
	.statfs		= zonefs_statfs,
	.show_options	= zonefs_show_options,
};

/*
 * Check the superblock read from the device and take its settings. Every
 * refusal says why in one line and fails the mount with EINVAL.
 */
static int zonefs_check_super(struct super_block *sb,
			      struct zonefs_super *super)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	u32 stored_crc, crc;
	u64 features;
	unsigned int i;

	if (le32_to_cpu(super->s_magic) != ZONEFS_MAGIC) {
		zonefs_err(sb, "invalid magic 0x%08x\n",
			   le32_to_cpu(super->s_magic));
		return -EINVAL;
	}

	stored_crc = le32_to_cpu(super->s_crc);
	super->s_crc = 0;
	crc = crc32(~0U, (unsigned char *)super, ZONEFS_SUPER_SIZE);
	if (crc != stored_crc) {
		zonefs_err(sb, "invalid checksum (0x%08x, expected 0x%08x)\n",
			   stored_crc, crc);
		return -EINVAL;
	}

	features = le64_to_cpu(super->s_features);
	if (features & ~ZONEFS_F_DEFINED_FEATURES) {
		zonefs_err(sb, "unknown features 0x%llx\n",
			   features & ~ZONEFS_F_DEFINED_FEATURES);
		return -EINVAL;
	}

	for (i = 0; i < ZONEFS_SUPER_RESERVED; i++) {
		if (super->s_reserved[i]) {
			zonefs_err(sb, "reserved byte %u is not zero\n", i);
			return -EINVAL;
		}
	}

	sbi->s_features = features;
	sbi->s_uid = make_kuid(&init_user_ns, ZONEFS_DEF_UID);
	sbi->s_gid = make_kgid(&init_user_ns, ZONEFS_DEF_GID);
	sbi->s_perm = ZONEFS_DEF_PERM;

	if (features & ZONEFS_F_UID) {
		sbi->s_uid = make_kuid(&init_user_ns,
				       le32_to_cpu(super->s_uid));
		if (!uid_valid(sbi->s_uid)) {
			zonefs_err(sb, "invalid uid %u\n",
				   le32_to_cpu(super->s_uid));
			return -EINVAL;
		}
	}
	if (features & ZONEFS_F_GID) {
		sbi->s_gid = make_kgid(&init_user_ns,
				       le32_to_cpu(super->s_gid));
		if (!gid_valid(sbi->s_gid)) {
			zonefs_err(sb, "invalid gid %u\n",
				   le32_to_cpu(super->s_gid));
			return -EINVAL;
		}
	}
	if (features & ZONEFS_F_PERM)
		sbi->s_perm = le32_to_cpu(super->s_perm) & 0777;

	import_uuid(&sbi->s_uuid, super->s_uuid);

	return 0;
}

/* Read the superblock from the first block of zone 0, and check it. */
static int zonefs_read_super(struct super_block *sb)
{
	struct bio_vec bvec;
	struct page *page;
	struct bio bio;
	int ret;

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;

	bio_init(&bio, sb->s_bdev, &bvec, 1, REQ_OP_READ);
	bio.bi_iter.bi_sector = ZONEFS_SUPER_OFFSET >> SECTOR_SHIFT;
	__bio_add_page(&bio, page, ZONEFS_SUPER_SIZE, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	if (ret) {
		zonefs_err(sb, "superblock read failed (%d)\n", ret);
		goto free_page;
	}

	ret = zonefs_check_super(sb, page_address(page));

free_page:
	__free_page(page);
	return ret;
}

static int zonefs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct zonefs_context *ctx = fc->fs_private;
	struct block_device *bdev = sb->s_bdev;
	struct zonefs_sb_info *sbi;
	unsigned int bsize;
	int ret;

	if (!bdev_is_zoned(bdev)) {
		zonefs_err(sb, "not a zoned block device\n");
		return -EINVAL;
	}

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sb->s_fs_info = sbi;
	sbi->s_sb = sb;
	INIT_WORK(&sbi->s_recovery_work, zonefs_recovery_work);
	sbi->s_mount_opts = ctx->c_mount_opts;
	sbi->s_errors = ctx->c_errors;
	xa_init(&sbi->s_attrs);
	atomic64_set(&sbi->s_used_blocks, 0);
	atomic_set(&sbi->s_wro_seq_files, 0);
	atomic_set(&sbi->s_active_seq_files, 0);
	init_completion(&sbi->s_kobj_unregister);
	ratelimit_state_init(&sbi->s_msg_ratelimit, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
	sbi->s_max_wro_seq_files = bdev_max_open_zones(bdev);
	sbi->s_max_active_seq_files = bdev_max_active_zones(bdev);
	ktime_get_coarse_real_ts64(&sbi->s_mount_time);

	sb->s_magic = ZONEFS_MAGIC;
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_op = &zonefs_sops;
	sb->s_time_gran = 1;

	/*
	 * The block size is the zone write granularity: the smallest unit a
	 * sequential zone accepts, which is the physical block size.
	 */
	bsize = max(bdev_zone_write_granularity(bdev),
		    bdev_physical_block_size(bdev));
	if (!sb_set_blocksize(sb, bsize)) {
		zonefs_err(sb, "unsupported block size %u\n", bsize);
		return -EINVAL;
	}

	ret = zonefs_read_super(sb);
	if (ret)
		return ret;

	ret = zonefs_init_zones(sb);
	if (ret)
		return ret;

	zonefs_close_open_zones(sb, !sb_rdonly(sb));

	if (!zonefs_bdev_has_elevator(bdev))
		zonefs_info(sb, "the I/O scheduler does not order zone writes: direct writes to a sequential file are sent one request at a time%s\n",
			    queue_is_mq(bdev_get_queue(bdev)) ?
			    " (mq-deadline would queue them)" : "");

	ret = zonefs_make_root(sb);
	if (ret)
		return ret;

	return zonefs_sysfs_register(sb);
}

static int zonefs_get_tree(struct fs_context *fc)
{
	return get_tree_bdev(fc, zonefs_fill_super);
}

static int zonefs_reconfigure(struct fs_context *fc)
{
	struct zonefs_context *ctx = fc->fs_private;
	struct super_block *sb = fc->root->d_sb;
	int ret;

	sync_filesystem(sb);
	/*
	 * Read-write again: the zone work a read-only mount, or the file
	 * system made read-only, did not do is done now, on the zones as
	 * the device has them, so that the device's open and active zones
	 * are what a read-write mount leaves.
	 */
	if ((fc->sb_flags_mask & SB_RDONLY) && !(fc->sb_flags & SB_RDONLY) &&
	    sb_rdonly(sb)) {
		ret = zonefs_rescan_open_zones(sb);
		if (ret)
			return ret;
		zonefs_close_open_zones(sb, true);
	}
	WRITE_ONCE(ZONEFS_SB(sb)->s_mount_opts, ctx->c_mount_opts);
	WRITE_ONCE(ZONEFS_SB(sb)->s_errors, ctx->c_errors);

	return 0;
}

enum {
	ZONEFS_OPT_ERRORS,
	ZONEFS_OPT_EXPLICIT_OPEN,
};

static const struct constant_table zonefs_param_errors[] = {
	{ "remount-ro",		ZONEFS_ERRORS_RO },
	{ "zone-ro",		ZONEFS_ERRORS_ZONE_RO },
	{ "zone-offline",	ZONEFS_ERRORS_ZONE_OFFLINE },
	{ "repair",		ZONEFS_ERRORS_REPAIR },
	{}
};

static const struct fs_parameter_spec zonefs_param_spec[] = {
	fsparam_enum("errors", ZONEFS_OPT_ERRORS, zonefs_param_errors),
	fsparam_flag("explicit-open", ZONEFS_OPT_EXPLICIT_OPEN),
	{}
};

static int zonefs_parse_param(struct fs_context *fc,
			      struct fs_parameter *param)
{
	struct zonefs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, zonefs_param_spec, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case ZONEFS_OPT_ERRORS:
		ctx->c_errors = result.uint_32;
		break;
	case ZONEFS_OPT_EXPLICIT_OPEN:
		ctx->c_mount_opts |= ZONEFS_MNTOPT_EXPLICIT_OPEN;
		break;
	default:
		return -EINVAL;
	}

	return 0;
}

static void zonefs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations zonefs_context_ops = {
	.parse_param	= zonefs_parse_param,
	.get_tree	= zonefs_get_tree,
	.reconfigure	= zonefs_reconfigure,
	.free		= zonefs_free_fc,
};

static int zonefs_init_fs_context(struct fs_context *fc)
{
	struct zonefs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->c_mount_opts = 0;
	ctx->c_errors = ZONEFS_ERRORS_RO;
	fc->fs_private = ctx;
	fc->ops = &zonefs_context_ops;

	return 0;
}

static void zonefs_free_attrs(struct zonefs_sb_info *sbi)
{
	struct zonefs_attr *attr;
	unsigned long index;

	xa_for_each(&sbi->s_attrs, index, attr)
		kfree(attr);
	xa_destroy(&sbi->s_attrs);
}

/*
 * Called after fill_super failed too: everything here copes with a half
 * built super block.
 */
static void zonefs_kill_sb(struct super_block *sb)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);

	if (sbi)
		zonefs_sysfs_unregister(sb);

	/* A queued recovery holds an inode: let it run first. */
	if (sbi)
		zonefs_recovery_flush(sb);
	kill_block_super(sb);

	if (sbi) {
		zonefs_free_attrs(sbi);
		zonefs_free_zones(sbi);
		kfree(sbi);
	}
}

static struct file_system_type zonefs_type = {
	.owner			= THIS_MODULE,
	.name			= "zonefs",
	.init_fs_context	= zonefs_init_fs_context,
	.parameters		= zonefs_param_spec,
	.kill_sb		= zonefs_kill_sb,
	.fs_flags		= FS_REQUIRES_DEV,
};

static void zonefs_inode_init_once(void *obj)
{
	struct zonefs_inode_info *zi = obj;

	inode_init_once(&zi->i_vnode);
	mutex_init(&zi->i_truncate_mutex);
}

static int __init zonefs_init(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct zonefs_super) != ZONEFS_SUPER_SIZE);
	BUILD_BUG_ON(sizeof(struct zonefs_zone) != 8);

	zonefs_inode_cachep = kmem_cache_create("zonefs_inode_cache",
					sizeof(struct zonefs_inode_info), 0,
					SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					zonefs_inode_init_once);
	if (!zonefs_inode_cachep)
		return -ENOMEM;

	ret = zonefs_recovery_init();
	if (ret)
		goto destroy_inodecache;

	ret = zonefs_dio_init();
	if (ret)
		goto recovery_exit;

	ret = zonefs_sysfs_init();
	if (ret)
		goto dio_exit;

	ret = register_filesystem(&zonefs_type);
	if (ret)
		goto sysfs_exit;

	return 0;

sysfs_exit:
	zonefs_sysfs_exit();
dio_exit:
	zonefs_dio_exit();
recovery_exit:
	zonefs_recovery_exit();
destroy_inodecache:
	kmem_cache_destroy(zonefs_inode_cachep);
	return ret;
}

static void __exit zonefs_exit(void)
{
	unregister_filesystem(&zonefs_type);
	zonefs_sysfs_exit();
	zonefs_dio_exit();
	zonefs_recovery_exit();
	/* Inodes are freed after an RCU grace period: wait for them. */
	rcu_barrier();
	kmem_cache_destroy(zonefs_inode_cachep);
}

module_init(zonefs_init);
module_exit(zonefs_exit);

MODULE_DESCRIPTION("Zone file system for zoned block devices");
MODULE_LICENSE("GPL");
MODULE_ALIAS_FS("zonefs");
MODULE_VERSION(ZONEFS_VERSION);
