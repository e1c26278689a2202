// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens show RUN`: the everyday view of one stored run. Its metadata and machine
 * shape, where wakeups landed (class_prev and class_waker shares, target states, missed
 * idle CPUs, stacking), latency, preemptions by cause and lock-holder preemption, then the
 * top groups, LHP victims, preemptors and hubs. The data is lib's API JSON (lib/serve/api.h,
 * api-web.h, api-shape.h), the same the daemon serves. A share that is a metric of the
 * comparison (missed idle, class shares, preemptions of switch-outs) is the metric's value
 * (sl_api_row_metric), so show and diff divide by the same denominator; the target-state
 * and unknown-class shares, which are not metrics, are of all wakeups. Printed through
 * cli/print.h.
 */
#include <errno.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-shape.h"
#include "api-web.h"
#include "api.h"
#include "builtin.h"
#include "error.h"
#include "print.h"
#include "query-opts.h"

static const char usage_text[] = "schedlens show RUN [--db FILE] [-n TOP] [--json | --csv]\n"
				 "  --db FILE   the database (default schedlens.db)\n"
				 "  -n TOP      rows in the top-N tables, 1..100 (default 10)";

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* The run's data as lib returns it; every member a reference show owns. */
struct run_data {
	json_t *run, *shape, *placement, *preempt, *latency, *lhp;
};

static int64_t ival(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static double pct(int64_t num, int64_t den)
{
	return den ? 100.0 * (double)num / (double)den : NAN;
}

/* The metric's value for a lib row; the names are metrics.c's, so a typo is a bug. */
static double metric(json_t *row, const char *name)
{
	return sl_api_row_metric(row, name);
}

/* The "*" (all tasks) row of a per-group array, or NULL. */
static json_t *group_row(json_t *groups, const char *name)
{
	for (size_t i = 0; i < json_array_size(groups); i++) {
		json_t *g = json_array_get(groups, i);

		if (!strcmp(json_string_value(json_object_get(g, "name")) ?: "", name))
			return g;
	}
	return NULL;
}

static const struct pr_col run_cols[] = {
	{ "id", "run" },
	{ "kernel", "kernel" },
	{ "kernel_version", "version" },
	{ "preempt_mode", "preempt" },
	{ "trace_clock", "clock" },
	{ "label", "label" },
	{ "params", "what was run" },
	{ "host", "host" },
	{ "source", "source" },
	{ "start_wall", "started (UTC)", PR_WALL },
	{ "duration_s", "seconds", PR_REAL, "%.1f" },
	{ "events", "events", PR_INT },
	{ "lost_events", "lost events", PR_INT },
	{ "gaps", "gaps", PR_BOOL },
	{ "complete", "complete", PR_BOOL },
	{ "status", "status" },
	{ "skipped_lines", "skipped lines", PR_INT },
	{ "import_error", "import error" },
	{ "packages", "packages", PR_INT },
	{ "llcs", "LLCs", PR_INT },
	{ "cores", "cores", PR_INT },
	{ "cpus", "CPUs", PR_INT },
};

static void print_run(struct pr *p, const struct run_data *d)
{
	json_t *r = d->run, *s = json_object_get(r, "start_ns"), *e = json_object_get(r, "end_ns");
	static const char *const keys[] = { "id",	    "kernel_release", "kernel_version",
					    "preempt_mode", "trace_clock",    "label" };
	static const char *const keys2[] = { "hostname", "source", "start_wall" };

	pr_table(p, "run", NULL, run_cols, NR(run_cols), PR_RECORD);
	pr_row(p);
	for (size_t i = 0; i < NR(keys); i++)
		pr_json(p, json_object_get(r, keys[i]));
	pr_params(p, json_object_get(r, "params"));
	for (size_t i = 0; i < NR(keys2); i++)
		pr_json(p, json_object_get(r, keys2[i]));
	if (json_is_integer(s) && json_is_integer(e))
		pr_real(p, (double)(json_integer_value(e) - json_integer_value(s)) / 1e9);
	else
		pr_null(p);
	pr_json(p, json_object_get(r, "events"));
	pr_json(p, json_object_get(r, "lost_events"));
	pr_bool(p, ival(r, "has_gaps") != 0);
	pr_bool(p, ival(r, "complete") != 0);
	pr_json(p, json_object_get(r, "status"));
	pr_int(p, ival(r, "skipped_lines"));
	pr_json(p, json_object_get(r, "import_error"));
	pr_int(p, ival(d->shape, "packages"));
	pr_int(p, ival(d->shape, "llcs"));
	pr_int(p, ival(d->shape, "cores"));
	pr_int(p, ival(d->shape, "online"));
	pr_table_end(p);
}

static const struct pr_col class_cols[] = {
	{ "class", "CLASS" },
	{ "same_pct", "SAME", PR_PCT },
	{ "smt_pct", "SMT", PR_PCT },
	{ "llc_pct", "LLC", PR_PCT },
	{ "package_pct", "PACKAGE", PR_PCT },
	{ "remote_pct", "REMOTE", PR_PCT },
	{ "unknown_pct", "UNKNOWN", PR_PCT },
};

static const struct pr_col target_cols[] = {
	{ "wakeups", "wakeups", PR_INT },
	{ "wakeups_new", "of new tasks", PR_INT },
	{ "idle_pct", "target idle", PR_PCT },
	{ "busy_pct", "target busy", PR_PCT },
	{ "claimed_pct", "target claimed", PR_PCT },
	{ "unknown_pct", "target unknown", PR_PCT },
	{ "missed_idle_pct", "missed idle (of known)", PR_PCT },
	{ "missed_smt_pct", "missed SMT (of known)", PR_PCT },
	{ "stacked_pct", "stacked (of known)", PR_PCT },
	{ "migrations", "migrations", PR_INT },
	{ "latency_p50_ns", "latency p50", PR_NS },
	{ "latency_p99_ns", "latency p99", PR_NS },
};

static void print_placement(struct pr *p, const struct run_data *d)
{
	json_t *g = group_row(json_object_get(d->placement, "groups"), "*");
	static const char *const rel[] = { "same", "smt", "llc", "package", "remote", "unknown" };
	int64_t wakeups = ival(g, "wakeups");
	char key[32], title[128];

	snprintf(title, sizeof(title),
		 "where %lld wakeups landed, relative to (shares of a known class; unknown: "
		 "of all):",
		 (long long)wakeups);
	pr_table(p, "placement", title, class_cols, NR(class_cols), 0);
	for (int c = 0; c < 2; c++) {
		pr_row(p);
		pr_str(p, c ? "waker" : "prev");
		for (size_t i = 0; i < NR(rel) - 1; i++) {
			snprintf(key, sizeof(key), "%s_%s_share", c ? "waker" : "prev", rel[i]);
			pr_real(p, metric(g, key));
		}
		/* how much the shares leave out: not a metric, so of all wakeups */
		pr_real(p, pct(ival(g, c ? "waker_unknown" : "prev_unknown"), wakeups));
	}
	pr_table_end(p);

	pr_table(p, "targets", "target CPU state and wakeup latency:", target_cols, NR(target_cols),
		 PR_RECORD);
	pr_row(p);
	pr_int(p, wakeups);
	pr_int(p, ival(g, "wakeups_new"));
	pr_real(p, pct(ival(g, "state_idle"), wakeups));
	pr_real(p, pct(ival(g, "state_busy"), wakeups));
	pr_real(p, pct(ival(g, "state_claimed"), wakeups));
	pr_real(p, pct(ival(g, "state_unknown"), wakeups));
	pr_real(p, metric(g, "missed_idle_rate"));
	pr_real(p, metric(g, "missed_smt_rate"));
	pr_real(p, metric(g, "stacking_rate"));
	pr_int(p, ival(g, "migrations"));
	pr_json(p, json_object_get(d->latency, "p50_ns"));
	pr_json(p, json_object_get(d->latency, "p99_ns"));
	pr_table_end(p);
}

static const struct pr_col preempt_cols[] = {
	{ "switches", "switch-outs", PR_INT },
	{ "preemptions", "preemptions", PR_INT },
	{ "preempt_pct", "of switch-outs", PR_PCT, "%.2f%%" },
	{ "wakeup", "by a wakeup", PR_INT },
	{ "tick", "by the tick", PR_INT },
	{ "same_group", "same group", PR_INT },
	{ "lhp", "of lock holders", PR_INT },
	{ "lhp_cost_ns", "LHP cost (waiting)", PR_NS },
	{ "hub_preemptions", "of hubs", PR_INT },
};

static void print_preemptions(struct pr *p, const struct run_data *d)
{
	json_t *g = group_row(json_object_get(d->preempt, "groups"), "*");
	int64_t n = ival(g, "preempt_wakeup") + ival(g, "preempt_tick");

	pr_table(p, "preemptions", "preemptions:", preempt_cols, NR(preempt_cols), PR_RECORD);
	pr_row(p);
	pr_json(p, json_object_get(g, "switches"));
	pr_int(p, n);
	pr_real(p, metric(g, "preempt_share"));
	pr_json(p, json_object_get(g, "preempt_wakeup"));
	pr_json(p, json_object_get(g, "preempt_tick"));
	pr_json(p, json_object_get(g, "same_group"));
	pr_json(p, json_object_get(g, "lhp"));
	pr_json(p, json_object_get(g, "lhp_cost_ns"));
	pr_json(p, json_object_get(g, "hub_preemptions"));
	pr_table_end(p);
}

static const struct pr_col group_cols[] = {
	{ "group", "GROUP" },
	{ "wakeups", "WAKEUPS", PR_INT },
	{ "missed_idle_pct", "MISSED IDLE", PR_PCT },
	{ "latency_p50_ns", "P50", PR_NS },
	{ "latency_p99_ns", "P99", PR_NS },
	{ "switches", "SWITCHES", PR_INT },
	{ "preemptions", "PREEMPTED", PR_INT },
	{ "same_group", "SAME GROUP", PR_INT },
	{ "lhp", "LHP", PR_INT },
	{ "lhp_cost_ns", "LHP COST", PR_NS },
};

/* Groups in the order lib ranks them (wakeups + switches), "*" left out: it is above. */
static int print_groups(struct pr *p, struct sl_store *store, const struct run_data *d, int top)
{
	json_t *groups = json_object_get(d->run, "groups");
	char title[64];
	int shown = 0, err = 0;

	snprintf(title, sizeof(title),
		 "top groups (of %zu):", json_array_size(groups) ? json_array_size(groups) - 1 : 0);
	pr_table(p, "groups", title, group_cols, NR(group_cols), 0);
	for (size_t i = 0; i < json_array_size(groups) && shown < top && !err; i++) {
		const char *name =
			json_string_value(json_object_get(json_array_get(groups, i), "name"));
		json_t *pl = group_row(json_object_get(d->placement, "groups"), name);
		json_t *pe = group_row(json_object_get(d->preempt, "groups"), name), *lat;

		if (!name || !strcmp(name, "*"))
			continue;
		err = sl_api_latency(store, ival(d->run, "id"), name, NULL, &lat);
		if (err)
			break;
		pr_row(p);
		pr_str(p, name);
		pr_json(p, json_object_get(pl, "wakeups"));
		pr_real(p, metric(pl, "missed_idle_rate"));
		pr_json(p, json_object_get(lat, "p50_ns"));
		pr_json(p, json_object_get(lat, "p99_ns"));
		pr_json(p, json_object_get(pe, "switches"));
		pr_int(p, ival(pe, "preempt_wakeup") + ival(pe, "preempt_tick"));
		pr_json(p, json_object_get(pe, "same_group"));
		pr_json(p, json_object_get(pe, "lhp"));
		pr_json(p, json_object_get(pe, "lhp_cost_ns"));
		json_decref(lat);
		shown++;
	}
	pr_table_end(p);
	return err;
}

static const struct pr_col by_comm_cols[] = {
	{ "comm", "COMM" },
	{ "group", "GROUP" },
	{ "preemptions", "PREEMPTIONS", PR_INT },
	{ "lhp", "LHP", PR_INT },
	{ "waiters", "WAITERS", PR_INT },
	{ "lhp_cost_ns", "LHP COST", PR_NS },
	{ "hub_preemptions", "OF HUBS", PR_INT },
};

static const struct pr_col hub_cols[] = {
	{ "pid", "PID", PR_INT },
	{ "comm", "COMM" },
	{ "group", "GROUP" },
	{ "preemptions", "PREEMPTED", PR_INT },
	{ "delayed_wakeups", "DELAYED WAKEUPS", PR_INT },
	{ "lhp_cost_ns", "LHP COST", PR_NS },
	{ "off_ns", "OFF CPU", PR_NS },
};

/* Prints rows of lib objects: keys[i] feeds cols[i]. */
static void print_rows(struct pr *p, const char *name, const char *title, const struct pr_col *cols,
		       const char *const *keys, size_t nr, json_t *arr, int top)
{
	pr_table(p, name, title, cols, nr, 0);
	for (size_t i = 0; i < json_array_size(arr) && (int)i < top; i++) {
		pr_row(p);
		for (size_t k = 0; k < nr; k++)
			pr_json(p, json_object_get(json_array_get(arr, i), keys[k]));
	}
	pr_table_end(p);
}

static void print_lhp(struct pr *p, const struct run_data *d, int top)
{
	static const char *const comm_keys[] = { "comm",    "grp",	   "preemptions",    "lhp",
						 "waiters", "lhp_cost_ns", "hub_preemptions" };
	static const char *const hub_keys[] = {
		"pid", "comm", "grp", "preemptions", "delayed_wakeups", "lhp_cost_ns", "off_ns"
	};

	print_rows(p, "lhp_victims",
		   "preempted tasks, costliest lock-holder preemption first:", by_comm_cols,
		   comm_keys, NR(by_comm_cols), json_object_get(d->lhp, "victims"), top);
	print_rows(p, "lhp_preemptors", "preemptors:", by_comm_cols, comm_keys, NR(by_comm_cols),
		   json_object_get(d->lhp, "preemptors"), top);
	print_rows(p, "hubs", "preempted hubs (tasks waking many of their group):", hub_cols,
		   hub_keys, NR(hub_cols), json_object_get(d->lhp, "hubs"), top);
}

static int load(struct sl_store *store, int64_t id, int top, struct run_data *d)
{
	int err;

	if ((err = sl_api_run(store, id, &d->run)) || (err = sl_api_shape(store, id, &d->shape)) ||
	    (err = sl_api_placement(store, id, &d->placement)) ||
	    (err = sl_api_preemptions(store, id, 0, NULL, &d->preempt)) ||
	    (err = sl_api_latency(store, id, NULL, NULL, &d->latency)) ||
	    (err = sl_api_lhp(store, id, top, NULL, &d->lhp)))
		return err;
	return 0;
}

int cmd_show(int argc, char **argv)
{
	struct query_opts q = { .n_name = "top", .n_max = 100, .n = 10 };
	struct sl_store *store = NULL;
	struct run_data d = {};
	struct pr *p = NULL;
	int err, status = EXIT_OK;
	int64_t id;

	if ((err = query_opts_parse(argc, argv, usage_text, &q)) >= 0)
		return err;
	if (optind + 1 != argc)
		return cli_usage(usage_text);
	if (cli_i64(argv[0], "ID", argv[optind], 1, INT64_MAX, &id))
		return EXIT_USAGE;
	if ((err = sl_store_open(q.db, SL_STORE_RDONLY, &store)))
		return cli_error("%s", sl_errmsg(err));
	err = load(store, id, (int)q.n, &d);
	if (err == -ENOENT) {
		status = cli_error("no run %lld in '%s'", (long long)id, q.db);
		goto out;
	}
	if (err) {
		status = cli_error("%s", sl_errmsg(err));
		goto out;
	}
	if (!(p = pr_open(q.format, PR_SECTIONS, stdout))) {
		status = cli_error("out of memory");
		goto out;
	}
	print_run(p, &d);
	print_placement(p, &d);
	print_preemptions(p, &d);
	if ((err = print_groups(p, store, &d, (int)q.n)))
		status = cli_error("%s", sl_errmsg(err));
	print_lhp(p, &d, (int)q.n);
	if (pr_close(p) && status == EXIT_OK)
		status = cli_error("cannot write the output");
out:
	json_decref(d.run);
	json_decref(d.shape);
	json_decref(d.placement);
	json_decref(d.preempt);
	json_decref(d.latency);
	json_decref(d.lhp);
	sl_store_close(store);
	return status;
}
