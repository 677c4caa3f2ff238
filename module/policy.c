// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs: the decisions of the errors= path, with no kernel state: whether
 * an error is the device failing, and what the policy does to the file
 * then (zonefs_policy.h). recovery.c applies them.
 */
#include <linux/export.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "zonefs_policy.h"

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
bool zonefs_error_is_device(enum zonefs_error err, bool seq, loff_t isize,
			    loff_t issued, loff_t dsize)
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
EXPORT_SYMBOL_IF_KUNIT(zonefs_error_is_device);

/**
 * zonefs_policy_decide() - what an error does to a file (zonefs(5) I/O ERRORS)
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
void zonefs_policy_decide(enum zonefs_errors mode, u8 cond,
			  unsigned int zflags, loff_t isize, loff_t dsize,
			  struct zonefs_policy *p)
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
