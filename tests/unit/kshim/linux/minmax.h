/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's min() for module/policy.c on the host (tests/unit/kshim). */
#ifndef _ZONEFS_KSHIM_MINMAX_H
#define _ZONEFS_KSHIM_MINMAX_H

#define min(a, b) ((a) < (b) ? (a) : (b))

#endif
