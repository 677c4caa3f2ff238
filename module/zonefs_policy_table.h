/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle of the errors= decisions (policy.c), written out by hand from
 * the rules of docs/behaviour.md ("Errors") and zonefs(5) ("I/O ERRORS"):
 * one table, checked by the module's KUnit suite (zonefs_test.c) on the
 * debug kernel and by tests/unit/zonefs_policy_test.c on the host in every
 * make check.
 */
#ifndef _ZONEFS_POLICY_TABLE_H
#define _ZONEFS_POLICY_TABLE_H

#include "zonefs_policy.h"

/*
 * The rules as rows, for a file of 8 KiB whose zone's write pointer is
 * found at 4 KiB (below), at 8 KiB or at 16 KiB (above): an oracle that
 * does not share the rule's shape with the implementation, as the KUnit
 * suite's loop over every case does.
 */
struct zonefs_test_policy_row {
	enum zonefs_errors	mode;
	u8			cond;
	u8			zflags;
	loff_t			dsize;
	loff_t			size;
	u8			take_away;
	bool			remount_ro;
};

#define ZT_RO		ZONEFS_ERRORS_RO
#define ZT_ZRO		ZONEFS_ERRORS_ZONE_RO
#define ZT_ZOFF		ZONEFS_ERRORS_ZONE_OFFLINE
#define ZT_REPAIR	ZONEFS_ERRORS_REPAIR
#define ZT_OPEN		BLK_ZONE_COND_IMP_OPEN
#define ZT_CROFF	BLK_ZONE_COND_OFFLINE
#define ZT_CRO		BLK_ZONE_COND_READONLY
#define ZT_FOFF		ZONEFS_ZONE_OFFLINE
#define ZT_FRO		ZONEFS_ZONE_READONLY

static const struct zonefs_test_policy_row zonefs_test_policy_rows[] = {
	/* remount-ro: the size never grows, never stays above the device. */
	{ ZT_RO,	ZT_OPEN,  0,	   16384, 8192,  0,	   true },
	{ ZT_RO,	ZT_OPEN,  0,	    8192, 8192,  0,	   true },
	{ ZT_RO,	ZT_OPEN,  0,	    4096, 4096,  0,	   true },
	{ ZT_RO,	BLK_ZONE_COND_FULL, 0, 16384, 8192, 0,	   true },
	/* zone-ro: the file loses its write bits, once. */
	{ ZT_ZRO,	ZT_OPEN,  0,	   16384, 8192,  ZT_FRO,  false },
	{ ZT_ZRO,	ZT_OPEN,  0,	    4096, 4096,  ZT_FRO,  false },
	{ ZT_ZRO,	ZT_OPEN,  ZT_FRO,   4096, 4096,  0,	   false },
	/* zone-offline: nothing is left. */
	{ ZT_ZOFF,	ZT_OPEN,  0,	   16384, 0,	 ZT_FOFF, false },
	{ ZT_ZOFF,	ZT_OPEN,  0,	    4096, 0,	 ZT_FOFF, false },
	{ ZT_ZOFF,	ZT_OPEN,  ZT_FOFF,  4096, 0,	 0,	   false },
	/* repair: the device's write pointer, above or below. */
	{ ZT_REPAIR,	ZT_OPEN,  0,	   16384, 16384, 0,	   false },
	{ ZT_REPAIR,	ZT_OPEN,  0,	    4096, 4096,  0,	   false },
	/* A zone gone bad wins over the mode; offline over read-only. */
	{ ZT_REPAIR,	ZT_CROFF, 0,	   16384, 0,	 ZT_FOFF, false },
	{ ZT_REPAIR,	ZT_CRO,	  0,	   16384, 8192,  ZT_FRO,  false },
	{ ZT_RO,	ZT_CROFF, 0,	    8192, 0,	 ZT_FOFF, true },
	{ ZT_RO,	ZT_CRO,	  0,	    4096, 4096,  ZT_FRO,  true },
	{ ZT_ZRO,	ZT_CROFF, ZT_FRO,   8192, 0,	 ZT_FOFF, false },
	{ ZT_ZOFF,	ZT_CRO,	  0,	    8192, 0,	 ZT_FOFF, false },
};

/*
 * Whether an error is the device failing (zonefs_error_is_device()), for
 * a sequential file of 8 KiB that has issued writes up to 16 KiB, with the
 * device's write pointer at @dsize: the rows say when errors= applies.
 */
struct zonefs_test_device_row {
	enum zonefs_error	err;
	bool			seq;
	loff_t			dsize;
	bool			device;
};

static const struct zonefs_test_device_row zonefs_test_device_rows[] = {
	/* Nothing failed: only a look at the zone. */
	{ ZONEFS_ERR_NONE,	true,	4096,	false },
	{ ZONEFS_ERR_NONE,	true,	32768,	false },
	/* The device failed a write: always. */
	{ ZONEFS_ERR_DEVICE,	true,	8192,	true },
	{ ZONEFS_ERR_DEVICE,	false,	8192,	true },
	/* A read failed: only if the write pointer moved. */
	{ ZONEFS_ERR_NO_WRITE,	true,	8192,	false },
	{ ZONEFS_ERR_NO_WRITE,	true,	4096,	true },
	{ ZONEFS_ERR_NO_WRITE,	true,	12288,	true },
	{ ZONEFS_ERR_NO_WRITE,	false,	0,	false },
	/* A local failure: the file's own writes, between size and issued. */
	{ ZONEFS_ERR_LOCAL,	true,	8192,	false },
	{ ZONEFS_ERR_LOCAL,	true,	12288,	false },
	{ ZONEFS_ERR_LOCAL,	true,	16384,	false },
	{ ZONEFS_ERR_LOCAL,	true,	20480,	true },
	{ ZONEFS_ERR_LOCAL,	true,	4096,	true },
	{ ZONEFS_ERR_LOCAL,	false,	0,	false },
};

#endif /* _ZONEFS_POLICY_TABLE_H */
