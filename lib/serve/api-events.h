/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The events behind a finding, for the dashboard's drill-down: a run's wakeups of one group
 * in a time range, worst first (longest latency, or those that passed an idle CPU over),
 * with absolute trace and wall-clock times so they can be found in the trace itself.
 */
#ifndef SL_API_EVENTS_H
#define SL_API_EVENTS_H

#include <jansson.h>
#include <stdint.h>

#include "api.h"
#include "store.h"

enum sl_api_wakeup_order {
	SL_WAKEUPS_LATENCY, /* longest wakeup latency first */
	SL_WAKEUPS_MISSED, /* wakeups that missed an idle CPU (missed_idle or missed_smt), by latency */
	SL_WAKEUPS_TIME, /* in trace order */
};

struct sl_api_wakeup_query {
	const char *group; /* NULL or "*": every task */
	struct sl_api_span span; /* trace clock, [from, to); to 0: the run's end */
	enum sl_api_wakeup_order order;
	int limit; /* 1..1000 */
};

/*
 * {run_id, group, order, start_ns, wall_offset_ns, wakeups: [{ts_ns, wall_ns, pid, comm,
 * grp, kind, waker_pid, waker_cpu, prev_cpu, target_cpu, run_cpu, latency_ns, class_prev,
 * class_waker, target_state, llc_idle, missed_idle, missed_smt}], truncated}; wall_ns is the
 * Unix time of ts_ns (the run's start_wall minus its start_ns). Runs stored without
 * per-event rows (--windows-only, or pruned by retention) give an empty list and
 * "per_event": false. -ENOENT for an unknown run.
 */
int sl_api_wakeups(struct sl_store *store, int64_t run_id, const struct sl_api_wakeup_query *q,
		   json_t **ret);

/*
 * The direct waiters of the run's limit (1..100) costliest lock-holder preemptions in span
 * (the events of sl_api_lhp()'s "largest"): {run_id, horizon_ns, waiters: [{event_ts_ns,
 * victim_pid, ts_ns, pid, comm, target_cpu, latency_ns}]}, one row per wakeup the victim
 * made of a task of its group within horizon_ns (5 ms) after it ran again, costliest event
 * first. Waiters released down a convoy (woken by a waiter) count in the event's waiters
 * but are not listed. Empty without per-event rows. -ENOENT for an unknown run.
 */
int sl_api_lhp_waiters(struct sl_store *store, int64_t run_id, int limit,
		       const struct sl_api_span *span, json_t **ret);

/* The order named by s ("latency", "missed", "time"); -1 for another name. */
int sl_api_wakeup_order(const char *s);

#endif
