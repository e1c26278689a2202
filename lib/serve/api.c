// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queries behind the HTTP API. Every statement is a constant string with bound
 * parameters; the only text chosen at run time is a column name, and only from the
 * constant whitelist sl_api_window_metrics. Rows become JSON objects keyed by column name
 * (integers stay integers, NULL stays null), so the schemas in schema/api/ follow the SQL.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "api.h"
#include "db-json.h"
#include "error.h"
#include "metrics.h"
#include "records.h"

#define NAME(f, ID, doc, prom) #f,
#define NAME_E(idx, sfx, SFX, prefix) #prefix "_" #sfx,
#define NAME_A(f, n, NAMES, prefix, PREFIX, doc, prom) NAMES(NAME_E, prefix)

/* Every counter column (window-counters.h) and the latency's */
const char *const sl_api_window_metrics[] = {
	SL_WINDOW_COUNTERS(NAME, NAME_A) "lat_count",
	"lat_p50_ns",
	"lat_p99_ns",
	NULL,
};

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot prepare query");
	return 0;
}

#define RUN_COLUMNS                                                                           \
	"r.id, h.hostname, h.topo_hash, r.kernel_release, r.kernel_version, r.preempt_mode, " \
	"r.workload AS label, r.source, r.boot_id, r.trace_clock, r.nr_cpus, "                \
	"r.recorder_version, r.start_wall, r.end_wall, r.start_ns, r.end_ns, r.events, "      \
	"r.lost_events, r.has_gaps, r.dropped_rows, r.complete, r.import_error, "             \
	"r.skipped_lines, json(r.params) AS params, " SL_RUN_STATUS_SQL " AS status "

/* runs.params is JSON text in the database: an object (or null) in the API's rows. */
static void params_as_object(json_t *rows)
{
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i);
		const char *text = json_string_value(json_object_get(row, "params"));
		json_t *o = text ? json_loads(text, 0, NULL) : NULL;

		json_object_set_new(row, "params", json_is_object(o) ? o : json_null());
		if (o && !json_is_object(o))
			json_decref(o);
	}
}

int sl_api_runs(struct sl_store *store, int limit, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	json_t *arr;
	int err;

	if (limit < 1 || limit > 1000)
		return sl_error(-SL_EUSAGE, "limit must be 1..1000");
	if ((err = prepare(db,
			   "SELECT " RUN_COLUMNS
			   "FROM runs r LEFT JOIN hosts h ON h.id = r.host_id "
			   "ORDER BY r.id DESC LIMIT ?1",
			   &st)))
		return err;
	sqlite3_bind_int(st, 1, limit);
	arr = json_array();
	err = arr ? sl_db_rows_into(db, st, arr, "cannot list runs") : -ENOMEM;
	sqlite3_finalize(st);
	if (err) {
		json_decref(arr);
		return err;
	}
	params_as_object(arr);
	*ret = json_pack("{s:o}", "runs", arr);
	return *ret ? 0 : -ENOMEM;
}

static int run_exists(sqlite3 *db, int64_t run_id)
{
	sqlite3_stmt *st;
	int err, rc;

	if ((err = prepare(db, "SELECT 1 FROM runs WHERE id = ?1", &st)))
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return sl_error(-ENOENT, "no run %lld", (long long)run_id);
	return sl_db_error(db, "cannot read runs");
}

/* Appends the rows of a one-parameter (run id) query to a new array. */
/*
 * Runs sql with ?1 = run_id and, if it has them, ?2 = arg2, ?3 and ?4 = a span's bounds (a
 * statement may skip ?2: SQLite numbers parameters by their ?NNN).
 */
static int query_span(sqlite3 *db, const char *sql, int64_t run_id, int64_t arg2,
		      const struct sl_api_span *span, json_t **ret)
{
	sqlite3_stmt *st;
	json_t *arr = json_array();
	int64_t from, to;
	int err;

	if (!arr)
		return -ENOMEM;
	if ((err = prepare(db, sql, &st))) {
		json_decref(arr);
		return err;
	}
	sl_api_span_bounds(span, &from, &to);
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, arg2);
	if (sqlite3_bind_parameter_count(st) >= 4) {
		sqlite3_bind_int64(st, 3, from);
		sqlite3_bind_int64(st, 4, to);
	}
	err = sl_db_rows_into(db, st, arr, "cannot read the run");
	sqlite3_finalize(st);
	if (err) {
		json_decref(arr);
		return err;
	}
	*ret = arr;
	return 0;
}

static int query_run(sqlite3 *db, const char *sql, int64_t run_id, int64_t arg2, json_t **ret)
{
	return query_span(db, sql, run_id, arg2, NULL, ret);
}

void sl_api_span_bounds(const struct sl_api_span *span, int64_t *from, int64_t *to)
{
	*from = !span ? 0 : span->from_ns < INT64_MAX ? (int64_t)span->from_ns : INT64_MAX;
	*to = span && span->to_ns && span->to_ns < INT64_MAX ? (int64_t)span->to_ns : INT64_MAX;
}

int sl_api_run(struct sl_store *store, int64_t run_id, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	json_t *rows, *groups, *run;
	int err;

	if ((err = run_exists(db, run_id)))
		return err;
	if ((err = query_run(db,
			     "SELECT " RUN_COLUMNS ", r.cmdline, "
			     "(SELECT COUNT(*) FROM windows w WHERE w.run_id = r.id AND w.grp = '*')"
			     " AS windows, "
			     "(SELECT MIN(start_ns) FROM windows w WHERE w.run_id = r.id AND "
			     "w.grp = '*') AS first_window_ns, "
			     "(SELECT MAX(start_ns) FROM windows w WHERE w.run_id = r.id AND "
			     "w.grp = '*') AS last_window_ns "
			     "FROM runs r LEFT JOIN hosts h ON h.id = r.host_id WHERE r.id = ?1",
			     run_id, 0, &rows)))
		return err;
	params_as_object(rows);
	if ((err = query_run(db,
			     "SELECT grp AS name, COUNT(*) AS windows, SUM(wakeups) AS wakeups, "
			     "SUM(switches) AS switches FROM windows WHERE run_id = ?1 "
			     "GROUP BY grp ORDER BY (grp <> '*'), SUM(wakeups) + SUM(switches) DESC",
			     run_id, 0, &groups))) {
		json_decref(rows);
		return err;
	}
	run = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	if (!run || json_object_set_new(run, "groups", groups)) {
		json_decref(run);
		return -ENOMEM;
	}
	*ret = run;
	return 0;
}

static const char *metric_column(const char *name)
{
	for (int i = 0; sl_api_window_metrics[i]; i++)
		if (!strcmp(sl_api_window_metrics[i], name))
			return sl_api_window_metrics[i];
	return NULL;
}

int sl_api_windows(struct sl_store *store, int64_t run_id, const struct sl_api_window_query *q,
		   struct sl_db_stream **ret)
{
	sqlite3 *db = sl_store_db(store);
	const char *grp = q->group ? q->group : "*", *col = NULL;
	int limit = q->limit ? q->limit : 1000;
	char sql[4096];
	sqlite3_stmt *st;
	json_t *head;
	int err;

	if (limit < 1 || limit > 100000)
		return sl_error(-SL_EUSAGE, "limit must be 1..100000");
	if (q->metric && !(col = metric_column(q->metric)))
		return sl_error(-SL_EUSAGE, "unknown metric (see the windows schema)");
	if (q->to_ns && q->to_ns <= q->from_ns)
		return sl_error(-SL_EUSAGE, "'to' must be greater than 'from'");
	if ((err = run_exists(db, run_id)))
		return err;
	/* col and the metric names are the constant names above, never client text */
	if (q->step_ns) {
		size_t n = (size_t)snprintf(sql, sizeof(sql),
					    "SELECT %sMIN(start_ns) AS start_ns, "
					    "SUM(dur_ns) AS dur_ns, COUNT(*) AS windows",
					    col ? "" : "run_id, grp, ");

		for (int i = 0; sl_api_window_metrics[i] && n < sizeof(sql); i++) {
			const char *m = sl_api_window_metrics[i];

			if (col && m != col)
				continue;
			n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", %s(%s) AS %s",
					      strncmp(m, "lat_p", 5) ? "SUM" : "MAX", m, m);
		}
		if (n < sizeof(sql))
			snprintf(sql + n, sizeof(sql) - n,
				 " FROM windows WHERE run_id = ?1 AND grp = ?2 AND start_ns >= ?3 "
				 "AND start_ns < ?4 GROUP BY windows.start_ns / ?6 "
				 "ORDER BY MIN(windows.start_ns) LIMIT ?5");
	} else {
		snprintf(
			sql, sizeof(sql),
			"SELECT %s%s FROM windows WHERE run_id = ?1 AND grp = ?2 AND start_ns >= ?3 "
			"AND start_ns < ?4 ORDER BY start_ns LIMIT ?5",
			col ? "start_ns, dur_ns, " : "*", col ? col : "");
	}
	if ((err = prepare(db, sql, &st)))
		return err;
	if (q->step_ns)
		sqlite3_bind_int64(st, 6,
				   (int64_t)(q->step_ns > INT64_MAX ? INT64_MAX : q->step_ns));
	sqlite3_bind_int64(st, 1, run_id);
	/* copied: the stream outlives the request's strings */
	sqlite3_bind_text(st, 2, grp, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, (int64_t)(q->from_ns > INT64_MAX ? INT64_MAX : q->from_ns));
	sqlite3_bind_int64(st, 4, q->to_ns && q->to_ns < INT64_MAX ? (int64_t)q->to_ns : INT64_MAX);
	sqlite3_bind_int(st, 5, limit + 1);
	head = json_pack("{s:I, s:s, s:s?, s:I}", "run_id", (json_int_t)run_id, "group", grp,
			 "metric", col, "step_ns", (json_int_t)q->step_ns);
	return sl_db_stream_new(st, head, "windows", (size_t)limit, ret);
}

static double row_column(void *row, const char *col)
{
	json_t *v = json_object_get(row, col);

	return json_is_number(v) ? json_number_value(v) : 0;
}

double sl_api_row_metric(json_t *row, const char *metric)
{
	const struct sl_metric *m = sl_metric_find(metric);

	return m ? sl_metric_value_named(m, row_column, row) : NAN;
}

int sl_api_placement(struct sl_store *store, int64_t run_id, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	json_t *groups;
	int err;

	if ((err = run_exists(db, run_id)))
		return err;
	if ((err = query_run(
		     db,
		     "SELECT grp AS name, SUM(wakeups) AS wakeups, SUM(wakeups_new) AS wakeups_new, "
		     "SUM(prev_same) AS prev_same, SUM(prev_smt) AS prev_smt, "
		     "SUM(prev_llc) AS prev_llc, SUM(prev_package) AS prev_package, "
		     "SUM(prev_remote) AS prev_remote, SUM(prev_unknown) AS prev_unknown, "
		     "SUM(waker_same) AS waker_same, SUM(waker_smt) AS waker_smt, "
		     "SUM(waker_llc) AS waker_llc, SUM(waker_package) AS waker_package, "
		     "SUM(waker_remote) AS waker_remote, SUM(waker_unknown) AS waker_unknown, "
		     "SUM(state_idle) AS state_idle, SUM(state_busy) AS state_busy, "
		     "SUM(state_claimed) AS state_claimed, SUM(state_unknown) AS state_unknown, "
		     "SUM(missed_idle) AS missed_idle, SUM(missed_smt) AS missed_smt, "
		     "SUM(stacked) AS stacked, SUM(migrations) AS migrations, "
		     "SUM(policy_known) AS policy_known, SUM(pol_prev_idle) AS pol_prev_idle, "
		     "SUM(pol_affine) AS pol_affine, SUM(pol_llc_scan) AS pol_llc_scan, "
		     "SUM(pol_buddy) AS pol_buddy, SUM(pol_smt_first) AS pol_smt_first "
		     "FROM windows WHERE run_id = ?1 GROUP BY grp "
		     "ORDER BY (grp <> '*'), SUM(wakeups) DESC",
		     run_id, 0, &groups)))
		return err;
	for (size_t i = 0; i < json_array_size(groups); i++) {
		json_t *g = json_array_get(groups, i);
		double v = sl_api_row_metric(g, "missed_idle_rate");

		/* the key and rounding the SQL ROUND(..., 3) it replaces gave */
		json_object_set_new(g, "missed_idle_pct",
				    isnan(v) ? json_null() : json_real(round(v * 1e3) / 1e3));
	}
	*ret = json_pack("{s:I, s:o}", "run_id", (json_int_t)run_id, "groups", groups);
	return *ret ? 0 : -ENOMEM;
}

int sl_api_preemptions(struct sl_store *store, int64_t run_id, int limit,
		       const struct sl_api_span *span, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	json_t *groups, *recent;
	int err;

	if (limit < 0 || limit > 1000)
		return sl_error(-SL_EUSAGE, "limit must be 0..1000");
	if ((err = run_exists(db, run_id)))
		return err;
	if ((err = query_span(
		     db,
		     "SELECT grp AS name, SUM(switches) AS switches, "
		     "SUM(preempt_wakeup) AS preempt_wakeup, SUM(preempt_tick) AS preempt_tick, "
		     "SUM(preempt_same_group) AS same_group, SUM(lhp_count) AS lhp, "
		     "SUM(lhp_cost_ns) AS lhp_cost_ns, SUM(hub_preemptions) AS hub_preemptions, "
		     "SUM(spin_count) AS spin_lhp, SUM(spin_cost_ns) AS spin_cost_ns, "
		     "SUM(dur_ns) AS dur_ns FROM windows WHERE run_id = ?1 AND start_ns >= ?3 "
		     "AND start_ns < ?4 GROUP BY grp "
		     "ORDER BY (grp <> '*'), SUM(preempt_wakeup + preempt_tick) DESC",
		     run_id, 0, span, &groups)))
		return err;
	/* newest rows: the per-event table has no index, the rowid order is time order */
	if ((err = query_span(
		     db,
		     "SELECT ts_ns, cpu, victim_pid, victim_comm, victim_grp, preemptor_pid, "
		     "preemptor_comm, preemptor_grp, cause, off_ns, same_group, hub, waiters, "
		     "lhp_cost_ns, delayed_wakeups, censored FROM preemptions_v "
		     "WHERE run_id = ?1 AND ts_ns >= ?3 AND ts_ns < ?4 ORDER BY ts_ns DESC LIMIT ?2",
		     run_id, limit, span, &recent))) {
		json_decref(groups);
		return err;
	}
	*ret = json_pack("{s:I, s:o, s:o}", "run_id", (json_int_t)run_id, "groups", groups,
			 "recent", recent);
	return *ret ? 0 : -ENOMEM;
}

int sl_api_findings(struct sl_store *store, int limit, bool flagged_only, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	json_t *comps, *finds;
	int err;

	if (limit < 1 || limit > 100)
		return sl_error(-SL_EUSAGE, "limit must be 1..100");
	if ((err = query_run(db,
			     "SELECT id, created_wall, baseline, candidate, verdict, summary, "
			     "(SELECT count(*) FROM findings f WHERE f.comparison_id = c.id AND "
			     "f.verdict = 'inconclusive') AS inconclusive, "
			     "(SELECT count(*) FROM findings f WHERE f.comparison_id = c.id AND "
			     "f.verdict = 'equivalent') AS equivalent "
			     "FROM comparisons c ORDER BY id DESC LIMIT ?1",
			     limit, 0, &comps)))
		return err;
	if ((err = query_run(db,
			     "SELECT f.comparison_id, f.metric, f.grp AS \"group\", f.polarity, "
			     "f.baseline_value, f.candidate_value, f.delta, f.rel_change, f.ci_low, "
			     "f.ci_high, f.p_value, f.p_adjusted, f.verdict, f.explanation, "
			     "f.family, f.df, f.margin, f.severity, f.runs_needed "
			     "FROM findings f WHERE f.comparison_id IN "
			     "(SELECT id FROM comparisons ORDER BY id DESC LIMIT ?1) "
			     "AND (?2 = 0 OR f.verdict IN ('regression', 'improvement', 'change')) "
			     "ORDER BY f.comparison_id DESC, f.id",
			     limit, flagged_only, &finds))) {
		json_decref(comps);
		return err;
	}
	*ret = json_pack("{s:o, s:o}", "comparisons", comps, "findings", finds);
	return *ret ? 0 : -ENOMEM;
}

int sl_api_topology(const char *topo_json, const char *topo_hash, json_t **ret)
{
	json_t *t;

	if (!topo_json)
		return sl_error(-SL_ENOTOPO, "the topology of this host is unknown");
	t = json_loads(topo_json, 0, NULL);
	if (!t)
		return sl_error(-SL_EPARSE, "the stored topology is not JSON");
	*ret = json_pack("{s:s, s:o}", "hash", topo_hash ? topo_hash : "", "topology", t);
	return *ret ? 0 : -ENOMEM;
}

json_t *sl_api_status_json(const struct sl_api_status *s)
{
	return json_pack("{s:s, s:f, s:s, s:s?, s:s?, s:s?, s:s?, s:f, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:s, s:I, s:{s:s, s:I}, s:o, s:o}",
			 "version", s->version, "uptime_s", s->uptime_s, "state", s->state, "label",
			 s->label, "kernel_release", s->kernel_release, "boot_id", s->boot_id,
			 "hostname", s->hostname, "events_per_s", s->events_per_s, "events",
			 (json_int_t)s->events, "lost_events", (json_int_t)s->lost_events, "gaps",
			 (json_int_t)s->gaps, "dropped_rows", (json_int_t)s->dropped_rows,
			 "queue_len", (json_int_t)s->queue_len, "runs_started",
			 (json_int_t)s->runs_started, "store_state",
			 s->store_state ? s->store_state : "ok", "store_lost_rows",
			 (json_int_t)s->store_lost_rows, "db", "path", s->db_path, "bytes",
			 (json_int_t)s->db_bytes, "run_id",
			 s->run_id >= 0 ? json_integer(s->run_id) : json_null(), "last_comparison",
			 s->last_comparison_id >= 0 ?
				 json_pack("{s:I, s:s?}", "id", (json_int_t)s->last_comparison_id,
					   "verdict", s->last_comparison_verdict) :
				 json_null());
}

int sl_api_previous_kernel(struct sl_store *store, int64_t run_id, char *buf, size_t size,
			   bool *found)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	int err, rc;

	*found = false;
	if ((err = prepare(db,
			   "SELECT p.kernel_release FROM runs c JOIN hosts hc ON hc.id = c.host_id, "
			   "runs p JOIN hosts hp ON hp.id = p.host_id "
			   "WHERE c.id = ?1 AND p.id < c.id AND p.workload = c.workload "
			   "AND hp.topo_hash = hc.topo_hash ORDER BY p.id DESC LIMIT 1",
			   &st)))
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
		*found = true;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sl_db_error(db, "cannot read runs");
	return 0;
}

/* The windows columns whose sums make metric column c, as a JSON array of names. */
static json_t *columns_json(enum sl_wcol c)
{
	const char *cols[SL_WIN_NR];
	size_t n = sl_wcol_columns(c, cols, SL_WIN_NR);
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(cols[i]));
	return a;
}

int sl_api_metrics(json_t **ret)
{
	static const char *const kinds[] = { "share", "rate", "quantile" };
	json_t *arr = json_array();

	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < sl_nr_metrics; i++) {
		const struct sl_metric *m = &sl_metrics[i];
		json_t *o = json_pack(
			"{s:s, s:s, s:o, s:o, s:f, s:f, s:s, s:s, s:f, s:f, s:f, s:b, s:b, s:s}",
			"name", m->name, "kind", kinds[m->kind], "num",
			m->kind == SL_MK_QUANTILE ? json_array() : columns_json(m->num), "den",
			columns_json(m->den), "q", m->q, "scale", m->scale, "unit", m->unit,
			"polarity", sl_polarity_name(m->polarity), "floor", m->floor, "per_switch",
			m->per_switch, "min_den", m->min_den, "primary", m->primary, "headline",
			m->headline, "text", m->text);

		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return -ENOMEM;
		}
	}
	*ret = json_pack("{s:o}", "metrics", arr);
	return *ret ? 0 : -ENOMEM;
}
