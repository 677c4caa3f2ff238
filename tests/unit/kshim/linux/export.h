/* SPDX-License-Identifier: GPL-2.0 */
/* No symbol exports on the host (tests/unit/kshim). */
#ifndef _ZONEFS_KSHIM_EXPORT_H
#define _ZONEFS_KSHIM_EXPORT_H
#endif
