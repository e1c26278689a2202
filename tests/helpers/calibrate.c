// SPDX-License-Identifier: GPL-2.0-only
/*
 * `make calibrate`: the comparison's operating characteristics. First, on normal run
 * values, the size and power of the t test that also counts a kernel's runs outside the
 * comparison (distance_row). Then on window-level synthetic runs with a run-level random
 * effect (tests/synth/synth-windows.h): for 1, 2, 3 and 5 runs a side it compares PAIRS
 * A/A pairs (both sides drawn from one configuration) and prints the share of comparisons
 * that flagged a regression, flagged anything, or came out inconclusive or equivalent, and
 * the share whose report lists an unconfirmed change (sl_finding_unconfirmed()); the
 * same at 1 and 2 runs a side when each kernel has one or two runs more than are compared
 * ("2+1", as when a user picks runs by id). Every database holds, besides the pairs, 8
 * replicate runs of a "history" kernel, as a user's database holds earlier runs. Three A/A
 * rows have windows that are not stationary: every run repeats the same warm-up (a ramp of
 * 2.0 on the logit/log scale over the run) with a small run effect (sd 0.03), as the lab's
 * pgbench runs do; "2, w-u, h 0" is compared without any history (--history-runs 0), so
 * that the variance comes from the prior alone, and "2, w-u" and "2+1, w-u" have nothing
 * in their database but the pairs' kernels, like the lab's 6.1 vs 6.12 database: the
 * windows vary far more than the runs' values, and the false-regression rate must stay at
 * or below 1% there too. With CALIBRATE_LONG=N, N more A/A pairs of runs long enough (17
 * hours) to be compared by their 10-minute bins. Then the power against known effects
 * (struct effect): a 20-point shift of postgres' waker-same share and a 3x lock-holder
 * preemption rate at 2 runs a side, with and without a run more of each kernel, and the
 * shift at 2 runs against 1 (which must never be equivalent): the share that flagged the
 * effect's metric of postgres, found it equivalent, or listed it as an unconfirmed change.
 * Last, sequential experiments as `schedlens lab ab` runs them (seq_row; the spent A/A
 * row at least SEQ_AA_MIN). Usage: calibrate [PAIRS [DIR]]; exit 1 when a target is missed (the distance test above its level, false regressions above 1% at any
 * runs a side or over a whole sequential A/A experiment, a 2 vs 1 shift found equivalent,
 * or less than 80% power for the 20-point shift at 2 runs a side).
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../synth/synth-windows.h"
#include "compare.h"
#include "error.h"
#include "stats.h"
#include "store.h"

/* experiments of the spent sequential A/A row at least (main) */
#define SEQ_AA_MIN 500

struct tally {
	/* unconfirmed: comparisons with an unconfirmed change (sl_finding_unconfirmed()), or
	 * with a metric, that metric of postgres one */
	int done, regressions, flagged, inconclusive, equivalent, hit, unconfirmed;
};

/* Runs first..first+n-1 of base (NULL: synth_win_default's stationary windows) as kernel:
 * run i of a seed is the same whichever call makes it. */
static int make_runs_from(struct sl_store *st, const struct synth_win_config *base,
			  const char *kernel, int first, int n, uint64_t seed, double shift,
			  double lhp, int64_t *ids)
{
	struct synth_win_config cfg;
	int err = 0;

	synth_win_default(&cfg);
	if (base)
		cfg = *base;
	cfg.kernel_release = kernel;
	cfg.shift_pts = shift;
	cfg.lhp_factor = lhp;
	for (int i = 0; i < n && !err; i++) {
		cfg.seed = seed * 1000 + (uint64_t)(first + i);
		err = synth_win_to_store(st, &cfg, &ids[i]);
	}
	return err;
}

/* n runs of base (NULL: synth_win_default's stationary windows) as kernel. */
static int make_runs(struct sl_store *st, const struct synth_win_config *base, const char *kernel,
		     int n, uint64_t seed, double shift, double lhp, int64_t *ids)
{
	return make_runs_from(st, base, kernel, 0, n, seed, shift, lhp, ids);
}

/* One comparison (history_runs < 0: the default); hit: the metric named metric of
 * postgres was flagged. */
static int compare(struct sl_store *st, const int64_t *b, int nb, const int64_t *k, int nk,
		   int history_runs, const char *metric, struct tally *t)
{
	struct sl_compare_opts o;
	struct sl_comparison *c;
	int err;

	sl_compare_opts_default(&o);
	o.baseline_runs = b;
	o.nr_baseline_runs = nb;
	o.candidate_runs = k;
	o.nr_candidate_runs = nk;
	o.resamples = 200;
	if (history_runs >= 0)
		o.history_runs = history_runs;
	if ((err = sl_compare(st, &o, &c)))
		return err;
	t->done++;
	for (size_t i = 0; !metric && getenv("CALIBRATE_VERBOSE") && i < c->nr_findings; i++)
		if (c->findings[i].verdict <= SL_V_CHANGE)
			fprintf(stderr, "A/A %s %s: %s (p %.3g, adj %.3g, df %.3g)\n",
				sl_verdict_name(c->findings[i].verdict),
				c->findings[i].metric->name, c->findings[i].explanation,
				c->findings[i].p, c->findings[i].p_adj, c->findings[i].df);
	t->regressions += c->regressions > 0;
	t->flagged += c->regressions + c->improvements + c->changes > 0;
	t->inconclusive += c->verdict == SL_V_INCONCLUSIVE;
	t->equivalent += c->verdict == SL_V_EQUIVALENT;
	for (size_t i = 0, any = 0; !metric && !any && i < c->nr_findings; i++)
		t->unconfirmed += (any = sl_finding_unconfirmed(&c->findings[i]));
	for (size_t i = 0; metric && i < c->nr_findings; i++)
		if (!strcmp(c->findings[i].grp, "postgres") &&
		    !strcmp(c->findings[i].metric->name, metric)) {
			t->hit += c->findings[i].verdict <= SL_V_CHANGE;
			t->unconfirmed += sl_finding_unconfirmed(&c->findings[i]);
			t->equivalent -= c->verdict == SL_V_EQUIVALENT;
			t->equivalent += c->findings[i].verdict == SL_V_EQUIVALENT;
		}
	sl_comparison_free(c);
	return 0;
}

/* A new database with 8 runs of a "history" kernel, or none when !history. */
static struct sl_store *fresh_db(const char *dir, const char *name, bool history)
{
	char path[1024];
	struct sl_store *st;
	int64_t hist[8];

	snprintf(path, sizeof(path), "%s/%s.db", dir, name);
	unlink(path);
	if (sl_store_open(path, SL_STORE_CREATE, &st)) {
		fprintf(stderr, "calibrate: cannot open '%s': %s\n", path, sl_errmsg(-1));
		return NULL;
	}
	if (history && make_runs(st, NULL, "history", 8, 999999, 0, 1, hist)) {
		fprintf(stderr, "calibrate: %s\n", sl_errmsg(-1));
		sl_store_close(st);
		return NULL;
	}
	return st;
}

static double pct(int a, int b)
{
	return b ? 100.0 * a / b : 0;
}

/*
 * One A/A row: pairs comparisons of n runs a side of base (NULL: stationary windows), each
 * side a kernel of its own named PREFIX<pair>-base/-cand, with history_runs as in compare(),
 * in a database with a history kernel's runs or (!history) none. Each kernel has extra runs more than are compared (replicates outside the comparison,
 * as when a user picks runs by id). Prints the row under label and sets *fail when more
 * than 1% flagged a regression.
 */
static int aa_row(const char *dir, const char *name, const char *prefix, const char *label, int n,
		  int extra, int pairs, const struct synth_win_config *base, bool history,
		  int history_runs, int *fail)
{
	int64_t b[8], k[8];
	char kb[64], kk[64];
	struct tally t = { 0 };
	struct sl_store *st;
	int err = 0;

	if (!(st = fresh_db(dir, name, history)))
		return -EIO;
	for (int p = 0; p < pairs && !err; p++) {
		snprintf(kb, sizeof(kb), "%s%d-base", prefix, p);
		snprintf(kk, sizeof(kk), "%s%d-cand", prefix, p);
		err = make_runs(st, base, kb, n + extra, 2 * (uint64_t)p + 1, 0, 1, b);
		err = err ?: make_runs(st, base, kk, n + extra, 2 * (uint64_t)p + 2, 0, 1, k);
		err = err ?: compare(st, b, n, k, n, history_runs, NULL, &t);
	}
	sl_store_close(st);
	printf("%-12s %5d %10.1f%% %8.1f%% %12.1f%% %10.1f%% %11.1f%%\n", label, t.done,
	       pct(t.regressions, t.done), pct(t.flagged, t.done), pct(t.inconclusive, t.done),
	       pct(t.equivalent, t.done), pct(t.unconfirmed, t.done));
	fflush(stdout);
	*fail |= t.regressions * 100 > t.done;
	return err;
}

/*
 * Sequential experiments as `schedlens lab ab` runs them: K runs a side made up front, a
 * look after every pair (k vs k runs, k = 1..K), stopping when no primary metric is open.
 * spend: each look at alpha/K with intervals at 1 - 0.05/K (sl_compare_spend); else every
 * look at plain alpha, to show what spending buys. shift: waker_same_share of postgres on
 * the candidate side (0: A/A). Prints the share of experiments that flagged a regression
 * at some look (A/A: all false), that flagged postgres' waker_same_share (the effect),
 * that stopped before the budget (all primary metrics conclusive, or what is open needing
 * more runs than the budget: sl_compare_next), and the runs a side used; sets *fail when an A/A row
 * with spending flagged a regression in more than 1% of experiments.
 */
static int seq_row(const char *dir, const char *name, const char *label, int K, int n_exp,
		   double shift, bool spend, int *fail)
{
	int64_t b[8], k[8];
	char kb[64], kk[64];
	int done = 0, regr = 0, hit = 0, stopped = 0, runs = 0, err = 0;
	struct sl_store *st;

	if (K > 8 || !(st = fresh_db(dir, name, true)))
		return -EIO;
	for (int e = 0; e < n_exp && !err; e++) {
		bool any_regr = false, any_hit = false;
		int n;

		snprintf(kb, sizeof(kb), "s%d-base", e);
		snprintf(kk, sizeof(kk), "s%d-cand", e);
		for (n = 1; n <= K && !err; n++) {
			struct sl_compare_opts o;
			struct sl_comparison *c;
			enum sl_seq_next next;

			/* the pair this look adds, made only when the experiment gets there */
			err = make_runs_from(st, NULL, kb, n - 1, 1, 2 * (uint64_t)e + 7001, 0, 1,
					     &b[n - 1]);
			err = err   ?:
				      make_runs_from(st, NULL, kk, n - 1, 1, 2 * (uint64_t)e + 7002,
						     shift, 1, &k[n - 1]);
			if (err)
				break;

			sl_compare_opts_default(&o);
			o.baseline_runs = b;
			o.candidate_runs = k;
			o.nr_baseline_runs = o.nr_candidate_runs = n;
			o.resamples = 200;
			if (spend)
				sl_compare_spend(&o, K);
			if ((err = sl_compare(st, &o, &c)))
				break;
			any_regr |= c->regressions > 0;
			for (size_t i = 0; i < c->nr_findings; i++)
				any_hit |=
					!strcmp(c->findings[i].grp, "postgres") &&
					!strcmp(c->findings[i].metric->name, "waker_same_share") &&
					c->findings[i].verdict <= SL_V_CHANGE;
			next = sl_compare_next(c, n, K);
			sl_comparison_free(c);
			if (next != SL_SEQ_MORE)
				break;
		}
		done++;
		regr += any_regr;
		hit += any_hit;
		stopped += n < K;
		runs += n <= K ? n : K;
	}
	sl_store_close(st);
	printf("%-28s %5d %9.1f%% %9.1f%% %9.1f%% %9.2f\n", label, done, pct(regr, done),
	       pct(hit, done), pct(stopped, done), done ? (double)runs / done : 0);
	fflush(stdout);
	if (spend && shift == 0)
		*fail |= regr * 100 > done;
	return err;
}

static double normal(struct sl_rng *r)
{
	return sqrt(-2 * log(1 - sl_rng_double(r))) * cos(2 * M_PI * sl_rng_double(r));
}

/*
 * The t test with the compared runs' distance from their kernel's other runs (k a kernel
 * outside the comparison, compare-history.c) on normal run values: n runs a side, one
 * more of each kernel, N draws. The distance shares the side's mean with the compared
 * difference; the test must stay at or below its level. Prints the share of p below
 * 0.05, 0.01 and 0.001 under no change, the share below 0.01 at a change of 4 sd with and
 * without the extra runs, and for the exact alternative (only the sum of both sides'
 * distances, n u_b + n u_c, is independent of the difference: 1 df where they give 2)
 * its share below 0.01 under no change and at 4 sd. Sets *fail when a level is exceeded
 * by more than the simulation's error.
 */
static void distance_row(int n, int N, int *fail)
{
	static const double level[] = { 0.05, 0.01, 0.001 };
	int below[3] = { 0 }, hit = 0, hit_without = 0, exact = 0, hit_exact = 0;
	struct sl_rng r;

	sl_rng_seed(&r, 42 + (uint64_t)n);
	for (int it = 0; it < 2 * N; it++) {
		double shift = it < N ? 0 : 4, mean[2], ss = 0, dist_ss = 0, u[2], diff, p, p0, pe;

		for (int s = 0; s < 2; s++) {
			double x[8], sum = 0, other = normal(&r) + (s ? shift : 0);

			for (int i = 0; i < n; i++)
				sum += x[i] = normal(&r) + (s ? shift : 0);
			mean[s] = sum / n;
			for (int i = 0; i < n; i++)
				ss += (x[i] - mean[s]) * (x[i] - mean[s]);
			u[s] = other - mean[s];
			dist_ss += u[s] * u[s] / (1 + 1.0 / n);
		}
		diff = fabs(mean[1] - mean[0]);
		p = 2 * sl_stats_t_cdf(-diff / sqrt((ss + dist_ss) / (2 * n) * 2.0 / n), 2 * n);
		p0 = n > 1 ? 2 * sl_stats_t_cdf(-diff / sqrt(ss / (2 * n - 2) * 2.0 / n),
						2 * n - 2) :
			     1;
		/* var(u_b + u_c) = 2 (1 + 1/n) sigma^2 */
		pe = 2 * sl_stats_t_cdf(-diff / sqrt((ss + (u[0] + u[1]) * (u[0] + u[1]) /
								   (2 * (1 + 1.0 / n))) /
						     (2 * n - 1) * 2.0 / n),
					2 * n - 1);
		for (int a = 0; a < 3 && it < N; a++)
			below[a] += p < level[a];
		exact += it < N && pe < 0.01;
		hit += it >= N && p < 0.01;
		hit_without += it >= N && p0 < 0.01;
		hit_exact += it >= N && pe < 0.01;
	}
	printf("%d + 1 each %9d %9.4f %9.4f %9.5f %10.1f%% %8.1f%% %9.4f %8.1f%%\n", n, N,
	       (double)below[0] / N, (double)below[1] / N, (double)below[2] / N, pct(hit, N),
	       pct(hit_without, N), (double)exact / N, pct(hit_exact, N));
	fflush(stdout);
	for (int a = 0; a < 3; a++)
		*fail |= below[a] > level[a] * N + 4 * sqrt(level[a] * N);
}

/* A known effect on postgres on the candidate side, and how it is compared. */
struct effect {
	const char *what, *metric;
	double shift, lhp; /* waker_same_share points, lock-holder preemption factor */
	int nb, nk, extra; /* runs compared a side; each kernel's runs outside the comparison */
	bool warmup; /* the warm-up windows, and no history kernel in the database */
	bool target_power; /* must be flagged in 80% or more */
};

static const struct effect effects[] = {
	{ "waker_same_share +20 pts", "waker_same_share", 20, 1, 2, 2, 0, false, true },
	{ "lhp_rate x3", "lhp_rate", 0, 3, 2, 2, 0, false, false },
	{ "waker_same_share +20 pts", "waker_same_share", 20, 1, 2, 1, 0, false, false },
	{ "waker_same_share +20 pts", "waker_same_share", 20, 1, 2, 2, 1, false, false },
	{ "lhp_rate x3", "lhp_rate", 0, 3, 2, 2, 1, false, false },
	{ "waker_same_share +20 pts, warm-up", "waker_same_share", 20, 1, 2, 2, 0, true, false },
	{ "waker_same_share +20 pts, warm-up", "waker_same_share", 20, 1, 2, 2, 1, true, false },
};

int main(int argc, char **argv)
{
	static const int sides[] = { 1, 2, 3, 5 };
	int pairs = argc > 1 ? atoi(argv[1]) : 500, fail = 0, err = 0, seq_aa;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	int64_t b[8], k[8];
	struct tally t;
	struct sl_store *st;
	char kb[64], kk[64], name[64], label[32];

	if (pairs < 10 || pairs > 100000) {
		fprintf(stderr, "usage: calibrate [PAIRS (10..100000) [DIR]]\n");
		return 2;
	}
	printf("a kernel's runs outside the comparison: the t test with their distance from the "
	       "side's runs, on normal run values (share of p below each level under no change; "
	       "share of p < 0.01 at a change of 4 sd with and without them; the exact 1-df "
	       "test's share below 0.01 under no change and at 4 sd)\n");
	printf("%-12s %7s %9s %9s %9s %11s %9s %9s %9s\n", "runs/side", "draws", "0.05", "0.01",
	       "0.001", "4 sd, with", "without", "exact", "4 sd");
	for (int n = 1; n <= 3; n++)
		distance_row(n, pairs * 400, &fail);
	printf("\nA/A pairs with a run-level random effect (sd 0.10 on logit/log scale), %d pairs "
	       "per row, alpha 0.01\n",
	       pairs);
	printf("%-12s %5s %11s %9s %13s %11s %12s\n", "runs/side", "pairs", "false regr",
	       "any flag", "inconclusive", "equivalent", "unconfirmed");
	for (size_t s = 0; s < sizeof(sides) / sizeof(sides[0]) && !err; s++) {
		snprintf(name, sizeof(name), "calibrate-aa%d", sides[s]);
		snprintf(label, sizeof(label), "%d", sides[s]);
		err = aa_row(dir, name, "aa", label, sides[s], 0, pairs, NULL, true, -1, &fail);
	}
	/* runs of each kernel outside the comparison are its replicates (compare-history.c) */
	for (int r = 0; r < 3 && !err; r++) {
		static const int n[] = { 1, 2, 1 }, extra[] = { 1, 1, 2 };

		snprintf(name, sizeof(name), "calibrate-aa%dplus%d", n[r], extra[r]);
		snprintf(label, sizeof(label), "%d+%d", n[r], extra[r]);
		err = aa_row(dir, name, "aa", label, n[r], extra[r], pairs, NULL, true, -1, &fail);
	}
	if (!err) {
		struct synth_win_config w;

		synth_win_default(&w);
		w.warmup = 2.0;
		w.run_sd = 0.03;
		err = aa_row(dir, "calibrate-warmup", "w", "2, w-u, h 0", 2, 0, pairs, &w, true, 0,
			     &fail);
		/* as the lab's pgbench pairs: nothing in the database but the pairs' kernels
		 * (each other's history), with 2 runs a side, and with a third run of each */
		err = err   ?:
			      aa_row(dir, "calibrate-warmup2", "w", "2, w-u", 2, 0, pairs, &w,
				     false, -1, &fail);
		err = err   ?:
			      aa_row(dir, "calibrate-warmup3", "w", "2+1, w-u", 2, 1, pairs, &w,
				     false, -1, &fail);
	}
	/* CALIBRATE_LONG=N: N A/A pairs of 2 runs a side of 61,000 windows (102 10-minute
	 * bins, so the comparison resamples bins: docs/statistics.md); off by default, as a
	 * pair takes seconds to write */
	if (!err && getenv("CALIBRATE_LONG") && atoi(getenv("CALIBRATE_LONG")) > 0) {
		struct synth_win_config w;

		synth_win_default(&w);
		w.windows = 61000;
		err = aa_row(dir, "calibrate-long", "l", "2, 17 h", 2, 0,
			     atoi(getenv("CALIBRATE_LONG")), &w, true, -1, &fail);
	}
	printf("\npower against known effects (postgres), %d comparisons per row\n", pairs / 5);
	printf("%-34s %11s %8s %11s %12s\n", "effect", "runs", "flagged", "equivalent",
	       "unconfirmed");
	for (size_t e = 0; e < sizeof(effects) / sizeof(effects[0]) && !err; e++) {
		const struct effect *x = &effects[e];
		struct synth_win_config w;

		synth_win_default(&w);
		if (x->warmup) {
			w.warmup = 2.0;
			w.run_sd = 0.03;
		}
		snprintf(name, sizeof(name), "calibrate-power%zu", e);
		if (!(st = fresh_db(dir, name, !x->warmup)))
			return 2;
		memset(&t, 0, sizeof(t));
		for (int p = 0; p < pairs / 5 && !err; p++) {
			snprintf(kb, sizeof(kb), "p%d-base", p);
			snprintf(kk, sizeof(kk), "p%d-cand", p);
			err = make_runs(st, &w, kb, x->nb + x->extra, 2 * (uint64_t)p + 1, 0, 1, b);
			err = err   ?:
				      make_runs(st, &w, kk, x->nk + x->extra, 2 * (uint64_t)p + 2,
						x->shift, x->lhp, k);
			err = err ?: compare(st, b, x->nb, k, x->nk, -1, x->metric, &t);
		}
		sl_store_close(st);
		if (x->extra)
			snprintf(label, sizeof(label), "%d+%d vs %d+%d", x->nb, x->extra, x->nk,
				 x->extra);
		else
			snprintf(label, sizeof(label), "%d vs %d", x->nb, x->nk);
		printf("%-34s %11s %7.1f%% %10.1f%% %11.1f%%\n", x->what, label, pct(t.hit, t.done),
		       pct(t.equivalent, t.done), pct(t.unconfirmed, t.done));
		fflush(stdout);
		if (x->target_power)
			fail |= t.hit * 100 < 80 * t.done;
		if (x->nk < x->nb)
			fail |= t.equivalent > 0;
	}
	/*
	 * The spent A/A row decides a 1% target, and its rate measured at 500 experiments is
	 * 0.4%. At 100 (CI's PAIRS) one false regression is already 1.0%, and a true 0.4%
	 * fails the target with chance 6.1% (2 or more); at 500, 1.6% (6 or more), while a
	 * true 2% still fails with chance 93%. The row costs about 5 s per 100 here, so it
	 * never runs fewer than SEQ_AA_MIN, whatever PAIRS.
	 */
	seq_aa = pairs > SEQ_AA_MIN ? pairs : SEQ_AA_MIN;
	printf("\nsequential experiments (schedlens lab ab): a look after every pair, at most 4 "
	       "runs a side; %d experiments for the first row, %d for the others\n",
	       seq_aa, pairs / 5);
	printf("%-28s %5s %10s %10s %10s %9s\n", "experiment", "n", "regression", "effect hit",
	       "stopped", "runs/side");
	for (int r = 0; r < 3 && !err; r++) {
		const char *what[] = { "A/A, alpha spent over looks", "A/A, plain alpha each look",
				       "waker_same_share +20 pts" };

		snprintf(name, sizeof(name), "calibrate-seq%d", r);
		err = seq_row(dir, name, what[r], 4, r ? pairs / 5 : seq_aa, r == 2 ? 20 : 0,
			      r != 1, &fail);
	}
	if (err) {
		fprintf(stderr, "calibrate: %s\n", sl_errmsg(err));
		return 2;
	}
	printf("\n%s\n",
	       fail ? "calibration: a target was missed" : "calibration: every target met");
	return fail;
}
