// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlens lab upgrade A B WORKLOAD: the product's promise end to end on real kernels.
 * A boots --runs times (default 2) with schedlensd recording the workload into a database
 * of its own, one run a boot; then B boots with that database, as a host is upgraded. The
 * daemon notices the new kernel and, after --compare-after windows, compares it with A's
 * runs, stores the comparison and logs its findings (all of it inside the guest, as on a
 * host). A's runs are the replicates a host's history gives the daemon: with one run a side
 * no run-to-run variance is known and every verdict is inconclusive. Then the same two runs are compared
 * here over all their windows, as `lab ab` compares at its first look, and the two
 * comparisons are set side by side, metric by metric of the primary family: the daemon's
 * verdicts must not contradict these.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "compare.h"
#include "error.h"
#include "lab-local.h"
#include "print.h"
#include "store-query.h"
#include "store.h"

static bool flagged(const char *verdict)
{
	return !strcmp(verdict, "regression") || !strcmp(verdict, "improvement") ||
	       !strcmp(verdict, "change");
}

/*
 * Whether two verdicts on one metric contradict each other: opposite flags, or a change
 * one flags that the other calls equivalent. Inconclusive or insufficient data contradicts
 * nothing: the daemon decided on fewer windows.
 */
static bool contradict(const char *a, const char *b)
{
	if (flagged(a) && flagged(b))
		return strcmp(a, b) != 0;
	return (flagged(a) && !strcmp(b, "equivalent")) || (flagged(b) && !strcmp(a, "equivalent"));
}

/* Whether the JSON array runs holds exactly side's runs, in order. */
static bool same_runs(json_t *runs, const struct lab_side *side)
{
	if (json_array_size(runs) != (size_t)side->nr_runs)
		return false;
	for (int i = 0; i < side->nr_runs; i++)
		if (json_integer_value(json_array_get(runs, (size_t)i)) != side->runs[i])
			return false;
	return true;
}

/*
 * The comparison the daemon stored of A's run against B's (the database is the
 * experiment's own: the newest comparison, checked to be of those runs) into *ret.
 */
static int daemon_comparison(const struct lab_ab *ab, json_t **ret)
{
	struct sl_store *st;
	json_t *list = NULL, *c = NULL;
	int64_t id;
	int err;

	if ((err = sl_store_open(ab->db, SL_STORE_RDONLY, &st)))
		return cli_error("%s: %s", ab->db, sl_errmsg(err));
	err = sl_query_recent_comparisons_rows(st, 1, &list);
	id = json_integer_value(json_object_get(json_array_get(list, 0), "id"));
	if (!err && id > 0)
		err = sl_query_comparison(st, id, false, &c);
	sl_store_close(st);
	json_decref(list);
	if (err)
		return cli_error("%s: %s", ab->db, sl_errmsg(err));
	if (!c)
		return cli_error("schedlensd stored no comparison in %s (its log: `lab run "
				 "--daemon N --keep DIR`, DIR/daemon.log)",
				 ab->db);
	if (!same_runs(json_object_get(c, "baseline_runs"), &ab->side[0]) ||
	    !same_runs(json_object_get(c, "candidate_runs"), &ab->side[1])) {
		json_decref(c);
		return cli_error("schedlensd's comparison %lld is not of A's runs against B's run",
				 (long long)id);
	}
	*ret = c;
	return 0;
}

/* The daemon's verdict on metric of group grp, or NULL when it has no such finding. */
static const char *daemon_verdict(json_t *c, const char *metric, const char *grp)
{
	size_t i;
	json_t *f;

	json_array_foreach(
		json_object_get(c, "findings"), i,
		f) if (!strcmp(json_string_value(json_object_get(f, "metric")) ?: "", metric) &&
		       !strcmp(json_string_value(json_object_get(f, "group")) ?: "",
			       grp)) return json_string_value(json_object_get(f, "verdict"));
	return NULL;
}

/* "1,2,3" */
static const char *runs_text(const struct lab_side *side, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < side->nr_runs && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? "," : "",
					(long long)side->runs[i]);
	return buf;
}

static const struct pr_col summary_cols[] = {
	{ "baseline_runs", "A RUNS", PR_STR },
	{ "candidate_run", "B RUN", PR_INT },
	{ "daemon_comparison", "SCHEDLENSD'S COMPARISON", PR_INT },
	{ "daemon_verdict", "ITS VERDICT", PR_STR },
	{ "comparison", "THE SAME RUNS, ALL WINDOWS", PR_INT },
	{ "verdict", "ITS VERDICT", PR_STR },
	{ "compared", "PRIMARY FINDINGS", PR_INT },
	{ "same", "SAME VERDICT", PR_INT },
	{ "contradictions", "CONTRADICTIONS", PR_INT },
};

static const struct pr_col metric_cols[] = {
	{ "metric", "METRIC", PR_STR },
	{ "group", "GROUP", PR_STR },
	{ "daemon", "SCHEDLENSD", PR_STR },
	{ "here", "ALL WINDOWS", PR_STR },
	{ "contradiction", "CONTRADICTS", PR_BOOL },
};

/* Both comparisons side by side; the exit status (a contradiction fails). */
static int report(const struct lab_ab *ab, json_t *dc, const struct sl_comparison *c)
{
	const char *dv = json_string_value(json_object_get(dc, "verdict")) ?: "?";
	char runs[MAX_RUNS * 21];
	int compared = 0, same = 0, bad = 0, status;
	struct pr *p = pr_open(ab->json ? PR_JSON : PR_TEXT, PR_SECTIONS, stdout);

	if (!p)
		return cli_error("out of memory");
	pr_table(p, "metrics", "primary metrics, verdict of each comparison:", metric_cols,
		 sizeof(metric_cols) / sizeof(metric_cols[0]), 0);
	for (size_t i = 0; i < c->nr_findings; i++) {
		const struct sl_finding *f = &c->findings[i];
		const char *here = sl_verdict_name(f->verdict), *d;

		if (!f->primary || !(d = daemon_verdict(dc, f->metric->name, f->grp)))
			continue;
		compared++;
		same += !strcmp(d, here);
		bad += contradict(d, here);
		pr_row(p);
		pr_str(p, f->metric->name);
		pr_str(p, f->grp);
		pr_str(p, d);
		pr_str(p, here);
		pr_bool(p, contradict(d, here));
	}
	pr_table_end(p);
	pr_table(p, "upgrade", NULL, summary_cols, sizeof(summary_cols) / sizeof(summary_cols[0]),
		 PR_RECORD);
	pr_row(p);
	pr_str(p, runs_text(&ab->side[0], runs, sizeof(runs)));
	pr_int(p, ab->side[1].runs[0]);
	pr_int(p, json_integer_value(json_object_get(dc, "id")));
	pr_str(p, dv);
	pr_int(p, c->id);
	pr_str(p, sl_verdict_name(c->verdict));
	pr_int(p, compared);
	pr_int(p, same);
	pr_int(p, bad);
	pr_table_end(p);
	status = pr_close(p) < 0 ? cli_error("cannot write the report to stdout") : EXIT_OK;
	if (!compared)
		return cli_error("the comparisons have no primary metric in common");
	if (bad)
		return cli_error("schedlensd's comparison contradicts the same runs' on %d of %d "
				 "primary metrics",
				 bad, compared);
	return status;
}

int cmd_lab_upgrade(int argc, char **argv)
{
	static struct lab_ab ab;
	struct sl_comparison *c = NULL;
	json_t *dc = NULL;
	char windows[32];
	struct stat sb;
	int err;
	struct sl_compare_opts defaults;

	/* the comparison here at the daemon's alpha: like against like */
	sl_compare_opts_default(&defaults);
	ab = (struct lab_ab){ .db = "upgrade.db", .alpha = defaults.alpha, .runs_each = 2 };
	if ((err = lab_args(argc, argv, &ab, LAB_UPGRADE)) >= 0)
		return err;
	if (ab.nr_pass + 2 > (int)(sizeof(ab.pass) / sizeof(ab.pass[0])))
		return cli_usage_error("lab", "too many run options");
	if (!strcmp(ab.side[0].kernel, ab.side[1].kernel))
		return cli_usage_error("lab", "upgrade needs two kernels: schedlensd compares when "
					      "the kernel changes");
	/* the daemon compares every run of both kernels, and none once one is stored */
	if (!stat(ab.db, &sb))
		return cli_usage_error("lab",
				       "%s exists: upgrade starts a database of its own "
				       "(-o NEW.db)",
				       ab.db);
	/* as many windows of 1 s as the workload runs: the daemon compares as it ends */
	snprintf(windows, sizeof(windows), "%d",
		 ab.compare_after ? ab.compare_after :
		 ab.duration	  ? ab.duration :
				    10);
	ab.pass[ab.nr_pass++] = "--daemon";
	ab.pass[ab.nr_pass++] = windows;
	lab_export_self();
	fprintf(stderr,
		"lab upgrade: A %d time%s, then B, with schedlensd comparing after %s windows\n",
		ab.runs_each, ab.runs_each == 1 ? "" : "s", windows);
	for (int i = 0; i < ab.runs_each; i++)
		if ((err = lab_run_side(&ab, &ab.side[0], NULL)))
			goto out;
	if ((err = lab_run_side(&ab, &ab.side[1], NULL)) || (err = daemon_comparison(&ab, &dc)) ||
	    (err = lab_compare_sides(&ab, &ab.side[0], &ab.side[1], 1, true, &c)))
		goto out;
	err = report(&ab, dc, c);
out:
	json_decref(dc);
	sl_comparison_free(c);
	return err;
}
