// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison of long runs by their 10-minute bins (window_bins, CMP_MIN_BINS in
 * lib/compare/compare-units-local.h) on a real SQLite file: runs of 61,000 1 s windows
 * (102 bins) and one of 6,000 (11 bins, under the threshold). Through the bins, every
 * observed value and window count is the windows' own (compared with --block, which reads
 * the windows); the bins are really read (a bin changed by hand moves the value), and only
 * for runs long enough; the within-run variance from blocks of bins is close to the one
 * from blocks of windows (the windows are independent draws here, so both estimate the
 * same quantity).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "../synth/synth-windows.h"
#include "compare.h"
#include "error.h"
#include "fixture.h"
#include "store.h"
#include "tap.h"

static int64_t add_run(struct sl_store *st, const char *kernel, int windows, uint64_t seed)
{
	struct synth_win_config cfg;
	int64_t run = -1;

	synth_win_default(&cfg);
	cfg.kernel_release = kernel;
	cfg.windows = windows;
	cfg.seed = seed;
	if (synth_win_to_store(st, &cfg, &run))
		diag("synth: %s", sl_errmsg(-1));
	return run;
}

static struct sl_comparison *compare(struct sl_store *st, int64_t b, int64_t c, size_t block)
{
	struct sl_compare_opts o;
	struct sl_comparison *r = NULL;

	sl_compare_opts_default(&o);
	o.baseline_runs = &b;
	o.nr_baseline_runs = 1;
	o.candidate_runs = &c;
	o.nr_candidate_runs = 1;
	o.history_runs = 0;
	o.block_len = block;
	if (sl_compare(st, &o, &r)) {
		diag("compare: %s", sl_errmsg(-1));
		sl_comparison_free(r);
		return NULL;
	}
	return r;
}

static const struct sl_finding *finding(const struct sl_comparison *c, const char *grp,
					const char *metric)
{
	for (size_t i = 0; c && i < c->nr_findings; i++)
		if (!strcmp(c->findings[i].grp, grp) &&
		    !strcmp(c->findings[i].metric->name, metric))
			return &c->findings[i];
	return NULL;
}

/* Every finding's observed values equal in a and b; the count of those that are not. */
static int differing_values(const struct sl_comparison *a, const struct sl_comparison *b)
{
	int bad = 0;

	for (size_t i = 0; i < a->nr_findings; i++) {
		const struct sl_finding *f = &a->findings[i];
		const struct sl_finding *g = finding(b, f->grp, f->metric->name);

		for (int s = 0; s < 2; s++) {
			double x = s ? f->cand : f->base, y = g ? (s ? g->cand : g->base) : NAN;

			if (!(isnan(x) && isnan(y)) && !(fabs(x - y) <= 1e-9 * fabs(x) + 1e-12)) {
				if (!bad)
					diag("%s %s: %.12g vs %.12g", f->grp, f->metric->name, x,
					     y);
				bad++;
			}
		}
	}
	return bad;
}

static double waker_same(struct sl_store *st, int64_t b, int64_t c)
{
	struct sl_comparison *r = compare(st, b, c, 0);
	const struct sl_finding *f = finding(r, "postgres", "waker_same_share");
	double v = f ? f->base : NAN;

	sl_comparison_free(r);
	return v;
}

/* Doubles postgres' waker_same in run's bins (the windows are left alone). */
static void double_bins(struct sl_store *st, int64_t run)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "UPDATE window_bins SET waker_same = 2 * waker_same WHERE run_id = %lld AND "
		 "grp = 'postgres'",
		 (long long)run);
	is_int(sqlite3_exec(sl_store_db(st), sql, NULL, NULL, NULL), SQLITE_OK,
	       "run %lld's bins changed by hand", (long long)run);
}

int main(void)
{
	struct sl_comparison *bins, *windows;
	const struct sl_finding *fb, *fw;
	int64_t a, b, shrt;
	struct sl_store *st;
	double before;

	if (sl_store_open(fixture_path("compare-bins.db"), SL_STORE_CREATE, &st)) {
		printf("Bail out! store: %s\n", sl_errmsg(-1));
		return 1;
	}
	a = add_run(st, "6.1.0", 61000, 1);
	b = add_run(st, "6.12.0", 61000, 2);
	shrt = add_run(st, "6.12.0", 6000, 3);
	ok(a > 0 && b > 0 && shrt > 0, "three runs stored");
	is_int(fixture_q_int_db(sl_store_db(st),
				"SELECT COUNT(*) FROM window_bins WHERE grp = '*' GROUP BY run_id "
				"ORDER BY run_id LIMIT 1"),
	       102, "61,000 s of windows make 102 bins");

	/* the same values through the bins and through the windows (--block) */
	bins = compare(st, a, b, 0);
	windows = compare(st, a, b, 39);
	ok(bins && windows && bins->nr_findings > 20 && bins->nr_findings == windows->nr_findings,
	   "both comparisons ran (%zu findings)", bins ? bins->nr_findings : 0);
	if (!bins || !windows)
		return done_testing();
	is_int(differing_values(bins, windows), 0, "every observed value is the windows' own");
	is_int((long long)bins->side[0].windows, 61000,
	       "the baseline counts its windows, not bins");
	is_int((long long)bins->side[1].windows, (long long)windows->side[1].windows,
	       "... the candidate too");
	fb = finding(bins, "postgres", "waker_same_share");
	fw = finding(windows, "postgres", "waker_same_share");
	ok(fb && fw && fb->v > 0 && fw->v > 0 && fb->v / fw->v > 0.5 && fb->v / fw->v < 2,
	   "within-run variance of blocks of bins %.3g, of blocks of windows %.3g", fb ? fb->v : 0,
	   fw ? fw->v : 0);
	fb = finding(bins, "*", "migration_rate");
	fw = finding(windows, "*", "migration_rate");
	ok(fb && fw && fb->v > 0 && fw->v > 0 && fb->v / fw->v > 0.5 && fb->v / fw->v < 2,
	   "... of the migration rate %.3g and %.3g", fb ? fb->v : 0, fw ? fw->v : 0);
	fb = finding(bins, "postgres", "latency_p99");
	fw = finding(windows, "postgres", "latency_p99");
	ok(fb && fw && fb->v > 0 && fw->v > 0 && fb->v / fw->v > 0.5 && fb->v / fw->v < 2,
	   "... of latency p99 %.3g and %.3g", fb ? fb->v : 0, fw ? fw->v : 0);
	sl_comparison_free(bins);
	sl_comparison_free(windows);

	/* the bins are what a long run is read from; a shorter run is read from windows */
	before = waker_same(st, a, b);
	double_bins(st, a);
	ok(waker_same(st, a, b) > 1.2 * before, "a long run's value comes from its bins");
	before = waker_same(st, shrt, b);
	double_bins(st, shrt);
	ok(waker_same(st, shrt, b) == before, "a run of 11 bins is read from its windows");
	sl_store_close(st);
	return done_testing();
}
