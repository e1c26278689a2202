// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP API's answers, over the query layer (store-query.h): argument checks here, SQL
 * there. Every statement is a constant string with bound parameters; the only text chosen
 * at run time is a column name, and only from the constant whitelist
 * sl_api_window_metrics. Rows become JSON objects keyed by column name
 * (integers stay integers, NULL stays null), so the schemas in schema/api/ follow the SQL.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "error.h"
#include "metrics.h"
#include "records.h"
#include "store-query.h"

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
	json_t *arr;
	int err;

	if (limit < 1 || limit > 1000)
		return sl_error(-SL_EUSAGE, "limit must be 1..1000");
	if ((err = sl_query_runs_rows(store, limit, &arr)))
		return err;
	params_as_object(arr);
	*ret = json_pack("{s:o}", "runs", arr);
	return *ret ? 0 : -ENOMEM;
}

void sl_api_span_bounds(const struct sl_api_span *span, int64_t *from, int64_t *to)
{
	*from = !span ? 0 : span->from_ns < INT64_MAX ? (int64_t)span->from_ns : INT64_MAX;
	*to = span && span->to_ns && span->to_ns < INT64_MAX ? (int64_t)span->to_ns : INT64_MAX;
}

int sl_api_run(struct sl_store *store, int64_t run_id, json_t **ret)
{
	json_t *rows, *groups, *run;
	int err;

	if ((err = sl_query_run_exists(store, run_id)) ||
	    (err = sl_query_run_rows(store, run_id, &rows)))
		return err;
	params_as_object(rows);
	if ((err = sl_query_run_groups_rows(store, run_id, &groups))) {
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
	struct sl_window_select sel = {
		.grp = q->group ? q->group : "*",
		.metrics = sl_api_window_metrics,
		.from = (int64_t)(q->from_ns > INT64_MAX ? INT64_MAX : q->from_ns),
		.to = q->to_ns && q->to_ns < INT64_MAX ? (int64_t)q->to_ns : INT64_MAX,
		.step = (int64_t)(q->step_ns > INT64_MAX ? INT64_MAX : q->step_ns),
		.limit = q->limit ? q->limit : 1000,
	};
	json_t *head;
	int err;

	if (sel.limit < 1 || sel.limit > 100000)
		return sl_error(-SL_EUSAGE, "limit must be 1..100000");
	if (q->metric && !(sel.col = metric_column(q->metric)))
		return sl_error(-SL_EUSAGE, "unknown metric (see the windows schema)");
	if (q->to_ns && q->to_ns <= q->from_ns)
		return sl_error(-SL_EUSAGE, "'to' must be greater than 'from'");
	if ((err = sl_query_run_exists(store, run_id)))
		return err;
	head = json_pack("{s:I, s:s, s:s?, s:I}", "run_id", (json_int_t)run_id, "group", sel.grp,
			 "metric", sel.col, "step_ns", (json_int_t)q->step_ns);
	return sl_query_windows_stream(store, run_id, &sel, head, ret);
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
	json_t *groups;
	int err;

	if ((err = sl_query_run_exists(store, run_id)) ||
	    (err = sl_query_run_placement_rows(store, run_id, &groups)))
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
	json_t *groups, *recent;
	int64_t from, to;
	int err;

	if (limit < 0 || limit > 1000)
		return sl_error(-SL_EUSAGE, "limit must be 0..1000");
	sl_api_span_bounds(span, &from, &to);
	if ((err = sl_query_run_exists(store, run_id)) ||
	    (err = sl_query_run_preemption_rows(store, run_id, from, to, &groups)))
		return err;
	if ((err = sl_query_recent_preemptions_rows(store, run_id, limit, from, to, &recent))) {
		json_decref(groups);
		return err;
	}
	*ret = json_pack("{s:I, s:o, s:o}", "run_id", (json_int_t)run_id, "groups", groups,
			 "recent", recent);
	return *ret ? 0 : -ENOMEM;
}

int sl_api_findings(struct sl_store *store, int limit, bool flagged_only, json_t **ret)
{
	json_t *comps, *finds;
	int err;

	if (limit < 1 || limit > 100)
		return sl_error(-SL_EUSAGE, "limit must be 1..100");
	if ((err = sl_query_recent_comparisons_rows(store, limit, &comps)))
		return err;
	if ((err = sl_query_recent_findings_rows(store, limit, flagged_only, &finds))) {
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
	return sl_query_run_before_kernel(store, run_id, buf, size, found);
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
