/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Raw event counts per comm (switch-outs, wakeups, wakings), an engine handler. They are
 * what `perf sched` and `perf script` can be checked against, so the recorder's
 * completeness is testable on a real workload independent of the analysis.
 */
#ifndef SL_COMM_COUNTS_H
#define SL_COMM_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

struct sl_comm_count {
	char comm[SL_COMM_LEN];
	uint64_t switch_out; /* sched_switch with this comm as prev */
	uint64_t wakeup; /* sched_wakeup + sched_wakeup_new of this comm */
	uint64_t waking; /* sched_waking of this comm */
};

struct sl_comm_counts;

/* NULL on allocation failure. */
struct sl_comm_counts *sl_comm_counts_new(void);
void sl_comm_counts_free(struct sl_comm_counts *cc);

/* The handler to add to an engine (sl_engine_add_handler). */
struct sl_sched_handler sl_comm_counts_handler(struct sl_comm_counts *cc);

/* The counts, by switch_out + wakeup descending; owned by cc. Call once, at the end:
 * sorting reuses the table, so cc takes no events afterwards. */
const struct sl_comm_count *sl_comm_counts_sorted(struct sl_comm_counts *cc, size_t *ret_n);

#endif
