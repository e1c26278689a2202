/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The read layer over the store: every query that the API, the comparison, the export and
 * the history make, each a function named for what it reads, so that SQL and the sqlite3_
 * calls stay in lib/store*.c (store-query-*.c, split by subject). Results come back as
 * structs, through a callback per row, or as JSON when the answer is JSON. Same
 * conventions as lib/store.h: 0 or a negative code with the message set (sl_errmsg()):
 * -ENOENT for what does not exist, -SL_EDB for a database error, -ENOMEM.
 */
#ifndef SL_STORE_QUERY_H
#define SL_STORE_QUERY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records.h"
#include "store.h"

/* store-query-runs.c */

/* 0 when run_id exists, else -ENOENT ("no run N"). */
int sl_query_run_exists(struct sl_store *store, int64_t run_id);

/*
 * Runs as JSON rows of the API's run columns (schema/api/), runs.params as JSON text:
 * the newest limit runs (sl_query_runs_rows), or run_id's one row with cmdline, windows,
 * first_window_ns and last_window_ns (sl_query_run_rows).
 */
int sl_query_runs_rows(struct sl_store *store, int limit, json_t **ret);
int sl_query_run_rows(struct sl_store *store, int64_t run_id, json_t **ret);

/* run_id's groups: rows {name, windows, wakeups, switches}, "*" first, busiest next. */
int sl_query_run_groups_rows(struct sl_store *store, int64_t run_id, json_t **ret);

/*
 * The kernel of the newest earlier run of run_id's label on its topology (any kernel,
 * run_id's own too) into buf; *found false when there is none.
 */
int sl_query_run_before_kernel(struct sl_store *store, int64_t run_id, char *buf, size_t size,
			       bool *found);

/* The shape of a run's host topology (sl_api_shape()): counts of its cpus rows. */
struct sl_run_shape {
	int64_t cpus; /* all cpus rows of the host */
	int64_t online, cores, llcs, packages, nodes; /* of online CPUs */
	int64_t smt; /* the most online CPUs one (package, core) has */
};

/* Fills *ret for run_id; -ENOENT when there is no such run. */
int sl_query_run_shape(struct sl_store *store, int64_t run_id, struct sl_run_shape *ret);

/* Who a run is for a comparison: its kernel, workload label and host topology. */
struct sl_run_ident {
	int64_t id;
	char kernel[128], label[128], topo[32]; /* "" when NULL in the database */
};

/* Fills *ret for run_id; -ENOENT ("no run N in the database") when there is none. */
int sl_query_run_ident(struct sl_store *store, int64_t run_id, struct sl_run_ident *ret);

/*
 * A filter on runs (`schedlens diff --where KEY=VALUE`): a run passes when the text of its
 * runs.params value of key is exactly value, or, for the run columns sl_run_where_columns
 * names (they take precedence over a param of the same name), that column's text is. A
 * key is letters, digits and _ (record --param's keys): one the caller has checked with
 * sl_run_where_key_valid().
 */
struct sl_run_where {
	const char *key, *value;
};

#define SL_RUN_WHERE_MAX 16 /* filters a query takes, at most */

/* The run columns a filter can name: "preempt_mode", "kernel_version", then NULL. */
extern const char *const sl_run_where_columns[];

/* Whether key is 1..63 letters, digits and _ (a params key needs no quoting in a path). */
bool sl_run_where_key_valid(const char *key);

/* Whether key is one of sl_run_where_columns. */
bool sl_run_where_is_column(const char *key);

/*
 * The newest run of kernel, workload label and topology hash (each NULL: any) that passes
 * every one of the nr_where filters where (at most SL_RUN_WHERE_MAX); -ENOENT without a
 * message when there is none.
 */
int sl_query_newest_run(struct sl_store *store, const char *kernel, const char *label,
			const char *topo, const struct sl_run_where *where, int nr_where,
			struct sl_run_ident *ret);

/*
 * The kernel of the newest run on another kernel than `not`, of label and topo (NULL:
 * any), into buf; -ENOENT without a message when there is none.
 */
int sl_query_previous_kernel(struct sl_store *store, const char * not, const char *label,
			     const char *topo, char *buf, size_t size);

/* The ids of kernel's runs of label and topo (NULL: any) that pass every filter of where,
 * oldest first, to cb; a non-zero return stops. */
typedef int (*sl_query_run_id_cb)(void *ctx, int64_t run_id);
int sl_query_kernel_runs(struct sl_store *store, const char *kernel, const char *label,
			 const char *topo, const struct sl_run_where *where, int nr_where,
			 sl_query_run_id_cb cb, void *ctx);

/* A run's params (runs.params, when valid JSON) into obj as key -> text of the value. */
int sl_query_run_params(struct sl_store *store, int64_t run_id, json_t *obj);

/* Every key any run's params has, sorted, appended to arr as strings. */
int sl_query_param_keys(struct sl_store *store, json_t *arr);

/*
 * A run's clock (the drill-down's): its start on the trace clock (0 when unknown), the
 * wall-clock offset of that clock, and whether per-wakeup rows were stored. -ENOENT when
 * there is no run_id.
 */
int sl_query_run_clock(struct sl_store *store, int64_t run_id, int64_t *start, int64_t *offset,
		       bool *per_event);

/* The run's start_ns (0 when NULL); -ENOENT when there is no run_id. */
int sl_query_run_start(struct sl_store *store, int64_t run_id, int64_t *ret_start_ns);

/* The CPUs of run_id's host: rows {cpu, online, core, llc, package, node} by cpu. */
int sl_query_run_cpus_rows(struct sl_store *store, int64_t run_id, json_t **ret);

/* The newest run and its host: one row {run_id, hostname, kernel_release, boot_id, label,
 * topo_json, topo_hash}; -ENOENT when the database has no run. */
int sl_query_newest_run_host(struct sl_store *store, json_t **ret);

/* The comparable history of a label on one topology (compare-history.c): the newest runs,
 * at most limit, of workload label on hosts of topo_hash whose configuration (kernel
 * release, sched_features and preemption mode, joined by char(31) in cfg) has two or more
 * such runs, ordered by cfg then id. cb gets each with its runs.params text (NULL when
 * none); a non-zero return stops. */
typedef int (*sl_query_cfg_run_cb)(void *ctx, int64_t run_id, const char *cfg, const char *params);
int sl_query_history_runs(struct sl_store *store, const char *label, const char *topo_hash,
			  int limit, sl_query_cfg_run_cb cb, void *ctx);

/* store-comparisons.c: tables comparisons, comparison_runs and findings */

/* One finding as stored: names as text, NaN and infinities stored as NULL. */
struct sl_finding_row {
	const char *metric, *grp, *polarity, *verdict, *explanation, *family;
	double base, cand, delta, rel, ci_lo, ci_hi, p, p_adj, df, margin, severity;
	int runs_needed; /* < 0: NULL */
};

/* A comparison as stored. */
struct sl_comparison_row {
	const char *baseline, *candidate; /* the sides' selections */
	const char *params; /* JSON text */
	const char *verdict, *summary;
	const int64_t *runs[2]; /* baseline, candidate */
	int nr_runs[2];
	const struct sl_finding_row *findings;
	size_t nr_findings;
};

/* Inserts c with its runs and findings in one transaction; *ret_id is its id. */
int sl_store_comparison_insert(struct sl_store *store, const struct sl_comparison_row *c,
			       int64_t *ret_id);

/*
 * Comparison id as JSON: its row (params parsed back into an object), baseline_runs and
 * candidate_runs, and findings (all, or only the flagged ones), each finding a row of
 * findings' columns (grp as "group", no unit) with q_value (SL_SQL_FINDINGS_Q) and
 * unconfirmed (a boolean: SL_SQL_FINDING_UNCONFIRMED). -ENOENT when there is no
 * comparison id.
 */
int sl_query_comparison(struct sl_store *store, int64_t id, bool flagged_only, json_t **ret);

/*
 * Whether run_id is owed a comparison (sl_compare_owed()): the kernel of the newest
 * earlier run of its label and topology on another kernel into buf, and *ret_owed true
 * when no stored comparison has that kernel as baseline and run_id's as candidate.
 */
int sl_query_comparison_owed(struct sl_store *store, int64_t run_id, char *buf, size_t size,
			     bool *ret_owed);

/*
 * The false discovery rate at which an unconfirmed change must be a discovery among the
 * primary metrics (sl_finding_unconfirmed()); as text for SQL.
 */
#define SL_UNCONFIRMED_FDR 0.10
#define SL_STRINGIFY_(x) #x
#define SL_STRINGIFY(x) SL_STRINGIFY_(x)
#define SL_UNCONFIRMED_FDR_SQL SL_STRINGIFY(SL_UNCONFIRMED_FDR)

/*
 * The primary findings' q (p adjusted by Benjamini-Hochberg within their comparison,
 * sl_stats_bh()) as CTE fq(id, q_value), over the findings where cond holds (SQL, e.g.
 * "comparison_id = ?1"): with a comparison's m p-values ascending, q(j) = min(1, min over
 * k >= j of m p(k) / k). Findings are stored with p, not q, so comparisons stored before q
 * existed get it too.
 */
#define SL_SQL_FINDINGS_Q(cond)                                                             \
	"fq AS (SELECT id, min(1.0, min(m * p_value / j) OVER (PARTITION BY comparison_id " \
	"ORDER BY j DESC ROWS UNBOUNDED PRECEDING)) AS q_value FROM (SELECT id, "           \
	"comparison_id, p_value, row_number() OVER (PARTITION BY comparison_id ORDER BY "   \
	"p_value, id) AS j, count(*) OVER (PARTITION BY comparison_id) AS m FROM findings " \
	"WHERE family = 'primary' AND p_value IS NOT NULL AND (" cond ")))"

/*
 * Whether a stored finding f (a row of findings joined with SL_SQL_FINDINGS_Q's fq on its
 * id) is an unconfirmed change: the SQL twin of sl_finding_unconfirmed()
 * (lib/compare/compare.h), so that stored comparisons answer as the one just computed;
 * t-compare checks they agree. NULL severity, interval or q (NaN when stored) is not
 * unconfirmed, as in C.
 */
#define SL_SQL_FINDING_UNCONFIRMED                                                          \
	"coalesce(f.verdict = 'inconclusive' AND f.family = 'primary' AND f.severity >= 1 " \
	"AND (f.ci_low > 0 OR f.ci_high < 0) AND fq.q_value <= " SL_UNCONFIRMED_FDR_SQL ", 0)"

/* The last limit comparisons, newest first, as rows {id, created_wall, baseline, candidate,
 * verdict, summary, ci_level, unconfirmed_fdr (SL_UNCONFIRMED_FDR), inconclusive,
 * equivalent, unconfirmed} (the last three: counts of those findings). */
int sl_query_recent_comparisons_rows(struct sl_store *store, int limit, json_t **ret);

/* The findings of the last limit comparisons (all, or the flagged ones), by comparison
 * newest first, as rows of findings' columns with grp as "group", q_value and unconfirmed
 * (as sl_query_comparison()'s). */
int sl_query_recent_findings_rows(struct sl_store *store, int limit, bool flagged_only,
				  json_t **ret);

/* store-query-windows.c */

/* run_id's windows summed per group, the placement columns: rows {name, wakeups, ...}. */
int sl_query_run_placement_rows(struct sl_store *store, int64_t run_id, json_t **ret);

/* run_id's windows starting in [from, to) summed per group, the preemption columns. */
int sl_query_run_preemption_rows(struct sl_store *store, int64_t run_id, int64_t from, int64_t to,
				 json_t **ret);

struct sl_db_stream;
struct sl_hist;

/* The latency histograms of run_id's windows of group grp starting in [from, to) summed
 * into *sum (zeroed by the caller); a histogram that does not decode is skipped. */
int sl_query_run_latency(struct sl_store *store, int64_t run_id, const char *grp, int64_t from,
			 int64_t to, struct sl_hist *sum);

/* Which windows sl_query_windows_stream() reads. */
struct sl_window_select {
	const char *grp; /* copied */
	const char *col; /* NULL: every column; else one of metrics (the pointer, not a copy) */
	const char *const *metrics; /* the column names that may be summed, NULL-terminated */
	int64_t from, to; /* start_ns in [from, to) */
	int64_t step; /* 0: every window; else sums over bins of step by start_ns */
	int limit; /* rows; the statement yields limit + 1 so the stream sees truncation */
};

/*
 * run_id's windows as a stream (db-json.h) with head's members first, then "windows".
 * The SQL names only the columns of sel->metrics: never client text.
 */
int sl_query_windows_stream(struct sl_store *store, int64_t run_id,
			    const struct sl_window_select *sel, json_t *head,
			    struct sl_db_stream **ret);

/* store-query-events.c */

/* Which wakeups sl_query_wakeups_rows() reads. */
struct sl_wakeup_select {
	const char *grp; /* NULL: every group */
	bool missed_only; /* only wakeups that missed an idle CPU or SMT sibling */
	bool by_time; /* order by time; else longest latency first (unknown last), then time */
	int64_t from, to; /* ts_ns in [from, to) */
	int64_t wall_offset; /* added to ts_ns for wall_ns */
	int limit; /* rows */
};

/* run_id's wakeups (wakeups_v's columns and wall_ns) as JSON rows. */
int sl_query_wakeups_rows(struct sl_store *store, int64_t run_id,
			  const struct sl_wakeup_select *sel, json_t **ret);

/*
 * Wakeups per target CPU of run_id in [from, to): rows {cpu, wakeups, busy, idle,
 * missed_idle} by cpu, only CPUs that got wakeups. From the per-minute cpu_counts when the
 * run has them (*ret_minutes true: whole minutes that overlap the range), else from the
 * per-wakeup rows (runs stored before schema 5; a scan).
 */
int sl_query_cpu_wakeups_rows(struct sl_store *store, int64_t run_id, int64_t from, int64_t to,
			      bool *ret_minutes, json_t **ret);

/* The lock-holder-preemption tables of the dashboard's LHP view. */
enum sl_lhp_table {
	SL_LHP_VICTIMS, /* by victim comm: preemptions, lhp, waiters, cost, hub preemptions */
	SL_LHP_PREEMPTORS, /* the same by preemptor comm */
	SL_LHP_HUBS, /* hub victims by pid: preemptions, delayed wakeups, cost, off time */
	SL_LHP_LARGEST, /* the costliest preemptions */
};

/* Table t of run_id's preemptions with ts_ns in [from, to), at most limit rows. */
int sl_query_lhp_rows(struct sl_store *store, int64_t run_id, enum sl_lhp_table t, int limit,
		      int64_t from, int64_t to, json_t **ret);

/* The engine's LHP horizon (README "Lock-holder preemption"): 5 ms after the victim ran. */
#define SL_LHP_WAITER_HORIZON_NS 5000000

/*
 * The waiters of run_id's limit costliest LHP preemptions in [from, to) (as /lhp's
 * "largest"): the wakeups each victim made of its own group within the horizon after it
 * ran again, costliest event first (event_ts_ns, victim_pid, ts_ns, pid, comm, target_cpu,
 * latency_ns). The run's wakeups are scanned once: wakeups has no time index.
 */
int sl_query_lhp_waiters_rows(struct sl_store *store, int64_t run_id, int limit, int64_t from,
			      int64_t to, json_t **ret);

/* run_id's newest preemptions with ts_ns in [from, to), at most limit, newest first
 * (preemptions_v's columns). */
int sl_query_recent_preemptions_rows(struct sl_store *store, int64_t run_id, int limit,
				     int64_t from, int64_t to, json_t **ret);

/*
 * The windows of run_id, by group then start, to cb with every counter and the latency
 * histogram filled (run_id not set); windows with a NULL group are skipped. A non-zero
 * return of cb stops the walk and is returned.
 */
typedef int (*sl_query_run_window_cb)(void *ctx, const struct sl_window_rec *w);
int sl_query_run_windows(struct sl_store *store, int64_t run_id, sl_query_run_window_cb cb,
			 void *ctx);

/*
 * The 10-minute bins of run_id's windows (window_bins, schema 12), by group then bin, to cb
 * like windows: w's counters and dur_ns summed over the bin's windows, its histogram
 * merged, start_ns the first window's start; `windows` how many windows it sums. Only when
 * the bins describe every window of the run and group "*" has at least min_bins of them:
 * then 1 once they were walked; else 0 and cb is not called (the caller reads the
 * windows). A non-zero return of cb stops the walk and is returned.
 */
typedef int (*sl_query_run_bin_cb)(void *ctx, const struct sl_window_rec *w, int64_t windows);
int sl_query_run_bins(struct sl_store *store, int64_t run_id, int64_t min_bins,
		      sl_query_run_bin_cb cb, void *ctx);

/*
 * One window of any run, as sl_query_windows_by_end() hands it: the run's hostname (NULL
 * when the run has no host row) and kernel, the window's wall-clock end (the run's start_wall plus the window's offset on
 * the trace clock) and the window itself (run_id and start_ns not filled).
 */
typedef int (*sl_query_window_cb)(void *ctx, const char *hostname, const char *kernel,
				  uint64_t end_wall, const struct sl_window_rec *w);

/*
 * Every window with dur_ns > 0 of every run, in the order of their wall-clock ends (then
 * hostname), to cb; windows whose run has no kernel are skipped. A non-zero return
 * of cb stops the walk and is returned.
 */
int sl_query_windows_by_end(struct sl_store *store, sl_query_window_cb cb, void *ctx);

/* store-query-export.c: the rows the ftrace text export (lib/serve/export-text.c) replays */

/* A run as the export sees it. */
struct sl_export_run {
	bool waker_from_wakeup; /* the wakeup's context is the waker (imports of some traces) */
	bool has_facts; /* runs.facts: sched_facts replay the run exactly (lib/store/facts.h) */
	int64_t end_ns;
};

/* Fills *ret for run_id; -ENOENT ("no run N") when there is none. */
int sl_query_export_run(struct sl_store *store, int64_t run_id, struct sl_export_run *ret);

/*
 * The walks below hand run_id's rows to cb one at a time, each decoded into its record
 * (records.h; a NULL column gives SL_REC_NONE, SL_REC_NO_TIME or ""). A non-zero return
 * of cb stops the walk and is returned.
 */

/* tasks (first_ns and grp not filled). */
typedef int (*sl_query_task_cb)(void *ctx, const struct sl_task_rec *t);
int sl_query_run_tasks(struct sl_store *store, int64_t run_id, sl_query_task_cb cb, void *ctx);

/* sched_facts in replay order: by ts_ns, seq, a comm fact before the event it names. */
struct sl_fact_rec;
typedef int (*sl_query_fact_cb)(void *ctx, const struct sl_fact_rec *f);
int sl_query_run_facts(struct sl_store *store, int64_t run_id, sl_query_fact_cb cb, void *ctx);

/* A CPU's first switch, as runs without facts stored it (table run_cpu_first). */
struct sl_first_switch_rec {
	uint64_t ts_ns;
	int32_t cpu;
	int32_t prev_pid;
	int16_t prev_prio;
	char prev_state[3]; /* "S", "R+", ... */
	char prev_comm[SL_COMM_LEN];
};

typedef int (*sl_query_first_switch_cb)(void *ctx, const struct sl_first_switch_rec *f);
int sl_query_run_first_switches(struct sl_store *store, int64_t run_id, sl_query_first_switch_cb cb,
				void *ctx);

/* sched_slices by cpu, then start_ns. */
typedef int (*sl_query_slice_cb)(void *ctx, const struct sl_slice_rec *s);
int sl_query_run_slices(struct sl_store *store, int64_t run_id, sl_query_slice_cb cb, void *ctx);

/*
 * wakeups (the columns an export needs: ts, pid, kind, waker, CPUs, latency, waker_irq),
 * each with its sched_waking's time from table wakings (imports before facts), else
 * SL_REC_NO_TIME.
 */
typedef int (*sl_query_wakeup_waking_cb)(void *ctx, const struct sl_wakeup_rec *w,
					 uint64_t waking_ns);
int sl_query_run_wakeups_waking(struct sl_store *store, int64_t run_id,
				sl_query_wakeup_waking_cb cb, void *ctx);

#endif
