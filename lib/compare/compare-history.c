// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the database's history tells a comparison about run-to-run variance: comparable
 * runs outside it (its label and topology), grouped by configuration (kernel release,
 * sched_features, preemption mode) and params, give per group and metric a pooled run-to-run
 * variance, and variance-ratio features for the empirical-Bayes prior that compare.c fits;
 * runs of a compared configuration outside the comparison are the side's replicates
 * instead (docs/statistics.md, "The compared kernels' other runs").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-local.h"
#include "compare-units-local.h"
#include "store-query.h"

struct hgroup *cmp_find_hgroup(struct features *fs, const char *name, bool own, bool add)
{
	struct hgroup *h;

	for (int i = 0; i < fs->nr_hg; i++)
		if (fs->hg[i].own == own && !strcmp(fs->hg[i].name, name))
			return &fs->hg[i];
	if (!add || !(h = realloc(fs->hg, sizeof(*h) * (fs->nr_hg + 1))))
		return NULL;
	fs->hg = h;
	h = &fs->hg[fs->nr_hg++];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->own = own;
	return h;
}

int cmp_add_feature(struct features *fs, double s2, double d, double v)
{
	if (!(d > 0) || !(v > 0) || !(s2 > 0) || isnan(s2) || isnan(v))
		return 0;
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 256;
		double *r = realloc(fs->r, sizeof(double) * cap), *d2;

		if (!r)
			return -ENOMEM;
		fs->r = r;
		d2 = realloc(fs->d, sizeof(double) * cap);
		if (!d2)
			return -ENOMEM;
		fs->d = d2;
		fs->cap = cap;
	}
	fs->r[fs->n] = s2 / v;
	fs->d[fs->n++] = d;
	return 0;
}

static bool side_has_run(const struct sl_cmp_side *side, int64_t id)
{
	for (int i = 0; i < side->nr_runs; i++)
		if (side->runs[i] == id)
			return true;
	return false;
}

/* The side run id is on, or -1. */
static int side_of(const struct sl_comparison *c, int64_t id)
{
	for (int s = 0; s < 2; s++)
		if (side_has_run(&c->side[s], id))
			return s;
	return -1;
}

/* The features of one configuration's runs: every group and metric with two or more runs. */
static int config_features(struct sl_store *store, const struct sl_compare_opts *o,
			   struct sl_cmp_side *side, struct features *fs)
{
	struct loaded l = { 0 };
	int err = cmp_load_side(store, o, side, 0, &l);

	for (int i = 0; i < l.nr && !err; i++) {
		const struct group *g = &l.g[i];
		const int nr[2] = { g->side[0].nr, 0 };
		double *y = NULL, *w = NULL, s2, d, v;
		int map[SL_HIST_BUCKETS], n[2];
		uint16_t unmap[SL_HIST_BUCKETS];
		struct hgroup *hg = NULL;
		struct boot_ctx bc;
		struct sl_rng rng;

		if (g->side[0].nr < 2 || g->side[0].windows < o->min_windows)
			continue;
		cmp_ctx_init(o, g, map, unmap, &bc);
		sl_rng_seed(&rng, o->seed ^ cmp_name_hash(g->name) ^ 0x5eed);
		y = malloc(sizeof(double) * g->side[0].nr * MAX_METRICS);
		w = malloc(sizeof(double) * g->side[0].nr * MAX_METRICS);
		if (!y || !w)
			err = -ENOMEM;
		else
			err = cmp_unit_stats(&bc, &g->side[0], &rng, y, w);
		if (!err && !(hg = cmp_find_hgroup(fs, g->name, false, true)))
			err = -ENOMEM;
		for (size_t m = 0; m < sl_nr_metrics && !err; m++) {
			const double *yy[2] = { y, y }, *ww[2] = { w, w };

			cmp_unit_model(yy, ww, nr, m, n, &s2, &d, &v);
			if (d > 0 && !isnan(s2)) {
				hg->ss[m] += s2 * d;
				hg->df[m] += d;
			}
			err = cmp_add_feature(fs, s2, d, v);
		}
		free(y);
		free(w);
	}
	cmp_free_loaded(&l);
	return err;
}

/*
 * The runs of a compared configuration outside the comparison (others) are replicates of
 * the side's runs (side) like its own, at the same level: per group and metric their
 * residuals about their own mean, and the distance of their mean from the side's,
 * (mean_others - mean_side)^2 / (1/n_others + 1/n_side), estimate the variance of one
 * run's value on n_others df in all, independently of the side's own residuals. Added to
 * fs's own hgroups, which join the comparison's own residuals (compare.c, own_runs()). The
 * distance shares the side's mean with the compared difference, so a large difference
 * tends to come with a large distance: conservative, not biased (docs/statistics.md; make
 * calibrate's "+1" and "+2" rows measure it).
 */
static int config_own(struct sl_store *store, const struct sl_compare_opts *o,
		      const struct sl_cmp_side *side, const struct sl_cmp_side *others,
		      struct features *fs)
{
	struct sl_cmp_side all = { 0 };
	struct loaded l = { 0 };
	int err = 0;

	all.nr_runs = side->nr_runs + others->nr_runs;
	if (!(all.runs = malloc(sizeof(*all.runs) * all.nr_runs)))
		return -ENOMEM;
	memcpy(all.runs, side->runs, sizeof(*all.runs) * side->nr_runs);
	memcpy(all.runs + side->nr_runs, others->runs, sizeof(*all.runs) * others->nr_runs);
	err = cmp_load_side(store, o, &all, 0, &l);
	for (int i = 0; i < l.nr && !err; i++) {
		const struct group *g = &l.g[i];
		double *y = NULL, boot[MAX_METRICS], sums[NC];
		int map[SL_HIST_BUCKETS];
		uint16_t unmap[SL_HIST_BUCKETS];
		struct hgroup *hg = NULL;
		struct boot_ctx bc;
		bool *mine = NULL; /* unit u is one of the side's runs */

		if (g->side[0].nr < 2 || g->side[0].windows < o->min_windows)
			continue;
		cmp_ctx_init(o, g, map, unmap, &bc);
		if (!(y = malloc(sizeof(double) * g->side[0].nr * MAX_METRICS)) ||
		    !(mine = malloc(sizeof(*mine) * g->side[0].nr)))
			err = -ENOMEM;
		/* observed values only: no resamples, so no generator is drawn from */
		for (int u = 0; u < g->side[0].nr && !err; u++) {
			struct gside one = { .u = &g->side[0].u[u],
					     .nr = 1,
					     .windows = g->side[0].u[u].n };

			mine[u] = side_has_run(side, g->side[0].u[u].run_id);
			err = cmp_side_boot(&bc, &one, NULL, 0, y + u * MAX_METRICS, boot, sums);
		}
		if (!err && !(hg = cmp_find_hgroup(fs, g->name, true, true)))
			err = -ENOMEM;
		for (size_t m = 0; m < sl_nr_metrics && !err; m++) {
			double sum[2] = { 0, 0 };
			int n[2] = { 0, 0 };

			for (int u = 0; u < g->side[0].nr; u++) {
				double yu = y[u * MAX_METRICS + m];

				if (!isnan(yu)) {
					sum[!mine[u]] += yu;
					n[!mine[u]]++;
				}
			}
			if (n[0] && n[1]) {
				double mean = sum[1] / n[1], dist = mean - sum[0] / n[0];

				for (int u = 0; u < g->side[0].nr; u++) {
					double yu = y[u * MAX_METRICS + m];

					if (!isnan(yu) && !mine[u])
						hg->ss[m] += (yu - mean) * (yu - mean);
				}
				hg->ss[m] += dist * dist / (1.0 / n[0] + 1.0 / n[1]);
				hg->df[m] += n[1];
			}
		}
		free(y);
		free(mine);
	}
	cmp_free_loaded(&l);
	free(all.runs);
	return err;
}

/*
 * The database's history: comparable runs (c's label and topology) outside the comparison,
 * newest first, at most o->history_runs, grouped by configuration: kernel release,
 * sched_features and preemption mode. Runs of one configuration are replicates of each
 * other; runs of one kernel with another feature set are not (a feature toggle is a
 * change, not noise). The runs of a configuration that is the whole of a side's, with the
 * side's params (runs.params: --param, the lab's workload settings), are the side's
 * replicates (config_own); other runs of a configuration and params, two or more, give
 * features and the history's variance (config_features). None with --force (no label or
 * topology to match) or with segments.
 */
/* The history's runs as they come (sl_query_history_runs()), one configuration at a time. */
struct hist_load {
	struct sl_store *store;
	const struct sl_compare_opts *o; /* with segment_ns = 0 */
	const struct sl_comparison *c;
	struct features *fs;
	char *cur; /* the current configuration */
	struct sl_cmp_side side; /* its runs outside the comparison */
	char **params; /* theirs */
	int on_side[2]; /* its runs on each side of the comparison */
	char *side_params[2]; /* theirs, when they all have the same */
	bool side_mixed[2]; /* they have not */
	int taken;
};

static bool same_params(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* A side's whole run list is of the current configuration, with params the others can match. */
static bool whole_side(const struct hist_load *h, int s)
{
	return h->on_side[s] == h->c->side[s].nr_runs && !h->on_side[!s] && !h->side_mixed[s];
}

static void config_forget(struct hist_load *h)
{
	for (int i = 0; i < h->side.nr_runs; i++)
		free(h->params[i]);
	h->side.nr_runs = 0;
	for (int s = 0; s < 2; s++) {
		free(h->side_params[s]);
		h->side_params[s] = NULL;
		h->on_side[s] = 0;
		h->side_mixed[s] = false;
	}
}

/*
 * What the current configuration's runs give, then forgets them: its runs outside the
 * comparison with a whole side's params are that side's replicates (config_own); the
 * others are history (config_features), replicates of each other only with the same
 * params (another workload setting moves every metric: pgbench at 8 and at 32 clients is
 * two levels, not scatter), so each params value with two or more runs is a replicate set.
 */
static int config_done(struct hist_load *h)
{
	struct sl_cmp_side mine = { 0 }, rest = { 0 };
	bool *taken = NULL;
	int err = 0, s;

	for (s = 0; s < 2 && !whole_side(h, s); s++)
		;
	if (h->side.nr_runs && (!(mine.runs = malloc(sizeof(*mine.runs) * h->side.nr_runs)) ||
				!(rest.runs = malloc(sizeof(*rest.runs) * h->side.nr_runs)) ||
				!(taken = calloc(h->side.nr_runs, sizeof(*taken)))))
		err = -ENOMEM;
	for (int i = 0; i < h->side.nr_runs && !err; i++) {
		if (s < 2 && same_params(h->params[i], h->side_params[s])) {
			mine.runs[mine.nr_runs++] = h->side.runs[i];
			taken[i] = true;
		}
	}
	if (!err && mine.nr_runs)
		err = config_own(h->store, h->o, &h->c->side[s], &mine, h->fs);
	for (int i = 0; i < h->side.nr_runs && !err; i++) {
		if (taken[i])
			continue;
		rest.nr_runs = 0;
		for (int j = i; j < h->side.nr_runs; j++) {
			if (!taken[j] && same_params(h->params[j], h->params[i])) {
				rest.runs[rest.nr_runs++] = h->side.runs[j];
				taken[j] = true;
			}
		}
		if (rest.nr_runs >= 2)
			err = config_features(h->store, h->o, &rest, h->fs);
	}
	free(taken);
	free(mine.runs);
	free(rest.runs);
	config_forget(h);
	return err;
}

static int history_run(void *ctx, int64_t id, const char *k, const char *params)
{
	struct hist_load *h = ctx;
	char *copy = NULL, **pp;
	int64_t *p;
	int err = 0, s;

	if (!k)
		return 0;
	if (!h->cur || strcmp(h->cur, k)) {
		err = config_done(h);
		free(h->cur);
		if (!(h->cur = strdup(k)))
			return -ENOMEM;
	}
	if (err)
		return err;
	if (params && !(copy = strdup(params)))
		return -ENOMEM;
	if ((s = side_of(h->c, id)) >= 0) {
		if (h->on_side[s]++ == 0)
			h->side_params[s] = copy;
		else {
			h->side_mixed[s] |= !same_params(copy, h->side_params[s]);
			free(copy);
		}
		return 0;
	}
	if (h->taken >= h->o->history_runs) {
		free(copy);
		return 0;
	}
	p = realloc(h->side.runs, sizeof(*p) * (h->side.nr_runs + 1));
	if (p)
		h->side.runs = p;
	pp = p ? realloc(h->params, sizeof(*pp) * (h->side.nr_runs + 1)) : NULL;
	if (!pp) {
		free(copy);
		return -ENOMEM;
	}
	h->params = pp;
	h->params[h->side.nr_runs] = copy;
	h->side.runs[h->side.nr_runs++] = id;
	h->taken++;
	return 0;
}

int cmp_history_features(struct sl_store *store, const struct sl_compare_opts *o,
			 const struct sl_comparison *c, struct features *fs)
{
	struct sl_compare_opts ho = *o;
	struct hist_load h = { .store = store, .o = &ho, .c = c, .fs = fs };
	int err;

	/* segments of one run vary more than whole runs: the history's variance would
	 * understate theirs */
	if (!store || o->history_runs <= 0 || !c->topo_hash[0] || o->segment_ns)
		return 0;
	ho.segment_ns = 0;
	err = sl_query_history_runs(store, c->label, c->topo_hash,
				    o->history_runs + c->side[0].nr_runs + c->side[1].nr_runs,
				    history_run, &h);
	if (!err)
		err = config_done(&h);
	config_forget(&h);
	free(h.side.runs);
	free(h.params);
	free(h.cur);
	return err;
}
