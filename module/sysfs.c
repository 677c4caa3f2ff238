// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs sysfs attributes: /sys/fs/zonefs/<dev>/, one directory per
 * mount, with read-only counters of open and active sequential files.
 */
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/slab.h>

#include "zonefs.h"

/**
 * struct zonefs_sysfs_attr - a read-only zonefs sysfs attribute
 * @attr:	the sysfs attribute
 * @show:	prints the value for one mount
 */
struct zonefs_sysfs_attr {
	struct attribute attr;
	ssize_t (*show)(struct zonefs_sb_info *sbi, char *buf);
};

static struct kobject *zonefs_sysfs_root;

static ssize_t zonefs_max_wro_seq_files_show(struct zonefs_sb_info *sbi,
					     char *buf)
{
	return sysfs_emit(buf, "%u\n", sbi->s_max_wro_seq_files);
}

static ssize_t zonefs_nr_wro_seq_files_show(struct zonefs_sb_info *sbi,
					    char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&sbi->s_wro_seq_files));
}

static ssize_t zonefs_max_active_seq_files_show(struct zonefs_sb_info *sbi,
						char *buf)
{
	return sysfs_emit(buf, "%u\n", sbi->s_max_active_seq_files);
}

static ssize_t zonefs_nr_active_seq_files_show(struct zonefs_sb_info *sbi,
					       char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&sbi->s_active_seq_files));
}

#define ZONEFS_SYSFS_ATTR_RO(_name)				\
static struct zonefs_sysfs_attr zonefs_sysfs_attr_##_name = {	\
	.attr	= { .name = __stringify(_name), .mode = 0444 },	\
	.show	= zonefs_##_name##_show,			\
}

ZONEFS_SYSFS_ATTR_RO(max_wro_seq_files);
ZONEFS_SYSFS_ATTR_RO(nr_wro_seq_files);
ZONEFS_SYSFS_ATTR_RO(max_active_seq_files);
ZONEFS_SYSFS_ATTR_RO(nr_active_seq_files);

static struct attribute *zonefs_sysfs_attrs[] = {
	&zonefs_sysfs_attr_max_wro_seq_files.attr,
	&zonefs_sysfs_attr_nr_wro_seq_files.attr,
	&zonefs_sysfs_attr_max_active_seq_files.attr,
	&zonefs_sysfs_attr_nr_active_seq_files.attr,
	NULL,
};
ATTRIBUTE_GROUPS(zonefs_sysfs);

static ssize_t zonefs_sysfs_attr_show(struct kobject *kobj,
				      struct attribute *attr, char *buf)
{
	struct zonefs_sb_info *sbi =
		container_of(kobj, struct zonefs_sb_info, s_kobj);
	struct zonefs_sysfs_attr *zattr =
		container_of(attr, struct zonefs_sysfs_attr, attr);

	return zattr->show(sbi, buf);
}

static const struct sysfs_ops zonefs_sysfs_ops = {
	.show	= zonefs_sysfs_attr_show,
};

static void zonefs_sysfs_release(struct kobject *kobj)
{
	struct zonefs_sb_info *sbi =
		container_of(kobj, struct zonefs_sb_info, s_kobj);

	complete(&sbi->s_kobj_unregister);
}

static struct kobj_type zonefs_sb_ktype = {
	.default_groups	= zonefs_sysfs_groups,
	.sysfs_ops	= &zonefs_sysfs_ops,
	.release	= zonefs_sysfs_release,
};

/**
 * zonefs_sysfs_register() - create /sys/fs/zonefs/<dev>/
 * @sb:	super block
 *
 * Context: mount time.
 * Return: 0 or -errno.
 */
int zonefs_sysfs_register(struct super_block *sb)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);
	int ret;

	ret = kobject_init_and_add(&sbi->s_kobj, &zonefs_sb_ktype,
				   zonefs_sysfs_root, "%s", sb->s_id);
	if (ret) {
		/* The release callback completes s_kobj_unregister. */
		kobject_put(&sbi->s_kobj);
		wait_for_completion(&sbi->s_kobj_unregister);
		return ret;
	}
	sbi->s_sysfs_registered = true;

	return 0;
}

/**
 * zonefs_sysfs_unregister() - remove /sys/fs/zonefs/<dev>/
 * @sb:	super block, possibly half built
 *
 * Waits until the kobject is released, so that sbi can be freed.
 */
void zonefs_sysfs_unregister(struct super_block *sb)
{
	struct zonefs_sb_info *sbi = ZONEFS_SB(sb);

	if (!sbi || !sbi->s_sysfs_registered)
		return;

	kobject_del(&sbi->s_kobj);
	kobject_put(&sbi->s_kobj);
	wait_for_completion(&sbi->s_kobj_unregister);
	sbi->s_sysfs_registered = false;
}

/**
 * zonefs_sysfs_init() - create /sys/fs/zonefs
 *
 * Return: 0 or -ENOMEM.
 */
int zonefs_sysfs_init(void)
{
	zonefs_sysfs_root = kobject_create_and_add("zonefs", fs_kobj);
	if (!zonefs_sysfs_root)
		return -ENOMEM;

	return 0;
}

/**
 * zonefs_sysfs_exit() - remove /sys/fs/zonefs
 */
void zonefs_sysfs_exit(void)
{
	kobject_put(zonefs_sysfs_root);
	zonefs_sysfs_root = NULL;
}
