// SPDX-License-Identifier: GPL-2.0-only
/*
 * Window-level synthetic runs with a run-level random effect (synth-windows.h), written
 * through the store's writer like a recording's windows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "hist.h"
#include "records.h"
#include "stats.h"
#include "synth-windows.h"

void synth_win_default(struct synth_win_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->workload = "synth-windows";
	cfg->seed = 1;
	cfg->windows = 20;
	cfg->window_ns = 1000000000ull;
	cfg->wakeups = 2000;
	cfg->run_sd = 0.10;
	cfg->window_sd = 0.10;
	cfg->lhp_factor = 1;
}

static double normal(struct sl_rng *r)
{
	double u = sl_rng_double(r), v = sl_rng_double(r);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static uint64_t poisson(struct sl_rng *r, double mean)
{
	double x;

	if (mean <= 0)
		return 0;
	if (mean < 30) {
		double l = exp(-mean), p = 1;
		uint64_t k = 0;

		do {
			k++;
			p *= sl_rng_double(r);
		} while (p > l);
		return k - 1;
	}
	x = round(mean + sqrt(mean) * normal(r));
	return x > 0 ? (uint64_t)x : 0;
}

static uint64_t binomial(struct sl_rng *r, uint64_t n, double p)
{
	double x;

	if (p <= 0 || !n)
		return 0;
	if (p >= 1)
		return n;
	if (n * p < 30 || n * (1 - p) < 30) {
		uint64_t k = 0;

		for (uint64_t i = 0; i < n; i++)
			k += sl_rng_double(r) < p;
		return k;
	}
	x = round(n * p + sqrt(n * p * (1 - p)) * normal(r));
	return x < 0 ? 0 : x > n ? n : (uint64_t)x;
}

static double logistic(double x)
{
	return 1 / (1 + exp(-x));
}

/* Shares (on the logit scale) and rates (log scale) one group's windows are drawn from. */
enum {
	P_MISSED_IDLE,
	P_MISSED_SMT,
	P_STACKED,
	P_PREV_SAME,
	P_PREV_SMT,
	P_PREV_LLC,
	P_WAKER_SAME,
	P_WAKER_SMT,
	P_WAKER_LLC,
	P_BUSY,
	P_PREEMPT_WAKEUP, /* of switches */
	P_PREEMPT_TICK,
	P_PREEMPT_SAME,
	P_POL_PREV_IDLE,
	P_POL_LLC_SCAN,
	P_POL_BUDDY,
	P_POL_SMT_FIRST,
	R_LHP, /* per second */
	R_LHP_COST_US, /* mean cost per LHP, us */
	R_HUB,
	R_MIGRATIONS,
	R_LAT_MEDIAN_US,
	NR_PARAMS
};

static const double base_value[NR_PARAMS] = {
	[P_MISSED_IDLE] = 0.20,	   [P_MISSED_SMT] = 0.05,
	[P_STACKED] = 0.02,	   [P_PREV_SAME] = 0.40,
	[P_PREV_SMT] = 0.10,	   [P_PREV_LLC] = 0.30,
	[P_WAKER_SAME] = 0.45,	   [P_WAKER_SMT] = 0.10,
	[P_WAKER_LLC] = 0.30,	   [P_BUSY] = 0.40,
	[P_PREEMPT_WAKEUP] = 0.15, [P_PREEMPT_TICK] = 0.05,
	[P_PREEMPT_SAME] = 0.05,   [P_POL_PREV_IDLE] = 0.50,
	[P_POL_LLC_SCAN] = 0.60,   [P_POL_BUDDY] = 0.30,
	[P_POL_SMT_FIRST] = 0.40,  [R_LHP] = 20,
	[R_LHP_COST_US] = 200,	   [R_HUB] = 30,
	[R_MIGRATIONS] = 300,	   [R_LAT_MEDIAN_US] = 40,
};

static void push_group(struct sl_writer *w, struct sl_rng *r, const struct synth_win_config *cfg,
		       const char *grp, double scale, const double *run, int64_t run_id, int i)
{
	struct sl_window_rec rec;
	double p[NR_PARAMS], secs = (double)cfg->window_ns / 1e9;
	double ramp = cfg->windows > 1 ? cfg->warmup * ((double)i / (cfg->windows - 1) - 0.5) : 0;
	uint64_t n, rest;

	memset(&rec, 0, sizeof(rec));
	rec.run_id = run_id;
	rec.start_ns = (uint64_t)i * cfg->window_ns;
	rec.dur_ns = cfg->window_ns;
	snprintf(rec.grp, sizeof(rec.grp), "%s", grp);
	for (int k = 0; k < NR_PARAMS; k++) {
		double e = run[k] + ramp + cfg->window_sd * normal(r);

		p[k] = k < R_LHP ? logistic(e) : exp(e);
	}
	n = poisson(r, cfg->wakeups * scale * secs);
	rec.wakeups = n;
	rec.events = 4 * n;
	rec.target_state[SL_TS_BUSY] = binomial(r, n, p[P_BUSY]);
	rec.target_state[SL_TS_CLAIMED] =
		binomial(r, n - rec.target_state[SL_TS_BUSY], p[P_STACKED]);
	rec.target_state[SL_TS_IDLE] =
		n - rec.target_state[SL_TS_BUSY] - rec.target_state[SL_TS_CLAIMED];
	rec.stacked = rec.target_state[SL_TS_CLAIMED];
	rec.missed_idle = binomial(r, n, p[P_MISSED_IDLE]);
	if (rec.missed_idle > rec.target_state[SL_TS_BUSY])
		rec.missed_idle = rec.target_state[SL_TS_BUSY];
	rec.missed_smt = binomial(r, rec.target_state[SL_TS_BUSY], p[P_MISSED_SMT]);
	/* placement: same, then smt and llc of what is left, then package and remote */
	rest = n;
	rec.class_prev[SL_RREL_SAME] = binomial(r, rest, p[P_PREV_SAME]);
	rest -= rec.class_prev[SL_RREL_SAME];
	rec.class_prev[SL_RREL_SMT] = binomial(r, rest, p[P_PREV_SMT]);
	rest -= rec.class_prev[SL_RREL_SMT];
	rec.class_prev[SL_RREL_LLC] = binomial(r, rest, p[P_PREV_LLC]);
	rest -= rec.class_prev[SL_RREL_LLC];
	rec.class_prev[SL_RREL_PACKAGE] = binomial(r, rest, 0.5);
	rec.class_prev[SL_RREL_REMOTE] = rest - rec.class_prev[SL_RREL_PACKAGE];
	rest = n;
	rec.class_waker[SL_RREL_SAME] = binomial(r, rest, p[P_WAKER_SAME]);
	rest -= rec.class_waker[SL_RREL_SAME];
	rec.class_waker[SL_RREL_SMT] = binomial(r, rest, p[P_WAKER_SMT]);
	rest -= rec.class_waker[SL_RREL_SMT];
	rec.class_waker[SL_RREL_LLC] = binomial(r, rest, p[P_WAKER_LLC]);
	rest -= rec.class_waker[SL_RREL_LLC];
	rec.class_waker[SL_RREL_PACKAGE] = binomial(r, rest, 0.5);
	rec.class_waker[SL_RREL_REMOTE] = rest - rec.class_waker[SL_RREL_PACKAGE];
	rec.switches = n + n / 10;
	rec.preempt_wakeup = binomial(r, rec.switches, p[P_PREEMPT_WAKEUP]);
	rec.preempt_tick = binomial(r, rec.switches, p[P_PREEMPT_TICK]);
	rec.preempt_same_group = binomial(r, rec.switches, p[P_PREEMPT_SAME]);
	rec.lhp_count = poisson(r, p[R_LHP] * scale * secs);
	/* a sum of exponential costs: its mean times a gamma-ish spread */
	for (uint64_t k = 0; k < rec.lhp_count; k++)
		rec.lhp_cost_ns += (uint64_t)(-log(1 - sl_rng_double(r)) * p[R_LHP_COST_US] * 1e3);
	rec.hub_preemptions = poisson(r, p[R_HUB] * scale * secs);
	rec.migrations = poisson(r, p[R_MIGRATIONS] * scale * secs);
	rec.policy_known = n;
	/* the affine policy picks the waker's CPU: it agrees when the kernel did too */
	rec.policy_agree[SL_POL_AFFINE] = rec.class_waker[SL_RREL_SAME];
	rec.policy_agree[SL_POL_PREV_IDLE] = binomial(r, n, p[P_POL_PREV_IDLE]);
	rec.policy_agree[SL_POL_LLC_SCAN] = binomial(r, n, p[P_POL_LLC_SCAN]);
	rec.policy_agree[SL_POL_BUDDY] = binomial(r, n, p[P_POL_BUDDY]);
	rec.policy_agree[SL_POL_SMT_FIRST] = binomial(r, n, p[P_POL_SMT_FIRST]);
	/* latency: lognormal about the window's median, a few hundred samples */
	for (int k = 0; k < 300; k++)
		sl_hist_add(&rec.latency,
			    (uint64_t)(p[R_LAT_MEDIAN_US] * 1e3 * exp(0.8 * normal(r))));
	sl_writer_push_window(w, &rec);
}

int synth_win_to_store(struct sl_store *store, const struct synth_win_config *cfg,
		       int64_t *ret_run_id)
{
	struct sl_host_info host = { .hostname = "synth-windows",
				     .topo_hash = "5e1f5e1f5e1f5e1f",
				     .nr_cpus = 16 };
	struct sl_run_meta meta = { .kernel_release = cfg->kernel_release,
				    .workload = cfg->workload ? cfg->workload : "synth-windows",
				    .source = "text",
				    .trace_clock = "mono",
				    .nr_cpus = 16 };
	struct sl_run_totals tot = { .end_ns = (uint64_t)cfg->windows * cfg->window_ns };
	double run[3][NR_PARAMS];
	struct sl_writer *w;
	struct sl_rng r;
	int64_t id;
	int err;

	if ((err = sl_store_host_upsert(store, &host, &meta.host_id)) ||
	    (err = sl_store_run_begin(store, &meta, &id)) ||
	    (err = sl_writer_start(store, NULL, &w)))
		return err;
	sl_rng_seed(&r, cfg->seed);
	for (int g = 0; g < (cfg->small_group > 0 ? 3 : 2); g++)
		for (int k = 0; k < NR_PARAMS; k++) {
			double b = base_value[k];

			if (g == 1 && k == P_WAKER_SAME)
				b += cfg->shift_pts / 100;
			if (g == 1 && k == R_LHP)
				b *= cfg->lhp_factor;
			b = k < R_LHP ? log(b / (1 - b)) : log(b);
			run[g][k] = b + cfg->run_sd * normal(&r);
			if (g == 1 && k == P_WAKER_SAME && cfg->waker_same > 0)
				run[g][k] = log(cfg->waker_same / (100 - cfg->waker_same));
		}
	for (int i = 0; i < cfg->windows; i++) {
		push_group(w, &r, cfg, SL_GROUP_ALL, 1.5, run[0], id, i);
		push_group(w, &r, cfg, "postgres", 1, run[1], id, i);
		if (cfg->small_group > 0)
			push_group(w, &r, cfg, "kworker", cfg->small_group, run[2], id, i);
	}
	err = sl_writer_stop(w);
	if (!err)
		err = sl_store_run_end(store, id, &tot);
	if (!err)
		err = sl_store_run_bins(store, id);
	if (!err && ret_run_id)
		*ret_run_id = id;
	return err;
}
