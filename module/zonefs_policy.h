/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zonefs: what an I/O error does to a file, as a decision alone. The
 * types and the two functions of policy.c need no kernel state, so that
 * the same code and the same table of cases (zonefs_policy_table.h) run
 * in the module's KUnit suite on the debug kernel and, built on the host
 * with tests/unit/kshim.h, in every make check (tests/unit/
 * zonefs_policy_test.c). Only <linux/types.h> and the block layer's
 * user-space zone header are included here.
 */
#ifndef _ZONEFS_POLICY_H
#define _ZONEFS_POLICY_H

#include <linux/types.h>
#include <linux/blkzoned.h>

/*
 * Per-zone state bits (zonefs_zone.z_flags).
 *
 * ZONEFS_ZONE_SEQ: a sequential write required (or preferred) zone; clear
 * for a conventional zone.
 * ZONEFS_ZONE_OFFLINE: the zone cannot be accessed at all, either because
 * the device said so or because errors=zone-offline chose to treat it so.
 * Its file has size 0 and mode 000, and every I/O fails with EIO.
 * ZONEFS_ZONE_READONLY: the zone can no longer be written, either because
 * the device said so or because errors=zone-ro chose to treat it so.
 * ZONEFS_ZONE_RO_MOUNT: the zone was read-only when the file system was
 * mounted: its write pointer is meaningless, so its file has size 0 and
 * mode 000.
 * ZONEFS_ZONE_OPEN: this module explicitly opened the zone (explicit-open)
 * and the device holds it open.
 * ZONEFS_ZONE_ACTIVE: the zone is counted in s_active_seq_files.
 * ZONEFS_ZONE_MOUNT_NODATA: found open or closed with its write pointer at
 * its start by the mount's zone report; cleared once the mount has reset
 * it (zonefs_close_open_zones()).
 * ZONEFS_ZONE_FOREIGN: the device's write pointer was found past the file's
 * size, with data the file did not write that errors= kept out of it; a
 * truncation to 0 then resets the zone even at size 0. The last bit of
 * z_flags (a u8).
 */
#define ZONEFS_ZONE_SEQ		(1U << 0)
#define ZONEFS_ZONE_OFFLINE	(1U << 1)
#define ZONEFS_ZONE_READONLY	(1U << 2)
#define ZONEFS_ZONE_RO_MOUNT	(1U << 3)
#define ZONEFS_ZONE_OPEN	(1U << 4)
#define ZONEFS_ZONE_ACTIVE	(1U << 5)
#define ZONEFS_ZONE_MOUNT_NODATA	(1U << 6)
#define ZONEFS_ZONE_FOREIGN	(1U << 7)

/**
 * enum zonefs_errors - what errors= does when the device fails (zonefs(5)
 * I/O ERRORS), one value per mount (zonefs_sb_info.s_errors)
 * @ZONEFS_ERRORS_RO:		remount the file system read-only (default)
 * @ZONEFS_ERRORS_ZONE_RO:	make the zone read-only
 * @ZONEFS_ERRORS_ZONE_OFFLINE:	make the zone offline
 * @ZONEFS_ERRORS_REPAIR:	take the device's write pointer, go on
 */
enum zonefs_errors {
	ZONEFS_ERRORS_RO,
	ZONEFS_ERRORS_ZONE_RO,
	ZONEFS_ERRORS_ZONE_OFFLINE,
	ZONEFS_ERRORS_REPAIR,
};

/**
 * enum zonefs_error - what went wrong, for zonefs_recover()
 * @ZONEFS_ERR_NONE:	nothing failed for the caller: the errors recorded
 *			by zonefs_note_error() are recovered from, or the
 *			zone is only looked at, and only a zone gone bad
 *			counts
 * @ZONEFS_ERR_DEVICE:	the device failed a write, a flush or a zone reset
 *			or finish: the errors= policy applies
 * @ZONEFS_ERR_NO_WRITE: the device failed a command that writes no data (a
 *			read, a zone close): the policy applies only if the
 *			zone went bad or its write pointer moved
 * @ZONEFS_ERR_LOCAL:	a write failed that the device did not fail (a bad
 *			user page, no memory, a refusal for want of zone
 *			resources) after part of it was sent: what the device
 *			holds of this file's own writes is kept, nothing else
 *			changes
 */
enum zonefs_error {
	ZONEFS_ERR_NONE,
	ZONEFS_ERR_DEVICE,
	ZONEFS_ERR_NO_WRITE,
	ZONEFS_ERR_LOCAL,
};

/**
 * struct zonefs_policy - what an error does to a file (zonefs_policy_decide())
 * @size:	the size the file keeps (bytes)
 * @take_away:	0, or ZONEFS_ZONE_OFFLINE or ZONEFS_ZONE_READONLY: what the
 *		zone becomes
 * @remount_ro:	the file system becomes read-only
 */
struct zonefs_policy {
	loff_t	size;
	u8	take_away;
	bool	remount_ro;
};

void zonefs_policy_decide(enum zonefs_errors mode, u8 cond,
			  unsigned int zflags, loff_t isize, loff_t dsize,
			  struct zonefs_policy *p);
bool zonefs_error_is_device(enum zonefs_error err, bool seq, loff_t isize,
			    loff_t issued, loff_t dsize);

#endif /* _ZONEFS_POLICY_H */
