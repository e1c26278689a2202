// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the database's history tells a comparison about run-to-run variance: comparable
 * runs outside it (its label and topology), grouped by configuration (kernel release,
 * sched_features, preemption mode), give per group and metric a pooled run-to-run
 * variance, and variance-ratio features for the empirical-Bayes prior that compare.c fits
 * (docs/statistics.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-local.h"
#include "compare-units-local.h"
#include "store-query.h"

struct hgroup *cmp_find_hgroup(struct features *fs, const char *name, bool add)
{
	struct hgroup *h;

	for (int i = 0; i < fs->nr_hg; i++)
		if (!strcmp(fs->hg[i].name, name))
			return &fs->hg[i];
	if (!add || !(h = realloc(fs->hg, sizeof(*h) * (fs->nr_hg + 1))))
		return NULL;
	fs->hg = h;
	h = &fs->hg[fs->nr_hg++];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
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

static bool on_a_side(const struct sl_comparison *c, int64_t id)
{
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < c->side[s].nr_runs; i++)
			if (c->side[s].runs[i] == id)
				return true;
	return false;
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
		if (!err && !(hg = cmp_find_hgroup(fs, g->name, true)))
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
 * The database's history: comparable runs (c's label and topology) of configurations with
 * two or more such runs, outside the comparison, newest first, at most o->history_runs,
 * grouped by configuration: kernel release, sched_features and preemption mode. Runs of
 * one configuration are replicates of each other; runs of one kernel with another feature
 * set are not (a feature toggle is a change, not noise). None with --force (no label or
 * topology to match) or with segments.
 */
/* The history's runs as they come (sl_query_history_runs()), one configuration at a time. */
struct hist_load {
	struct sl_store *store;
	const struct sl_compare_opts *o; /* with segment_ns = 0 */
	const struct sl_comparison *c;
	struct features *fs;
	struct sl_cmp_side side; /* the current configuration's runs */
	char *cur; /* the current configuration */
	int taken;
};

static int history_run(void *ctx, int64_t id, const char *k)
{
	struct hist_load *h = ctx;
	int64_t *p;
	int err = 0;

	if (on_a_side(h->c, id) || !k)
		return 0;
	if (!h->cur || strcmp(h->cur, k)) {
		if (h->side.nr_runs >= 2)
			err = config_features(h->store, h->o, &h->side, h->fs);
		h->side.nr_runs = 0;
		free(h->cur);
		if (!(h->cur = strdup(k)))
			return -ENOMEM;
	}
	if (err || h->taken >= h->o->history_runs)
		return err;
	if (!(p = realloc(h->side.runs, sizeof(*p) * (h->side.nr_runs + 1))))
		return -ENOMEM;
	h->side.runs = p;
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
	if (!err && h.side.nr_runs >= 2)
		err = config_features(store, &ho, &h.side, fs);
	free(h.side.runs);
	free(h.cur);
	return err;
}
