/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data behind schedlensd's HTTP API (/api/v1/...): each function reads the store with
 * bound parameters only and returns a new jansson reference that the caller owns
 * (json_decref). The JSON shapes are documented by the schemas in schema/api/. Errors:
 * -ENOENT for an unknown run, -SL_EUSAGE for a bad parameter (with a message meant for
 * the client), -SL_EDB / -ENOMEM otherwise.
 */
#ifndef SL_API_H
#define SL_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "db-json.h"
#include "store.h"

/*
 * A time range of a run on its trace clock: [from_ns, to_ns), to_ns 0 = no bound. The
 * dashboard's range (brush or inputs) reaches the LHP view's calls as one of these.
 */
struct sl_api_span {
	uint64_t from_ns, to_ns;
};

/* span's bounds as SQL integers: [0, INT64_MAX) for NULL or no end. */
void sl_api_span_bounds(const struct sl_api_span *span, int64_t *from, int64_t *to);

/* Runs, newest first: at most limit (1..1000). */
int sl_api_runs(struct sl_store *store, int limit, json_t **ret);

/* One run with its host, totals, window span and groups. */
int sl_api_run(struct sl_store *store, int64_t run_id, json_t **ret);

struct sl_api_window_query {
	uint64_t from_ns, to_ns; /* window start_ns within [from, to); to 0 = no bound */
	const char *group; /* NULL = "*" */
	const char *metric; /* NULL = every column; else one of sl_api_window_metrics */
	int limit; /* 1..100000; 0 = 1000 */
	/*
	 * 0: every window. Else windows summed into bins of step_ns by start_ns (a long run in a
	 * few hundred points): counters summed, lat_p50_ns / lat_p99_ns the bin's largest,
	 * start_ns the bin's first window's, dur_ns the covered time, windows the count.
	 */
	uint64_t step_ns;
};

/*
 * The comparison's metric table (lib/common/metrics.c) as {metrics: [{name, kind, num, den, q,
 * scale, unit, polarity, floor, per_switch, min_den, primary, headline, text}]}, num and
 * den being the windows columns summed: what the dashboard computes its values with, so
 * that it divides by what `schedlens diff` divides by. The caller frees *ret.
 */
int sl_api_metrics(json_t **ret);

/* The column names the windows query accepts as metric, NULL-terminated. */
extern const char *const sl_api_window_metrics[];

/*
 * Windows of a run, oldest first: {run_id, group, metric, step_ns, windows:[...],
 * truncated}, streamed row by row (up to 100,000 rows, ~80 MB, never held in memory at once):
 * the caller reads it with sl_db_stream_read() and frees it with sl_db_stream_free().
 */
int sl_api_windows(struct sl_store *store, int64_t run_id, const struct sl_api_window_query *q,
		   struct sl_db_stream **ret);

/*
 * The value of the metric named metric (lib/common/metrics.c) for a row of summed windows columns
 * keyed by column name, as sl_api_placement's and sl_api_preemptions' groups are: what a
 * view shows is then the comparison's value, over the comparison's denominator. NAN when
 * the denominator is 0, for a quantile or an unknown metric.
 */
double sl_api_row_metric(json_t *row, const char *metric);

/*
 * Placement (target-CPU choice) per group, from the run's windows; missed_idle_pct is the
 * metric missed_idle_rate, rounded to 3 decimals (null without a known target state).
 */
int sl_api_placement(struct sl_store *store, int64_t run_id, json_t **ret);

/*
 * Preemption and LHP totals per group, with dur_ns, the time its windows cover (the rate
 * metrics' denominator), and the newest limit (0..1000) preemption rows. With a span (NULL:
 * the whole run) the totals are of the windows that start in it (whole windows, 1 s by
 * default) and the rows those whose ts_ns is in it.
 */
int sl_api_preemptions(struct sl_store *store, int64_t run_id, int limit,
		       const struct sl_api_span *span, json_t **ret);

/*
 * Findings of stored comparisons, newest comparison first: {comparisons:[...],
 * findings:[...]} with at most limit comparisons (1..100). flagged_only keeps regressions,
 * improvements and changes.
 */
int sl_api_findings(struct sl_store *store, int limit, bool flagged_only, json_t **ret);

/* The topology text of sl_topo_to_json() as a JSON value with its hash. */
int sl_api_topology(const char *topo_json, const char *topo_hash, json_t **ret);

/* What the daemon knows live, for /api/v1/status. */
struct sl_api_status {
	const char *version;
	double uptime_s;
	int64_t run_id; /* -1: none yet */
	const char *label;
	const char *kernel_release;
	const char *boot_id;
	const char *hostname;
	const char *state; /* "recording", "paused", "serving" (record no), "starting", "stopping" */
	double events_per_s; /* over the last poll interval */
	uint64_t events, lost_events, gaps, dropped_rows, queue_len, runs_started;
	/* "ok", "disk full" (rows are dropped and counted until space returns), "read-only" */
	const char *store_state;
	uint64_t store_lost_rows; /* rows dropped because the disk was full */
	uint64_t db_bytes;
	const char *db_path;
	int64_t last_comparison_id; /* -1: none */
	const char *last_comparison_verdict;
};

json_t *sl_api_status_json(const struct sl_api_status *st);

/*
 * The kernel release of the newest run before run_id with the same workload label and
 * host topology hash; *found false if there is none. buf holds the release.
 */
int sl_api_previous_kernel(struct sl_store *store, int64_t run_id, char *buf, size_t size,
			   bool *found);

#endif
