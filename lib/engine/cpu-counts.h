/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wakeups landed per CPU and minute (table cpu_counts, schema 5): the topology heatmap's
 * numbers, accumulated from the engine's wakeup records for every session, so that runs
 * which keep no per-wakeup rows (the daemon's default) still have them. A minute is
 * windows' origin (the run's first event) plus k * 60 s. The engine emits a wakeup record
 * when its task runs, up to its close lag after the wakeup, so records arrive slightly out
 * of time order: a minute is emitted once a wakeup at least lag_ns past its end is seen,
 * and the open minutes at the end.
 */
#ifndef SL_CPU_COUNTS_H
#define SL_CPU_COUNTS_H

#include <stdint.h>

#include "records.h"

#define SL_CPU_COUNTS_MINUTE_NS (60ull * 1000000000)

struct sl_cpu_counts;

/* Receives each finished row: one per CPU that got wakeups, per minute, in minute order. */
typedef void (*sl_cpu_counts_emit_fn)(void *ctx, const struct sl_cpu_count_rec *rec);

/*
 * A new accumulator for run_id; lag_ns bounds how late a wakeup record may arrive after a
 * newer one. NULL on allocation failure. Free with sl_cpu_counts_free().
 */
struct sl_cpu_counts *sl_cpu_counts_new(int64_t run_id, uint64_t lag_ns, sl_cpu_counts_emit_fn emit,
					void *ctx);

/*
 * Counts one wakeup record (any kind). origin_ns is the start of the run's first minute;
 * only the first call's is used. Records whose target CPU is unknown (negative or beyond
 * SL_TOPO_MAX_CPUS) are not counted.
 */
void sl_cpu_counts_add(struct sl_cpu_counts *cc, uint64_t origin_ns, const struct sl_wakeup_rec *r);

/*
 * Emits every open minute. The last one ends at end_ns if that is before the minute's end
 * (end_ns 0, or before the newest wakeup: the minute's end, resp. that wakeup).
 */
void sl_cpu_counts_finish(struct sl_cpu_counts *cc, uint64_t end_ns);

/* Rows emitted so far. */
uint64_t sl_cpu_counts_rows(const struct sl_cpu_counts *cc);

/* NULL is fine; does not emit. */
void sl_cpu_counts_free(struct sl_cpu_counts *cc);

#endif
