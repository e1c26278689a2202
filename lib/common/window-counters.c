// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of window counters built from SL_WINDOW_COUNTERS (window-counters.h): for the
 * code that walks every counter at run time (the comparison's reader, the Prometheus
 * series, the schema doc's check) rather than at compile time.
 */
#include <stddef.h>

#include "records.h"

#define ROW(f, ID, d, prom) \
	{ .column = #f, .offset = offsetof(struct sl_window_rec, f), .doc = d, prom },
#define ROW_E(idx, sfx, SFX, f, prefix, d, ...)             \
	{ .column = #prefix "_" #sfx,                       \
	  .offset = offsetof(struct sl_window_rec, f[idx]), \
	  .doc = d,                                         \
	  .prom_value = #sfx,                               \
	  __VA_ARGS__ },
#define ROW_A(f, n, NAMES, prefix, PREFIX, d, prom) NAMES(ROW_E, f, prefix, d, prom)

const struct sl_window_counter sl_window_counters[SL_WIN_NR] = { SL_WINDOW_COUNTERS(ROW, ROW_A) };

#define NONE(f, ID, d, prom)
#define CHECK_A(f, n, NAMES, prefix, PREFIX, d, prom) \
	_Static_assert(n == 0 NAMES(SL_WIN_ONE_E, prefix), #f ": one column per element");
SL_WINDOW_COUNTERS(NONE, CHECK_A)
