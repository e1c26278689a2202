/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The dashboard's extra API data, beside lib/serve/api.h: wakeups landed per CPU (the topology
 * heatmap), a run's merged wakeup-latency histogram (the compare view's overlay) and its
 * lock-holder preemptions ranked by cost (the LHP view). Same conventions as lib/serve/api.h:
 * bound parameters only, a new jansson reference in *ret that the caller owns, -ENOENT for
 * an unknown run, -SL_EUSAGE for a bad parameter, -SL_EDB / -ENOMEM otherwise.
 */
#ifndef SL_API_WEB_H
#define SL_API_WEB_H

#include <jansson.h>
#include <stdint.h>

#include "api.h"
#include "store.h"

/*
 * The run's host CPUs with the wakeups that landed on each in [from_ns, to_ns) (to 0: no
 * bound): {run_id, from_ns, to_ns, wakeups, cpus:[{cpu, online, core, llc, package, node,
 * wakeups, busy, idle, missed_idle}]}. busy counts busy or claimed targets. Counts come
 * from cpu_counts (schema 5, every run whatever its event-rows mode, kept like windows),
 * whose time resolution is one minute: the minutes that overlap [from_ns, to_ns) count
 * whole; a running run's current minute is there once it is over. Runs stored before
 * schema 5 have none: their counts come from the per-wakeup rows (exact times), which
 * retention keeps for a bounded span, so wakeups is 0 when none are left.
 */
int sl_api_cpus(struct sl_store *store, int64_t run_id, uint64_t from_ns, uint64_t to_ns,
		json_t **ret);

/*
 * The run's wakeup latency histogram for group (NULL: "*"), its windows starting in span
 * (NULL: all) merged: {run_id, group, count, p50_ns, p99_ns, buckets:[{lo_ns, hi_ns,
 * count}]} (non-empty buckets only; the top bucket's hi_ns is null).
 */
int sl_api_latency(struct sl_store *store, int64_t run_id, const char *group,
		   const struct sl_api_span *span, json_t **ret);

/*
 * Lock-holder preemption of a run: {run_id, start_ns, from_ns, to_ns, victims, preemptors,
 * hubs, largest}, victims and preemptors by comm with preemptions, lhp, waiters and
 * lhp_cost_ns, highest cost first; hubs by pid; largest: the limit (1..1000) costliest LHP
 * preemptions. Every part only counts the preemptions whose ts_ns is in span (NULL: the
 * whole run; exact times, from the per-event rows); to_ns is 0 without an end.
 */
int sl_api_lhp(struct sl_store *store, int64_t run_id, int limit, const struct sl_api_span *span,
	       json_t **ret);

/*
 * The host and kernel of the database's newest run, for a daemon that serves a database
 * without recording: {run_id, hostname, kernel_release, boot_id, label, topo_json,
 * topo_hash} (strings may be null). -ENOENT when the database has no run.
 */
int sl_api_newest_host(struct sl_store *store, json_t **ret);

#endif
