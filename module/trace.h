/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zonefs tracepoints: zone management operations, iomap mappings and write
 * completions. Per-I/O detail goes here rather than to the kernel log.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM zonefs

#if !defined(_ZONEFS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ZONEFS_TRACE_H

#include <linux/tracepoint.h>
#include <linux/trace_seq.h>
#include <linux/blkdev.h>
#include <linux/iomap.h>

#include "zonefs.h"

/*
 * Decoded by trace-cmd and perf as well as by the kernel: the REQ_OP_ZONE_*
 * values are enum constants, which the format file only shows as numbers
 * once they are exported here.
 */
TRACE_DEFINE_ENUM(REQ_OP_ZONE_RESET);
TRACE_DEFINE_ENUM(REQ_OP_ZONE_OPEN);
TRACE_DEFINE_ENUM(REQ_OP_ZONE_CLOSE);
TRACE_DEFINE_ENUM(REQ_OP_ZONE_FINISH);

#define zonefs_show_zone_op(op)					\
	__print_symbolic(op,					\
		{ REQ_OP_ZONE_RESET,	"ZONE_RESET" },		\
		{ REQ_OP_ZONE_OPEN,	"ZONE_OPEN" },		\
		{ REQ_OP_ZONE_CLOSE,	"ZONE_CLOSE" },		\
		{ REQ_OP_ZONE_FINISH,	"ZONE_FINISH" })

#define zonefs_show_iomap_type(type)				\
	__print_symbolic(type,					\
		{ IOMAP_HOLE,		"HOLE" },		\
		{ IOMAP_DELALLOC,	"DELALLOC" },		\
		{ IOMAP_MAPPED,		"MAPPED" },		\
		{ IOMAP_UNWRITTEN,	"UNWRITTEN" },		\
		{ IOMAP_INLINE,		"INLINE" })

TRACE_EVENT(zonefs_zone_mgmt,
	TP_PROTO(struct super_block *sb, unsigned int zidx, enum req_op op,
		 sector_t sector, sector_t nr_sectors),
	TP_ARGS(sb, zidx, op, sector, nr_sectors),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(unsigned int, zidx)
		__field(enum req_op, op)
		__field(sector_t, sector)
		__field(sector_t, nr_sectors)
	),
	TP_fast_assign(
		__entry->dev = sb->s_dev;
		__entry->zidx = zidx;
		__entry->op = op;
		__entry->sector = sector;
		__entry->nr_sectors = nr_sectors;
	),
	TP_printk("bdev=(%d,%d), zone=%u op=%s, sector=%llu, nr_sectors=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->zidx,
		  zonefs_show_zone_op(__entry->op),
		  (unsigned long long)__entry->sector,
		  (unsigned long long)__entry->nr_sectors)
);

TRACE_EVENT(zonefs_iomap_begin,
	TP_PROTO(struct inode *inode, unsigned int flags, struct iomap *iomap),
	TP_ARGS(inode, flags, iomap),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(ino_t, ino)
		__field(unsigned int, flags)
		__field(u16, type)
		__field(u64, addr)
		__field(loff_t, offset)
		__field(u64, length)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->flags = flags;
		__entry->type = iomap->type;
		__entry->addr = iomap->addr;
		__entry->offset = iomap->offset;
		__entry->length = iomap->length;
	),
	TP_printk("bdev=(%d,%d), ino=%lu flags=0x%x type=%s addr=%llu, offset=%lld, length=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long)__entry->ino, __entry->flags,
		  zonefs_show_iomap_type(__entry->type),
		  __entry->addr, __entry->offset, __entry->length)
);

TRACE_EVENT(zonefs_write_end_io,
	TP_PROTO(struct inode *inode, loff_t pos, ssize_t size, int error,
		 loff_t wpoffset),
	TP_ARGS(inode, pos, size, error, wpoffset),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(ino_t, ino)
		__field(loff_t, pos)
		__field(ssize_t, size)
		__field(int, error)
		__field(loff_t, wpoffset)
		__field(loff_t, isize)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->pos = pos;
		__entry->size = size;
		__entry->error = error;
		__entry->wpoffset = wpoffset;
		__entry->isize = i_size_read(inode);
	),
	TP_printk("bdev=(%d,%d), ino=%lu pos=%lld, size=%zd, error=%d, wpoffset=%lld, isize=%lld",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long)__entry->ino, __entry->pos, __entry->size,
		  __entry->error, __entry->wpoffset, __entry->isize)
);

#endif /* _ZONEFS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace

#include <trace/define_trace.h>
