/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What module/policy.c takes from the kernel, for its build on the host
 * (tests/unit/zonefs_policy_test.c): forced in front of it with -include,
 * with tests/unit/kshim first on the include path for <linux/minmax.h>
 * and <kunit/visibility.h>. <linux/types.h> and <linux/blkzoned.h> are
 * the system's user-space headers, the same definitions the kernel's.
 */
#ifndef _ZONEFS_KSHIM_H
#define _ZONEFS_KSHIM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef uint8_t u8;

#endif /* _ZONEFS_KSHIM_H */
