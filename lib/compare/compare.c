// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison itself: loads the windows of the selected runs, groups them by window
 * group, side and unit (a run, or a segment of one), and tests every metric with a
 * moderated t on unit values (README.md "Comparing kernels"). Each unit's value is pooled
 * (sum of numerators over sum of denominators, or a quantile of the merged latency
 * histogram: never a mean of per-window ratios) and its within-run variance comes from a
 * moving-block bootstrap of its windows; block sums come from prefix sums, so a resample
 * costs one subtraction per column per block (a run of CMP_MIN_BINS 10-minute bins or
 * more is loaded by its bins of window_bins, which then stand for its windows). Run-to-run
 * variance is the units' residual variance, with the compared kernels' other runs' distance
 * from them (own_runs()), shrunk toward the history's (comparable runs of other
 * configurations) or toward an empirical-Bayes prior fitted over every metric and group.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-local.h"
#include "compare-units-local.h"
#include "error.h"
#include "stats.h"
#include "store-query.h"

const char *sl_verdict_name(enum sl_verdict v)
{
	static const char *const names[] = { "regression", "improvement",  "change",
					     "equivalent", "inconclusive", "insufficient_data" };

	return v <= SL_V_INSUFFICIENT ? names[v] : "?";
}

void sl_compare_opts_default(struct sl_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->resamples = 1000;
	o->alpha = 0.01;
	o->ci_level = 0.95;
	o->rel_threshold = 0.10;
	o->floor_scale = 1;
	o->single_run_factor = 3;
	o->history_runs = 24;
	o->min_windows = 10;
}

void cmp_free_loaded(struct loaded *l)
{
	for (int i = 0; i < l->nr; i++)
		for (int s = 0; s < 2; s++) {
			for (int k = 0; k < l->g[i].side[s].nr; k++) {
				free(l->g[i].side[s].u[k].cols);
				free(l->g[i].side[s].u[k].hoff);
				free(l->g[i].side[s].u[k].bins);
			}
			free(l->g[i].side[s].u);
		}
	free(l->g);
}

static struct group *find_group(struct loaded *l, const char *name)
{
	struct group *g;

	for (int i = 0; i < l->nr; i++)
		if (!strcmp(l->g[i].name, name))
			return &l->g[i];
	g = realloc(l->g, sizeof(*g) * (l->nr + 1));
	if (!g)
		return NULL;
	l->g = g;
	g = &l->g[l->nr++];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%.*s", SL_GROUP_LEN - 1, name);
	return g;
}

static struct unit *find_unit(struct gside *s, int64_t run_id, uint64_t seg)
{
	struct unit *u;

	if (s->nr && s->u[s->nr - 1].run_id == run_id && s->u[s->nr - 1].seg == seg)
		return &s->u[s->nr - 1];
	u = realloc(s->u, sizeof(*u) * (s->nr + 1));
	if (!u)
		return NULL;
	s->u = u;
	u = &s->u[s->nr++];
	memset(u, 0, sizeof(*u));
	u->run_id = run_id;
	u->seg = seg;
	return u;
}

static int unit_add(struct unit *u, const struct sl_window_rec *w)
{
	if (u->n + 1 >= u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		double *c = realloc(u->cols, sizeof(*c) * NC * cap);
		size_t *h;

		if (!c)
			return -ENOMEM;
		u->cols = c;
		h = realloc(u->hoff, sizeof(*h) * (cap + 1));
		if (!h)
			return -ENOMEM;
		u->hoff = h;
		u->cap = cap;
	}
	sl_metrics_columns(w, u->cols + u->n * NC);
	u->hoff[u->n] = u->nr_bins;
	for (unsigned int b = 0; b < SL_HIST_BUCKETS; b++) {
		if (!w->latency.counts[b])
			continue;
		/* a bin's bucket can only pass this at 7 M wakeups a second */
		if (w->latency.counts[b] > UINT32_MAX)
			return sl_error(-EOVERFLOW,
					"%s: %" PRIu64 " wakeups in one latency "
					"bucket of a window or 10-minute bin",
					w->grp, w->latency.counts[b]);
		if (u->nr_bins == u->cap_bins) {
			size_t cap = u->cap_bins ? u->cap_bins * 2 : 256;
			struct hbin *p = realloc(u->bins, sizeof(*p) * cap);

			if (!p)
				return -ENOMEM;
			u->bins = p;
			u->cap_bins = cap;
		}
		u->bins[u->nr_bins++] =
			(struct hbin){ (uint16_t)b, (uint32_t)w->latency.counts[b] };
	}
	u->n++;
	u->hoff[u->n] = u->nr_bins;
	return 0;
}

/* One run's windows going into side s of l (sl_query_run_windows()). */
struct side_load {
	const struct sl_compare_opts *o;
	struct loaded *l;
	int s;
	int64_t run_id;
	uint64_t first; /* start_ns of the current group's first window */
	char cur[SL_GROUP_LEN]; /* the current group */
};

/* A window, or a bin summing `windows` of them, into its group's unit. */
static int load_sums(void *ctx, const struct sl_window_rec *w, int64_t windows)
{
	struct side_load *sl = ctx;
	const struct sl_compare_opts *o = sl->o;
	struct group *g;
	struct unit *u;
	int err;

	if (!w->dur_ns)
		return 0;
	if (strcmp(sl->cur, w->grp)) {
		snprintf(sl->cur, sizeof(sl->cur), "%s", w->grp);
		sl->first = w->start_ns;
	}
	if (!(g = find_group(sl->l, w->grp)) ||
	    !(u = find_unit(&g->side[sl->s], sl->run_id,
			    o->segment_ns ? (w->start_ns - sl->first) / o->segment_ns : 0)))
		return -ENOMEM;
	if ((err = unit_add(u, w)))
		return err;
	g->side[sl->s].windows += (size_t)windows;
	return 0;
}

static int load_window(void *ctx, const struct sl_window_rec *w)
{
	return load_sums(ctx, w, 1);
}

int cmp_load_side(struct sl_store *store, const struct sl_compare_opts *o, struct sl_cmp_side *side,
		  int s, struct loaded *l)
{
	for (int r = 0; r < side->nr_runs; r++) {
		struct side_load sl = { .o = o, .l = l, .s = s, .run_id = side->runs[r] };
		int got = 0;

		/* long runs by their 10-minute bins (the header comment), unless the user
		 * asked for blocks or segments counted in windows */
		if (!o->segment_ns && !o->block_len)
			got = sl_query_run_bins(store, side->runs[r], CMP_MIN_BINS, load_sums, &sl);
		if (!got)
			got = sl_query_run_windows(store, side->runs[r], load_window, &sl);
		if (got < 0)
			return got;
	}
	return 0;
}

uint64_t cmp_name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static bool group_wanted(const struct sl_compare_opts *o, const char *name)
{
	if (!o->groups)
		return true;
	for (int i = 0; i < o->nr_groups; i++)
		if (!strcmp(o->groups[i], name))
			return true;
	return false;
}

/*
 * The recorder's own process (`schedlens record`, schedlensd; its readers and writer are
 * threads of it) observes the workload, and its work grows with the events it records: a
 * change in the workload shows as a change in it, and the lab's 6.1 vs 6.12 pgbench once
 * read "regression" for the recorder's own preemption share. Not compared unless named
 * with -g; all tasks (`*`) still include it.
 */
static bool recorder_group(const char *name)
{
	return !strcmp(name, "schedlens") || !strcmp(name, "schedlensd");
}

static int push_finding(struct sl_comparison *c, const struct sl_finding *f)
{
	struct sl_finding *p = realloc(c->findings, sizeof(*p) * (c->nr_findings + 1));

	if (!p)
		return -ENOMEM;
	c->findings = p;
	c->findings[c->nr_findings++] = *f;
	return 0;
}

/*
 * The random-effects model's inputs for metric m from the units of up to two sides: the
 * residual variance of unit values about their side's mean (*s2 on *d degrees of freedom)
 * and the mean within-run variance of one unit's value (*v). Units whose value is
 * undefined are left out.
 */
void cmp_unit_model(const double *const y[2], const double *const w[2], const int nr[2], size_t m,
		    int n_out[2], double *s2, double *d, double *v)
{
	double ss = 0, vs = 0;
	int df = 0, nv = 0;

	for (int s = 0; s < 2; s++) {
		double mean = 0;
		int k = 0;

		for (int i = 0; i < nr[s]; i++)
			if (!isnan(y[s][i * MAX_METRICS + m])) {
				mean += y[s][i * MAX_METRICS + m];
				k++;
			}
		mean /= k ? k : 1;
		for (int i = 0; i < nr[s]; i++) {
			double yi = y[s][i * MAX_METRICS + m], wi = w[s][i * MAX_METRICS + m];

			if (isnan(yi))
				continue;
			ss += (yi - mean) * (yi - mean);
			if (!isnan(wi)) {
				vs += wi;
				nv++;
			}
		}
		df += k > 0 ? k - 1 : 0;
		n_out[s] = k;
	}
	*d = df;
	*s2 = df ? ss / df : NAN;
	*v = nv ? vs / nv : NAN;
}

/* The group's switch-outs per second, the mean of both sides' pooled rates (0 if unknown). */
static double switch_rate(const double sums[2][NC])
{
	double r = 0;

	for (int s = 0; s < 2; s++)
		if (sums[s][SL_WC_DUR_NS] > 0)
			r += sums[s][SL_WC_SWITCHES] / (sums[s][SL_WC_DUR_NS] / 1e9) / 2;
	return r;
}

/* Column col summed over a group's windows on one side. */
static double side_total(const struct gside *gs, int col)
{
	double t = 0;

	for (int i = 0; i < gs->nr; i++)
		for (size_t w = 0; w < gs->u[i].n; w++)
			t += gs->u[i].cols[w * NC + col];
	return t;
}

/*
 * The workload's own groups, whose headline metrics form the primary family: all tasks,
 * the groups the user named, and groups with at least WORKLOAD_SHARE of all tasks'
 * wakeups on a side. With every group's headline metrics in one Holm family a lab
 * hackbench comparison had 34 primary tests (kcompactd, ksoftirqd, the recorder ...); the
 * other groups' headline metrics are tested in the secondary (FDR) family
 * (docs/statistics.md, "Families").
 */
#define WORKLOAD_SHARE 0.05

static bool workload_group(const struct sl_compare_opts *o, const struct group *g,
			   const struct group *all)
{
	if (!strcmp(g->name, SL_GROUP_ALL) || o->groups)
		return true;
	for (int s = 0; all && s < 2; s++) {
		double w = side_total(&all->side[s], SL_WC_WAKEUPS);

		if (w > 0 && side_total(&g->side[s], SL_WC_WAKEUPS) >= WORKLOAD_SHARE * w)
			return true;
	}
	return false;
}

/* Per metric of one group: observed pooled values, and the model's inputs (verdicts later). */
static int test_group(const struct sl_compare_opts *o, const struct group *g, bool workload,
		      struct sl_comparison *c)
{
	int err = 0, map[SL_HIST_BUCKETS];
	uint16_t unmap[SL_HIST_BUCKETS];
	double obs[2][MAX_METRICS], sums[2][NC], *y[2] = { NULL, NULL }, *w[2] = { NULL, NULL };
	bool enough = g->side[0].windows >= o->min_windows && g->side[1].windows >= o->min_windows;
	double switches = 0; /* the group's switch-outs per second, for the floors */
	struct boot_ctx bc;
	struct sl_rng rng;

	cmp_ctx_init(o, g, map, unmap, &bc);
	sl_rng_seed(&rng, o->seed ^ cmp_name_hash(g->name));
	if (enough) {
		for (int s = 0; s < 2 && !err; s++) {
			size_t n = (size_t)(g->side[s].nr ? g->side[s].nr : 1) * MAX_METRICS;

			y[s] = malloc(sizeof(double) * n);
			w[s] = malloc(sizeof(double) * n);
			if (!y[s] || !w[s])
				err = -ENOMEM;
			else if (!(err = cmp_side_boot(&bc, &g->side[s], &rng, 0, obs[s], NULL,
						       sums[s])))
				err = cmp_unit_stats(&bc, &g->side[s], &rng, y[s], w[s]);
		}
		if (err)
			goto out;
		switches = switch_rate(sums);
	}
	for (size_t m = 0; m < sl_nr_metrics && !err; m++) {
		const struct sl_metric *mt = &sl_metrics[m];
		struct sl_finding f = { .metric = mt,
					.base = NAN,
					.cand = NAN,
					.delta = NAN,
					.rel = NAN,
					.ci_lo = NAN,
					.ci_hi = NAN,
					.p = NAN,
					.p_adj = NAN,
					.q = NAN,
					.df = NAN,
					.floor = NAN,
					.margin = NAN,
					.severity = NAN,
					.s2 = NAN,
					.v = NAN,
					.primary = workload && sl_metric_primary(mt),
					.verdict = SL_V_INSUFFICIENT };

		snprintf(f.grp, sizeof(f.grp), "%s", g->name);
		if (enough && sums[0][mt->den] >= mt->min_den && sums[1][mt->den] >= mt->min_den &&
		    (mt->kind != SL_MK_RATE || sums[0][SL_WC_DUR_NS] > 0)) {
			f.base = obs[0][m];
			f.cand = obs[1][m];
		}
		if (!isnan(f.base) && !isnan(f.cand)) {
			const double *yy[2] = { y[0], y[1] }, *ww[2] = { w[0], w[1] };
			const int nr[2] = { g->side[0].nr, g->side[1].nr };

			f.delta = f.cand - f.base;
			f.floor = o->floor_scale * sl_metric_floor(mt, switches);
			f.rel = f.base != 0 ? f.delta / f.base : (f.delta != 0 ? INFINITY : 0);
			cmp_unit_model(yy, ww, nr, m, f.n, &f.s2, &f.d, &f.v);
			if (f.n[0] && f.n[1])
				f.verdict = SL_V_EQUIVALENT; /* tested; decide() says what */
		}
		err = push_finding(c, &f);
	}
out:
	for (int s = 0; s < 2; s++) {
		free(y[s]);
		free(w[s]);
	}
	return err;
}

/* Runs a side likely to bring the interval to half-width h (sigma2: one run's variance). */
static int runs_for(double sigma2, double h, double z, int now)
{
	double n;

	if (!(h > 0))
		return 99;
	n = ceil(2 * sigma2 * (z / h) * (z / h));
	if (n <= now)
		n = now + 1;
	return n > 99 ? 99 : (int)n;
}

/*
 * f's moderated variance of one run's value (shrunk toward its group's history, else the
 * empirical-Bayes prior), then its t test and interval; f->s2 becomes that variance.
 */
static void moderate(const struct sl_compare_opts *o, const struct sl_comparison *c,
		     struct features *fs, struct sl_finding *f)
{
	const struct hgroup *hg = cmp_find_hgroup(fs, f->grp, false, false);
	size_t m = (size_t)(f->metric - sl_metrics);
	double sigma2, se, q, d0 = c->prior_d0, r;

	if (hg && hg->df[m] > 0) {
		/* this group's own history: replicates of other configurations */
		double dh = hg->df[m], sh = hg->ss[m] / dh;

		/* a few history runs of a rare event are mostly zeros, and their
		 * variance says nothing of runs at the compared level: the windows'
		 * does (docs/statistics.md). The compared kernels' own runs are at it. */
		if (f->v > sh)
			sh = f->v;
		sigma2 = (dh * sh + (f->d > 0 ? f->d * f->s2 : 0)) / (dh + f->d);
		f->df = dh + f->d;
	} else if (f->v > 0) {
		if (d0 > 0 || f->d > 0) {
			if (isinf(d0))
				r = c->prior_s02;
			else if (d0 > 0)
				r = (d0 * c->prior_s02 + (f->d > 0 ? f->d * f->s2 / f->v : 0)) /
				    (d0 + f->d);
			else
				r = f->s2 / f->v;
			/* no floor at v here: windows vary more than whole runs do when
			 * a workload warms up the same way every run, and the prior keeps
			 * r away from 0 (docs/statistics.md) */
			sigma2 = r * f->v;
			f->df = d0 + f->d;
		} else {
			sigma2 = o->single_run_factor * o->single_run_factor * f->v;
			f->df = INFINITY;
		}
	} else {
		sigma2 = f->d > 0 && f->s2 > 0 ? f->s2 : 0;
		f->df = f->d > 0 ? f->d : INFINITY;
	}
	se = sqrt(sigma2 * (1.0 / f->n[0] + 1.0 / f->n[1]));
	f->s2 = sigma2; /* from here on: the moderated variance of one run's value */
	if (!(se > 0)) {
		f->p = f->delta == 0 ? 1 : 0;
		f->ci_lo = f->ci_hi = f->delta;
	} else {
		f->p = 2 * sl_stats_t_cdf(-fabs(f->delta) / se, f->df);
		q = sl_stats_t_quantile(1 - (1 - o->ci_level) / 2, f->df);
		f->ci_lo = f->delta - q * se;
		f->ci_hi = f->delta + q * se;
	}
}

/*
 * The compared configurations' runs outside the comparison are replicates of the sides'
 * runs: their residuals (compare-history.c, config_own()) join f's own, s2 on d df.
 */
static void own_runs(struct features *fs, struct sl_finding *f)
{
	const struct hgroup *own = cmp_find_hgroup(fs, f->grp, true, false);
	size_t m = (size_t)(f->metric - sl_metrics);

	if (!own || !(own->df[m] > 0))
		return;
	f->s2 = ((f->d > 0 ? f->d * f->s2 : 0) + own->ss[m]) / (f->d + own->df[m]);
	f->d += own->df[m];
}

/*
 * f's outcome from its adjusted p (f->p_adj), its change and its interval against the
 * margin: flagged, equivalent or inconclusive with the runs a side it likely needs. info:
 * anything at all is known of run-to-run variance; fam_size: tests in f's family.
 */
static void judge(const struct sl_compare_opts *o, struct sl_comparison *c, bool info, int fam_size,
		  struct sl_finding *f)
{
	const struct sl_metric *m = f->metric;
	double floor = f->floor, half, need, z;
	bool up = f->delta > 0;

	f->margin = fmax(c->rel_threshold * fabs(f->base), floor);
	f->severity = f->margin > 0 ? fabs(f->delta) / f->margin : NAN;
	/* without any estimate of run-to-run variance nothing can be concluded: two
	 * lab runs of one kernel can differ several-fold (README) */
	if (info && f->p_adj < o->alpha && fabs(f->rel) >= c->rel_threshold &&
	    fabs(f->delta) >= floor) {
		if (m->polarity == SL_MPOL_NEUTRAL)
			f->verdict = SL_V_CHANGE;
		else if (up == (m->polarity == SL_MPOL_WORSE_UP))
			f->verdict = SL_V_REGRESSION;
		else
			f->verdict = SL_V_IMPROVEMENT;
	} else if (info && f->ci_lo > -f->margin && f->ci_hi < f->margin) {
		f->verdict = SL_V_EQUIVALENT;
	} else {
		f->verdict = SL_V_INCONCLUSIVE;
		/* resolved as the rules above resolve it, if the change is what was
		 * observed: a change under the margin once the interval fits inside the
		 * margin; one at or over it once the interval at the family's level
		 * clears 0 (the flag's test; its size is already past the margin).
		 * Measuring the second to the margin instead of 0 asked 99 runs a side
		 * for a change of 4.0 points against a 3.2-point margin. */
		half = (f->ci_hi - f->ci_lo) / 2;
		need = fabs(f->delta) < f->margin ? f->margin - fabs(f->delta) : fabs(f->delta);
		z = fabs(f->delta) < f->margin ?
			    sl_stats_t_quantile(1 - (1 - o->ci_level) / 2, 1e9) :
			    -sl_stats_t_quantile(o->alpha / 2 / (fam_size ? fam_size : 1), 1e9);
		f->runs_needed =
			half > 0 ? runs_for(f->s2, need, z, f->n[0] > f->n[1] ? f->n[0] : f->n[1]) :
				   99;
		/* nothing known of run-to-run variance: the first thing needed is a
		 * second run a side to see it */
		if (!info)
			f->runs_needed = 2;
		if (f->primary && f->runs_needed > c->runs_needed)
			c->runs_needed = f->runs_needed;
	}
	c->regressions += f->verdict == SL_V_REGRESSION;
	c->improvements += f->verdict == SL_V_IMPROVEMENT;
	c->changes += f->verdict == SL_V_CHANGE;
	c->equivalent += f->verdict == SL_V_EQUIVALENT;
	c->inconclusive += f->verdict == SL_V_INCONCLUSIVE;
	sl_metric_explain(m, f->grp, f->base, f->cand, f->ci_lo, f->ci_hi, o->ci_level,
			  f->explanation, sizeof(f->explanation));
}

/*
 * The moderated t of every tested finding (variance ratio shrunk toward the prior), the
 * two families' adjustments (Holm for the primary, Benjamini-Hochberg for the secondary;
 * and the primary under Benjamini-Hochberg too, the q of unconfirmed changes), then the
 * verdicts.
 */
static int decide(struct sl_store *store, const struct sl_compare_opts *o, struct sl_comparison *c)
{
	size_t n = c->nr_findings ? c->nr_findings : 1;
	double *p[2] = { malloc(sizeof(double) * n), malloc(sizeof(double) * n) };
	double *adj[3] = { malloc(sizeof(double) * n), malloc(sizeof(double) * n),
			   malloc(sizeof(double) * n) };
	struct features fs = { 0 };
	bool info = false;
	int err = 0, fam[2] = { 0, 0 };

	if (!p[0] || !p[1] || !adj[0] || !adj[1] || !adj[2]) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = cmp_history_features(store, o, c, &fs)))
		goto out;
	for (size_t i = 0; i < c->nr_findings && !err; i++)
		if (c->findings[i].verdict != SL_V_INSUFFICIENT) {
			own_runs(&fs, &c->findings[i]);
			err = cmp_add_feature(&fs, c->findings[i].s2, c->findings[i].d,
					      c->findings[i].v);
		}
	if (err)
		goto out;
	c->prior_features = (int)fs.n;
	sl_stats_fit_prior(fs.r, fs.d, fs.n, &c->prior_s02, &c->prior_d0);
	info = c->prior_d0 > 0;
	for (int i = 0; i < fs.nr_hg; i++)
		info |= !fs.hg[i].own; /* the own ones are in the findings' d */
	for (size_t i = 0; i < c->nr_findings; i++)
		info |= c->findings[i].verdict != SL_V_INSUFFICIENT && c->findings[i].d > 0;
	/* nothing at all is known of run-to-run variance: the old rule of thumb */
	c->single_run = !info;
	c->single_run_factor = info ? 1 : o->single_run_factor;
	c->rel_threshold = o->rel_threshold * (info ? 1 : 2);
	c->floor_scale = o->floor_scale;
	if (!info)
		sl_cmp_note(c,
			    "one run%s a side and no comparable runs: run-to-run variance unknown, "
			    "nothing flagged or shown equivalent (intervals widened %gx)",
			    o->segment_ns ? " or segment" : "", o->single_run_factor);
	else if (c->prior_d0 > 0)
		sl_cmp_note(c,
			    "run-to-run variance moderated by a prior from %d variances "
			    "(%.3g x within-run, %.3g df)",
			    c->prior_features, c->prior_s02, c->prior_d0);
	for (size_t i = 0; i < c->nr_findings; i++) {
		struct sl_finding *f = &c->findings[i];

		p[0][i] = p[1][i] = NAN;
		if (f->verdict == SL_V_INSUFFICIENT)
			continue;
		moderate(o, c, &fs, f);
		p[f->primary ? 0 : 1][i] = f->p;
		fam[f->primary ? 0 : 1]++;
	}
	/* adj[2]: the primary family under Benjamini-Hochberg, for unconfirmed changes */
	if ((err = sl_stats_holm(p[0], c->nr_findings, adj[0])) ||
	    (err = sl_stats_bh(p[1], c->nr_findings, adj[1])) ||
	    (err = sl_stats_bh(p[0], c->nr_findings, adj[2])))
		goto out;
	for (size_t i = 0; i < c->nr_findings; i++) {
		struct sl_finding *f = &c->findings[i];

		if (f->verdict == SL_V_INSUFFICIENT) {
			c->insufficient++;
			snprintf(f->explanation, sizeof(f->explanation),
				 "too few windows or events of %s for %s",
				 strcmp(f->grp, SL_GROUP_ALL) ? f->grp : "all tasks",
				 f->metric->name);
			continue;
		}
		f->p_adj = adj[f->primary ? 0 : 1][i];
		f->q = f->primary ? adj[2][i] : NAN;
		judge(o, c, info, fam[f->primary ? 0 : 1], f);
	}
out:
	for (int k = 0; k < 2; k++)
		free(p[k]);
	for (int k = 0; k < 3; k++)
		free(adj[k]);
	free(fs.r);
	free(fs.d);
	free(fs.hg);
	return err;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	bool ax = !strcmp(x->name, SL_GROUP_ALL), ay = !strcmp(y->name, SL_GROUP_ALL);

	if (ax != ay)
		return ax ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The flagged finding with the largest change relative to its margin, or NULL. */
const struct sl_finding *sl_comparison_top(const struct sl_comparison *c)
{
	const struct sl_finding *top = NULL;

	for (size_t i = 0; i < c->nr_findings; i++) {
		const struct sl_finding *f = &c->findings[i];

		if (f->verdict > SL_V_CHANGE)
			continue;
		if (!top || f->verdict < top->verdict ||
		    (f->verdict == top->verdict && f->severity > top->severity))
			top = f;
	}
	return top;
}

bool sl_finding_unconfirmed(const struct sl_finding *f)
{
	return f->primary && f->verdict == SL_V_INCONCLUSIVE && f->severity >= 1 &&
	       (f->ci_lo > 0 || f->ci_hi < 0) && f->q <= SL_UNCONFIRMED_FDR;
}

/* The unconfirmed change (above) largest relative to its margin, or NULL; their number into *n. */
static const struct sl_finding *top_unconfirmed(const struct sl_comparison *c, int *n)
{
	const struct sl_finding *top = NULL;

	*n = 0;
	for (size_t i = 0; i < c->nr_findings; i++) {
		const struct sl_finding *f = &c->findings[i];

		if (!sl_finding_unconfirmed(f))
			continue;
		++*n;
		if (!top || f->severity > top->severity)
			top = f;
	}
	return top;
}

#define SUMMARY_SIDE_MAX 100 /* bytes of a side's selection in the summary, at most */

/* A side as the summary names it: its selection without the kernel ("runs=3,8 scale=2"). */
static const char *side_selection(const struct sl_cmp_side *s)
{
	const char *p = s->desc;

	if (!strncmp(p, "kernel=", 7) && (p = strchr(p, ' ')))
		return p + 1;
	return s->desc;
}

static void summarize(struct sl_comparison *c)
{
	const char *b = c->side[0].kernel, *k = c->side[1].kernel;
	const struct sl_finding *top = sl_comparison_top(c);
	char bv[32], cv[32];
	int n;
	size_t o;

	if (c->verdict == SL_V_INSUFFICIENT && !c->nr_findings && c->side[0].windows &&
	    c->side[1].windows) {
		snprintf(c->summary, sizeof(c->summary),
			 "insufficient data: no selected group has windows on both sides");
		return;
	}
	if (c->verdict == SL_V_INSUFFICIENT) {
		snprintf(c->summary, sizeof(c->summary),
			 "insufficient data: %zu baseline and %zu candidate windows of all tasks",
			 c->side[0].windows, c->side[1].windows);
		return;
	}
	/* one kernel both sides (an A/A, a feature A/B): "K vs K" says nothing; the
	 * selections say which runs and variant each side was, when short enough to leave
	 * the counts room (many run ids keep the kernel) */
	if (!strcmp(b, k) && c->side[0].desc[0] && c->side[1].desc[0] &&
	    strlen(side_selection(&c->side[0])) <= SUMMARY_SIDE_MAX &&
	    strlen(side_selection(&c->side[1])) <= SUMMARY_SIDE_MAX) {
		b = side_selection(&c->side[0]);
		k = side_selection(&c->side[1]);
	}
	o = (size_t)snprintf(c->summary, sizeof(c->summary),
			     "%s vs %s: %d regression%s, %d improvement%s, %d neutral change%s, "
			     "%d inconclusive, %d equivalent (%d vs %d run%s, %zu vs %zu windows)",
			     b, k, c->regressions, c->regressions == 1 ? "" : "s", c->improvements,
			     c->improvements == 1 ? "" : "s", c->changes,
			     c->changes == 1 ? "" : "s", c->inconclusive, c->equivalent,
			     c->side[0].nr_runs, c->side[1].nr_runs,
			     c->side[1].nr_runs == 1 ? "" : "s", c->side[0].windows,
			     c->side[1].windows);
	if (o >= sizeof(c->summary))
		return;
	if (top) {
		sl_metric_format(top->metric, top->base, bv, sizeof(bv));
		sl_metric_format(top->metric, top->cand, cv, sizeof(cv));
		snprintf(c->summary + o, sizeof(c->summary) - o, "; top: %s %s of %s %s -> %s",
			 sl_verdict_name(top->verdict), top->metric->name,
			 strcmp(top->grp, SL_GROUP_ALL) ? top->grp : "all tasks", bv, cv);
	} else if (c->verdict == SL_V_INCONCLUSIVE && c->single_run) {
		snprintf(c->summary + o, sizeof(c->summary) - o,
			 "; inconclusive: record at least 2 runs a side (or keep comparable runs "
			 "of other kernels) so that run-to-run variance can be estimated");
	} else if (c->verdict == SL_V_INCONCLUSIVE && (top = top_unconfirmed(c, &n))) {
		/* the change the user is after first: the whole comparison's runs are
		 * often set by a latency that would take 99 runs to show equivalent; and
		 * the error rate they come with, since A/A pairs list some too */
		sl_metric_format(top->metric, top->base, bv, sizeof(bv));
		sl_metric_format(top->metric, top->cand, cv, sizeof(cv));
		snprintf(
			c->summary + o, sizeof(c->summary) - o,
			"; inconclusive: %d unconfirmed change%s (at a %.0f%% false discovery "
			"rate), largest %s of %s %s -> %s (p %.3g, adjusted %.3g, q %.3g): about "
			"%d%s runs a side would likely resolve it, about %d%s every headline metric",
			n, n == 1 ? "" : "s", 100 * SL_UNCONFIRMED_FDR, top->metric->name,
			strcmp(top->grp, SL_GROUP_ALL) ? top->grp : "all tasks", bv, cv, top->p,
			top->p_adj, top->q, top->runs_needed, top->runs_needed >= 99 ? "+" : "",
			c->runs_needed, c->runs_needed >= 99 ? "+" : "");
	} else if (c->verdict == SL_V_INCONCLUSIVE) {
		snprintf(c->summary + o, sizeof(c->summary) - o,
			 "; inconclusive: about %d%s runs a side would likely resolve it",
			 c->runs_needed, c->runs_needed >= 99 ? "+" : "");
	}
}

/* The settings sl_compare() and sl_cmp_test() accept. */
static int check_opts(const struct sl_compare_opts *o)
{
	if (sl_nr_metrics > MAX_METRICS)
		return sl_error(-SL_ERANGE, "metric table larger than %d", MAX_METRICS);
	if (o->resamples < 100 || o->resamples > 1000000 || o->alpha <= 0 || o->alpha >= 1 ||
	    !(o->ci_level >= 0.5 && o->ci_level < 1) || o->rel_threshold < 0 ||
	    o->floor_scale < 0 || o->single_run_factor < 1 || o->history_runs < 0 ||
	    o->history_runs > 10000)
		return sl_error(-SL_EUSAGE,
				"comparison settings out of range (resamples %d, "
				"alpha %g, threshold %g)",
				o->resamples, o->alpha, o->rel_threshold);
	return 0;
}

/*
 * The tests over loaded windows: every group, then the verdicts and the summary. store is
 * read only for the history of comparable runs, which needs c->topo_hash: NULL without.
 */
static int test_loaded(struct sl_store *store, const struct sl_compare_opts *opts, struct loaded *l,
		       struct sl_comparison *c)
{
	const struct sl_compare_opts o = *opts;
	struct group *all = NULL;
	int err = 0, skipped = 0;

	c->seed = o.seed;
	c->resamples = o.resamples;
	c->alpha = o.alpha;
	c->ci_level = o.ci_level;
	qsort(l->g, l->nr, sizeof(*l->g), cmp_group);
	for (int i = 0; i < l->nr; i++)
		if (!strcmp(l->g[i].name, SL_GROUP_ALL))
			all = &l->g[i];
	for (int s = 0; s < 2; s++) {
		c->side[s].windows = all ? all->side[s].windows : 0;
		c->side[s].units = all ? all->side[s].nr : 0;
	}
	if (o.segment_ns)
		sl_cmp_note(c, "runs cut into %.0f s segments that serve as runs",
			    (double)o.segment_ns / 1e9);
	for (int i = 0; i < l->nr && !err; i++) {
		const struct group *g = &l->g[i];
		bool small = g->side[0].windows < o.min_windows ||
			     g->side[1].windows < o.min_windows;

		if (!group_wanted(&o, g->name))
			continue;
		if (!o.groups && recorder_group(g->name)) {
			sl_cmp_note(c,
				    "the recorder's own group %s not compared (-g %s compares it)",
				    g->name, g->name);
			continue;
		}
		/* groups that came and went (a kworker, a one-off command) have no verdict to
		 * give; those the user asked for by name say "insufficient data" */
		if (!o.groups && small && strcmp(g->name, SL_GROUP_ALL)) {
			skipped++;
			continue;
		}
		err = test_group(&o, g, workload_group(&o, g, all), c);
	}
	if (skipped)
		sl_cmp_note(c, "%d group%s with fewer than %zu windows on a side not compared",
			    skipped, skipped == 1 ? "" : "s", o.min_windows);
	if (err || (err = decide(store, &o, c)))
		return err;
	/* groups asked for by name that no side has: nothing was compared, so nothing is
	 * "equivalent" (the dashboard once said "no change" for a misspelt group) */
	if (!all || c->side[0].windows < o.min_windows || c->side[1].windows < o.min_windows ||
	    (o.groups && !c->nr_findings))
		c->verdict = SL_V_INSUFFICIENT;
	else if (c->regressions)
		c->verdict = SL_V_REGRESSION;
	else if (c->improvements)
		c->verdict = SL_V_IMPROVEMENT;
	else if (c->changes)
		c->verdict = SL_V_CHANGE;
	else if (c->runs_needed)
		c->verdict = SL_V_INCONCLUSIVE;
	else
		c->verdict = SL_V_EQUIVALENT;
	if (o.groups && !c->nr_findings)
		sl_cmp_note(c, "none of the selected groups has windows on both sides");
	/* say what would make it a comparison: the bare counts left users guessing */
	if (all && (c->side[0].windows < o.min_windows || c->side[1].windows < o.min_windows))
		sl_cmp_note(c,
			    "all tasks need %zu windows a side (--min-windows) and have %zu and "
			    "%zu: record longer or more runs a side, or lower --min-windows",
			    o.min_windows, c->side[0].windows, c->side[1].windows);
	summarize(c);
	return 0;
}

int sl_compare(struct sl_store *store, const struct sl_compare_opts *opts,
	       struct sl_comparison **ret)
{
	struct sl_compare_opts o = *opts;
	struct sl_comparison *c = calloc(1, sizeof(*c));
	struct loaded l = { 0 };
	int err;

	if (!c)
		return -ENOMEM;
	c->id = -1;
	if ((err = check_opts(&o)) || (err = sl_cmp_select(store, &o, c)) ||
	    (err = cmp_load_side(store, &o, &c->side[0], 0, &l)) ||
	    (err = cmp_load_side(store, &o, &c->side[1], 1, &l)) ||
	    (err = test_loaded(store, &o, &l, c)))
		goto fail;
	cmp_free_loaded(&l);
	if (o.store && (err = sl_cmp_store(store, c)))
		goto fail_stored;
	*ret = c;
	return 0;
fail:
	cmp_free_loaded(&l);
fail_stored:
	sl_comparison_free(c);
	return err;
}

/* Windows loaded by another module (compare-prom.c): the same groups, sides and units. */
struct sl_cmp_data {
	struct loaded l;
};

struct sl_cmp_data *sl_cmp_data_new(void)
{
	return calloc(1, sizeof(struct sl_cmp_data));
}

void sl_cmp_data_free(struct sl_cmp_data *d)
{
	if (!d)
		return;
	cmp_free_loaded(&d->l);
	free(d);
}

int sl_cmp_data_add(struct sl_cmp_data *d, int side, int64_t unit, const struct sl_window_rec *w)
{
	struct group *g;
	struct unit *u;
	int err;

	if (side < 0 || side > 1)
		return -EINVAL;
	if (!(g = find_group(&d->l, w->grp)) || !(u = find_unit(&g->side[side], unit, 0)))
		return -ENOMEM;
	if ((err = unit_add(u, w)))
		return err;
	g->side[side].windows++;
	return 0;
}

int sl_cmp_test(const struct sl_compare_opts *o, struct sl_cmp_data *d, struct sl_comparison *c)
{
	int err = check_opts(o);

	c->id = -1;
	return err ? err : test_loaded(NULL, o, &d->l, c);
}

void sl_comparison_free(struct sl_comparison *c)
{
	if (!c)
		return;
	free(c->side[0].runs);
	free(c->side[1].runs);
	json_decref(c->side[0].where);
	json_decref(c->side[1].where);
	free(c->findings);
	free(c);
}
