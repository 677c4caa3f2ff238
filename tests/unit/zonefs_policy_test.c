// SPDX-License-Identifier: GPL-2.0
/*
 * The module's errors= decisions on the host: module/policy.c, the code
 * zonefs.ko runs, built here with tests/unit/kshim, checked against the
 * table of module/zonefs_policy_table.h that the KUnit suite checks on the
 * debug kernel, so that the oracle runs in every make check.
 */
#include "zonefs_test.h"
#include "../../module/zonefs_policy_table.h"

#define ZT_ISIZE	8192
#define ZT_ISSUED	16384

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(zonefs_test_policy_rows) /
			sizeof(zonefs_test_policy_rows[0]); i++) {
		const struct zonefs_test_policy_row *r = &zonefs_test_policy_rows[i];
		struct zonefs_policy p;

		zonefs_policy_decide(r->mode, r->cond, r->zflags, ZT_ISIZE,
				     r->dsize, &p);
		ZONEFS_CHECK(p.size == r->size && p.take_away == r->take_away &&
			     p.remount_ro == r->remount_ro,
			     "policy row %u: mode %d cond %u flags %u wp %lld: size %lld take-away %u remount-ro %d",
			     i, r->mode, r->cond, r->zflags, (long long)r->dsize,
			     (long long)p.size, p.take_away, p.remount_ro);
	}
	for (i = 0; i < sizeof(zonefs_test_device_rows) /
			sizeof(zonefs_test_device_rows[0]); i++) {
		const struct zonefs_test_device_row *r = &zonefs_test_device_rows[i];
		bool device = zonefs_error_is_device(r->err, r->seq, ZT_ISIZE,
						     ZT_ISSUED, r->dsize);

		ZONEFS_CHECK(device == r->device,
			     "device row %u: error %d %s wp %lld: %s",
			     i, r->err, r->seq ? "seq" : "cnv", (long long)r->dsize,
			     device ? "the device failed" : "no policy");
	}
	return zonefs_test_done();
}
