/* SPDX-License-Identifier: GPL-2.0 */
/* No KUnit on the host: its export marks are nothing (tests/unit/kshim). */
#ifndef _ZONEFS_KSHIM_VISIBILITY_H
#define _ZONEFS_KSHIM_VISIBILITY_H

#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol)

#endif
