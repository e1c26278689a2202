// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests that every share shown outside the comparison is the metric table's value for
 * the same windows: the API rows `schedlens show` and the dashboard print
 * (sl_api_row_metric, missed_idle_pct) and the SQL views users query (placement_mix,
 * lhp_by_group) against sl_metric_value over sl_metrics_columns of the windows stored. The
 * windows have unknown classes and target states, where a restated denominator (all
 * wakeups rather than the known ones) gives another number.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "fixture.h"
#include "metrics.h"
#include "store.h"
#include "tap.h"

#define NR_WIN 6

static const char *const groups[] = { SL_GROUP_ALL, "pg" };

/* Window i of group g: every counter set, some wakeups of unknown class and state. */
static void fill(struct sl_window_rec *w, int64_t run, int g, int i)
{
	uint64_t k = 7 + 13 * (uint64_t)i + 101 * (uint64_t)g;

	memset(w, 0, sizeof(*w));
	w->run_id = run;
	w->start_ns = (uint64_t)i * 100000000;
	w->dur_ns = 100000000 - 1000000 * (uint64_t)g; /* a group's windows may be shorter */
	snprintf(w->grp, sizeof(w->grp), "%s", groups[g]);
	for (int r = 0; r < SL_RREL_COUNT; r++) {
		w->class_prev[r] = k * (uint64_t)(r + 1) % 97 + (r == SL_RREL_UNKNOWN ? 40 : 0);
		w->class_waker[r] = k * (uint64_t)(r + 3) % 89 + (r == SL_RREL_UNKNOWN ? 60 : 0);
	}
	w->wakeups = 0;
	for (int r = 0; r < SL_RREL_COUNT; r++)
		w->wakeups += w->class_prev[r];
	w->target_state[SL_TS_UNKNOWN] = w->wakeups / 5;
	w->target_state[SL_TS_IDLE] = w->wakeups / 3;
	w->target_state[SL_TS_CLAIMED] = w->wakeups / 20;
	w->target_state[SL_TS_BUSY] = w->wakeups - w->target_state[SL_TS_UNKNOWN] -
				      w->target_state[SL_TS_IDLE] - w->target_state[SL_TS_CLAIMED];
	w->missed_idle = w->target_state[SL_TS_BUSY] / 2 + (uint64_t)i;
	w->missed_smt = w->target_state[SL_TS_BUSY] / 7;
	w->stacked = w->target_state[SL_TS_CLAIMED];
	w->switches = 3 * w->wakeups + k;
	w->preempt_wakeup = k % 31 + 5;
	w->preempt_tick = k % 11;
	w->preempt_same_group = k % 5;
	w->lhp_count = k % 3;
	w->lhp_cost_ns = 1000 * k;
	w->migrations = k % 50;
	w->policy_known = w->wakeups - w->wakeups / 4;
	for (int p = 0; p < SL_POL_COUNT; p++)
		w->policy_agree[p] = w->policy_known * (uint64_t)(p + 1) / 7;
}

/* The first row's first column of sql as a double; NAN if NULL or no row. */
static double q_dbl(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	double v = NAN;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NAN;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

static json_t *group_row(json_t *o, const char *name)
{
	json_t *a = json_object_get(o, "groups");

	for (size_t i = 0; i < json_array_size(a); i++)
		if (!strcmp(json_string_value(json_object_get(json_array_get(a, i), "name")) ?: "",
			    name))
			return json_array_get(a, i);
	return NULL;
}

/* Whether every column of metric column col is a key of row (what the row can answer). */
static bool row_has(json_t *row, enum sl_wcol col)
{
	const char *cols[SL_WC_COUNT];
	size_t n = sl_wcol_columns(col, cols, SL_WC_COUNT);

	for (size_t i = 0; i < n; i++)
		if (!json_object_get(row, cols[i]))
			return false;
	return n > 0;
}

/* Every share metric a row of the API can answer is the table's value. */
static void check_row(json_t *row, const char *what, const char *grp, const double *sums, int min)
{
	int n = 0;

	for (size_t i = 0; i < sl_nr_metrics; i++) {
		const struct sl_metric *m = &sl_metrics[i];
		double want = sl_metric_value(m, sums, NULL), got;

		if (m->kind != SL_MK_SHARE || !row_has(row, m->num) || !row_has(row, m->den))
			continue;
		got = sl_api_row_metric(row, m->name);
		ok(fabs(got - want) < 1e-9, "%s of %s: %s %.6f = table %.6f", what, grp, m->name,
		   got, want);
		n++;
	}
	ok(n >= min, "%s of %s: %d share metrics checked", what, grp, n);
}

/* A view's column, rounded to 2 decimals by the view, against the metric's value. */
static void check_view(sqlite3 *db, const char *view, const char *col, const char *grp, double want)
{
	char sql[256];
	double got;

	snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE grp = '%s'", col, view, grp);
	got = q_dbl(db, sql);
	ok(fabs(got - want) <= 0.005 + 1e-9, "%s.%s of %s: %.2f = table %.4f", view, col, grp, got,
	   want);
}

static double value(const char *name, const double *sums)
{
	return sl_metric_value(sl_metric_find(name), sums, NULL);
}

int main(void)
{
	struct sl_host_info h = { .hostname = "kind",
				  .topo_hash = "0123456789abcdef",
				  .nr_cpus = 2 };
	struct sl_run_meta m = { .kernel_release = "6.18", .workload = "test" };
	double sums[2][SL_WC_COUNT] = {};
	static const char *const rel[] = { "same", "smt", "llc", "package", "remote" };
	json_t *placement = NULL, *preempt = NULL;
	struct sl_writer *w = NULL;
	struct sl_store *st;
	sqlite3 *db;
	int64_t run;

	st = fixture_store("values.db", NULL, &h, &m, &run);
	if (sl_writer_start(st, NULL, &w)) {
		ok(0, "writer starts");
		return done_testing();
	}
	for (int g = 0; g < 2; g++)
		for (int i = 0; i < NR_WIN; i++) {
			struct sl_window_rec win;
			double c[SL_WC_COUNT];

			fill(&win, run, g, i);
			sl_metrics_columns(&win, c);
			for (int k = 0; k < SL_WC_COUNT; k++)
				sums[g][k] += c[k];
			ok(sl_writer_push_window(w, &win), "push window %d of %s", i, groups[g]);
		}
	is_int(sl_writer_flush(w), 0, "flush");
	is_int(sl_writer_stop(w), 0, "stop");
	/* the data chosen so that a denominator of all wakeups would give other numbers */
	ok(sums[0][SL_WC_PREV_KNOWN] < sums[0][SL_WC_WAKEUPS] &&
		   sums[0][SL_WC_KNOWN_STATE] < sums[0][SL_WC_WAKEUPS],
	   "some classes and target states unknown");

	is_int(sl_api_placement(st, run, &placement), 0, "placement");
	is_int(sl_api_preemptions(st, run, 0, NULL, &preempt), 0, "preemptions");
	for (int g = 0; g < 2; g++) {
		json_t *pl = group_row(placement, groups[g]), *pe = group_row(preempt, groups[g]);
		double want = value("missed_idle_rate", sums[g]);

		ok(pl && pe, "API rows of %s", groups[g]);
		if (!pl || !pe)
			continue;
		check_row(pl, "placement", groups[g], sums[g], 15);
		check_row(pe, "preemptions", groups[g], sums[g], 1);
		ok(fabs(json_number_value(json_object_get(pl, "missed_idle_pct")) - want) <= 5e-4,
		   "placement missed_idle_pct of %s is missed_idle_rate (%.4f)", groups[g], want);
	}
	json_decref(placement);
	json_decref(preempt);

	db = sl_store_db(st);
	for (int g = 0; g < 2; g++) {
		char col[32], name[32];

		for (size_t r = 0; r < sizeof(rel) / sizeof(rel[0]); r++) {
			snprintf(col, sizeof(col), "prev_%s_pct", rel[r]);
			snprintf(name, sizeof(name), "prev_%s_share", rel[r]);
			check_view(db, "placement_mix", col, groups[g], value(name, sums[g]));
		}
		check_view(db, "placement_mix", "waker_same_pct", groups[g],
			   value("waker_same_share", sums[g]));
		/* the waker's LLC, SMT sibling included: two metrics of one denominator */
		check_view(db, "placement_mix", "waker_llc_pct", groups[g],
			   value("waker_smt_share", sums[g]) + value("waker_llc_share", sums[g]));
		check_view(db, "placement_mix", "missed_idle_pct", groups[g],
			   value("missed_idle_rate", sums[g]));
		check_view(db, "lhp_by_group", "preempt_pct", groups[g],
			   value("preempt_share", sums[g]));
	}
	sl_store_close(st);
	return done_testing();
}
