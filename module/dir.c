// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs directories: the root, which holds the "cnv" and "seq" group
 * directories, and the groups, which hold one file per zone (or per run
 * of conventional zones with aggr_cnv). Nothing is created at mount time
 * beyond the root: inodes and dentries are made when a name is looked up,
 * and the VFS may reclaim them at will.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/ctype.h>

#include "zonefs.h"

static const char * const zonefs_group_names[ZONEFS_ZTYPE_MAX] = {
	[ZONEFS_ZTYPE_CNV]	= "cnv",
	[ZONEFS_ZTYPE_SEQ]	= "seq",
};

/* Zone index of the first zone of file @n of group @g. */
static unsigned int zonefs_group_file_zone(struct zonefs_zone_group *g,
					   unsigned int n)
{
	return g->g_map ? g->g_map[n] : g->g_first + n;
}

/* Find the file of group @g whose first zone is @zidx. */
static int zonefs_group_find_zone(struct zonefs_zone_group *g,
				  unsigned int zidx, unsigned int *n)
{
	unsigned int lo = 0, hi = g->g_nr_files;

	if (!g->g_map) {
		if (zidx < g->g_first || zidx - g->g_first >= g->g_nr_files)
			return -ENOENT;
		*n = zidx - g->g_first;
		return 0;
	}

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (g->g_map[mid] == zidx) {
			*n = mid;
			return 0;
		}
		if (g->g_map[mid] < zidx)
			lo = mid + 1;
		else
			hi = mid;
	}

	return -ENOENT;
}

static struct zonefs_zone_group *zonefs_zone_group(struct zonefs_sb_info *sbi,
						   unsigned int zidx)
{
	if (zonefs_zone_is_seq(&sbi->s_zones[zidx]))
		return &sbi->s_groups[ZONEFS_ZTYPE_SEQ];
	return &sbi->s_groups[ZONEFS_ZTYPE_CNV];
}

/*
 * A file name is a decimal number written the one canonical way: digits
 * only, no sign, no leading zero. Any other spelling names nothing.
 */
static int zonefs_name_to_num(const struct qstr *name, u64 *num)
{
	unsigned int i;
	u64 v = 0;

	if (!name->len || (name->name[0] == '0' && name->len > 1))
		return -ENOENT;

	for (i = 0; i < name->len; i++) {
		if (!isdigit(name->name[i]) || v > (U64_MAX - 9) / 10)
			return -ENOENT;
		v = v * 10 + (name->name[i] - '0');
	}
	*num = v;

	return 0;
}

static int zonefs_lookup_file_zone(struct super_block *sb,
				   enum zonefs_ztype ztype,
				   const struct qstr *name, unsigned int *zidx)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct zonefs_zone_group *g = &sbi->s_groups[ztype];
	unsigned int n;
	u64 num;
	int ret;

	ret = zonefs_name_to_num(name, &num);
	if (ret)
		return ret;

	if (!(sbi->s_features & ZONEFS_F_SECT_NAME)) {
		if (num >= g->g_nr_files)
			return -ENOENT;
		*zidx = zonefs_group_file_zone(g, num);
		return 0;
	}

	/* With sect_name, the name is the file's first zone start sector. */
	if (num & ((1ULL << sbi->s_zone_sectors_shift) - 1))
		return -ENOENT;
	num >>= sbi->s_zone_sectors_shift;
	if (num >= sbi->s_nr_zones)
		return -ENOENT;
	ret = zonefs_group_find_zone(g, num, &n);
	if (ret)
		return ret;
	*zidx = num;

	return 0;
}

static void zonefs_dir_init(struct inode *inode)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(inode->i_sb);
	unsigned int i, nr = 0;

	inode->i_mode = S_IFDIR | 0555;
	inode->i_uid = GLOBAL_ROOT_UID;
	inode->i_gid = GLOBAL_ROOT_GID;
	/* A directory has nowhere to keep an access time across reclaim. */
	inode->i_flags |= S_NOATIME;
	inode->i_op = &zonefs_dir_inode_operations;
	inode->i_fop = &zonefs_dir_operations;

	if (inode->i_ino == zonefs_root_ino(sbi)) {
		for (i = 0; i < ZONEFS_ZTYPE_MAX; i++)
			if (sbi->s_groups[i].g_nr_files)
				nr++;
		inode->i_size = nr;
		set_nlink(inode, 2 + nr);
	} else {
		i = inode->i_ino - zonefs_group_ino(sbi, 0);
		inode->i_size = sbi->s_groups[i].g_nr_files;
		set_nlink(inode, 2);
	}
}

/**
 * zonefs_iget() - get the inode of a file or directory
 * @sb:		super block
 * @ino:	inode number: a file's first zone index, or a directory's
 *		(nr_zones for the root, nr_zones + 1 + group for a group)
 *
 * The inode is looked up in the inode cache, and built from the zone
 * array when it is not there.
 *
 * Context: process context.
 * Return: the inode or ERR_PTR(-errno).
 */
struct inode *zonefs_iget(struct super_block *sb, unsigned int ino)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	struct inode *inode;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;

	/* Stable across reclaim: see zonefs_file_init() for files. */
	inode->i_mtime = inode->i_atime = inode->i_ctime = sbi->s_mount_time;
	if (ino >= sbi->s_nr_zones) {
		zonefs_dir_init(inode);
	} else {
		struct zonefs_zone_group *g = zonefs_zone_group(sbi, ino);
		unsigned int n = 0, nzones = 1;

		if (g->g_nzones && !zonefs_group_find_zone(g, ino, &n))
			nzones = g->g_nzones[n];
		zonefs_file_init(inode, nzones);
	}
	unlock_new_inode(inode);

	return inode;
}

static struct dentry *zonefs_lookup(struct inode *dir, struct dentry *dentry,
				    unsigned int flags)
{
	struct super_block *sb = dir->i_sb;
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	const struct qstr *name = &dentry->d_name;
	struct inode *inode = NULL;
	unsigned int i, zidx;

	if (name->len > ZONEFS_NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);

	if (dir->i_ino == zonefs_root_ino(sbi)) {
		for (i = 0; i < ZONEFS_ZTYPE_MAX; i++) {
			if (sbi->s_groups[i].g_nr_files &&
			    name->len == strlen(zonefs_group_names[i]) &&
			    !memcmp(name->name, zonefs_group_names[i],
				    name->len)) {
				inode = zonefs_iget(sb, zonefs_group_ino(sbi, i));
				break;
			}
		}
	} else {
		i = dir->i_ino - zonefs_group_ino(sbi, 0);
		if (!zonefs_lookup_file_zone(sb, i, name, &zidx))
			inode = zonefs_iget(sb, zidx);
	}

	return d_splice_alias(inode, dentry);
}

static int zonefs_readdir_root(struct file *file, struct dir_context *ctx)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(file_inode(file)->i_sb);
	unsigned int i;
	loff_t pos = 2;

	for (i = 0; i < ZONEFS_ZTYPE_MAX; i++) {
		if (!sbi->s_groups[i].g_nr_files)
			continue;
		if (ctx->pos == pos) {
			if (!dir_emit(ctx, zonefs_group_names[i],
				      strlen(zonefs_group_names[i]),
				      zonefs_group_ino(sbi, i), DT_DIR))
				return 0;
			ctx->pos++;
		}
		pos++;
	}

	return 0;
}

static int zonefs_readdir_group(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct zonefs_sb_info *sbi = ZONEFS_SB(dir->i_sb);
	struct zonefs_zone_group *g =
		&sbi->s_groups[dir->i_ino - zonefs_group_ino(sbi, 0)];
	char name[24];
	unsigned int zidx;
	u64 num;
	int len;

	while (ctx->pos - 2 < g->g_nr_files) {
		num = ctx->pos - 2;
		zidx = zonefs_group_file_zone(g, num);
		if (sbi->s_features & ZONEFS_F_SECT_NAME)
			num = zonefs_zone_start(sbi, zidx);
		len = snprintf(name, sizeof(name), "%llu", num);
		if (!dir_emit(ctx, name, len, zidx, DT_REG))
			return 0;
		ctx->pos++;
	}

	return 0;
}

static int zonefs_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);

	if (!dir_emit_dots(file, ctx))
		return 0;

	if (dir->i_ino == zonefs_root_ino(ZONEFS_SB(dir->i_sb)))
		return zonefs_readdir_root(file, ctx);
	return zonefs_readdir_group(file, ctx);
}

/* The namespace is fixed: nothing about a directory can be changed. */
static int zonefs_dir_setattr(struct user_namespace *mnt_userns,
			      struct dentry *dentry, struct iattr *iattr)
{
	return -EPERM;
}

/**
 * zonefs_make_root() - build the root directory
 * @sb:	super block, with the zone groups built
 *
 * Context: mount time.
 * Return: 0 or -errno.
 */
int zonefs_make_root(struct super_block *sb)
{
	struct inode *inode;

	inode = zonefs_iget(sb, zonefs_root_ino(ZONEFS_SB(sb)));
	if (IS_ERR(inode))
		return PTR_ERR(inode);

	sb->s_root = d_make_root(inode);
	if (!sb->s_root)
		return -ENOMEM;

	return 0;
}

/*
 * No create, link, unlink, symlink, mkdir, rmdir, mknod or rename: the VFS
 * answers EPERM for each (EACCES for open(O_CREAT) of a new name).
 */
const struct inode_operations zonefs_dir_inode_operations = {
	.lookup		= zonefs_lookup,
	.setattr	= zonefs_dir_setattr,
};

const struct file_operations zonefs_dir_operations = {
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= zonefs_readdir,
};
