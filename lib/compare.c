// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison itself: loads the windows of the selected runs, groups them by window
 * group, side and unit (a run, or a segment of one), and tests every metric with a
 * hierarchical bootstrap. Each resample draws the side's units with replacement, then
 * moving blocks of consecutive windows within each unit, and recomputes the pooled metric
 * (sum of numerators over sum of denominators, or a quantile of the merged latency
 * histogram: never a mean of per-window ratios). Block sums come from prefix sums, so a
 * resample costs one subtraction per column per block.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-local.h"
#include "error.h"
#include "stats.h"

#define NC SL_WC_COUNT
#define MAX_METRICS 64

/* One bucket of a window's latency histogram, sparse. */
struct hbin {
	uint16_t bucket;
	uint32_t count;
};

/* A run, or a segment of one: its windows of one group in time order. */
struct unit {
	int64_t run_id;
	uint64_t seg;
	size_t n, cap;
	double *cols; /* n * NC */
	size_t *hoff; /* window i's bins: bins[hoff[i] .. hoff[i + 1]) */
	struct hbin *bins;
	size_t nr_bins, cap_bins;
};

struct gside {
	struct unit *u;
	int nr;
	size_t windows;
};

struct group {
	char name[SL_GROUP_LEN];
	struct gside side[2];
};

struct loaded {
	struct group *g;
	int nr;
};

const char *sl_verdict_name(enum sl_verdict v)
{
	static const char *const names[] = { "regression", "improvement", "change", "no_change",
					     "insufficient_data" };

	return v <= SL_V_INSUFFICIENT ? names[v] : "?";
}

void sl_compare_opts_default(struct sl_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->resamples = 1000;
	o->alpha = 0.01;
	o->rel_threshold = 0.10;
	o->floor_scale = 1;
	o->single_run_factor = 3;
	o->min_windows = 10;
}

static void free_loaded(struct loaded *l)
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

#define WIN_SQL                                                                                    \
	"SELECT grp, start_ns, dur_ns, wakeups, prev_same, prev_smt, prev_llc, prev_package, "     \
	"prev_remote, waker_same, waker_smt, waker_llc, waker_package, waker_remote, state_idle, " \
	"state_busy, state_claimed, missed_idle, missed_smt, stacked, migrations, switches, "      \
	"preempt_wakeup, preempt_tick, preempt_same_group, lhp_count, lhp_cost_ns, "               \
	"hub_preemptions, policy_known, pol_prev_idle, pol_affine, pol_llc_scan, pol_buddy, "      \
	"pol_smt_first, lat_hist, spin_count, spin_cost_ns FROM windows WHERE run_id = ?1 "        \
	"ORDER BY grp, start_ns"

/* Reads one window row of WIN_SQL into w (only what the metrics use). */
static int read_window(sqlite3_stmt *st, struct sl_window_rec *w)
{
	int c = 1;

	w->start_ns = (uint64_t)sqlite3_column_int64(st, c++);
	w->dur_ns = (uint64_t)sqlite3_column_int64(st, c++);
	w->wakeups = (uint64_t)sqlite3_column_int64(st, c++);
	for (int r = SL_RREL_SAME; r <= SL_RREL_REMOTE; r++)
		w->class_prev[r] = (uint64_t)sqlite3_column_int64(st, c++);
	for (int r = SL_RREL_SAME; r <= SL_RREL_REMOTE; r++)
		w->class_waker[r] = (uint64_t)sqlite3_column_int64(st, c++);
	w->target_state[SL_TS_IDLE] = (uint64_t)sqlite3_column_int64(st, c++);
	w->target_state[SL_TS_BUSY] = (uint64_t)sqlite3_column_int64(st, c++);
	w->target_state[SL_TS_CLAIMED] = (uint64_t)sqlite3_column_int64(st, c++);
	w->missed_idle = (uint64_t)sqlite3_column_int64(st, c++);
	w->missed_smt = (uint64_t)sqlite3_column_int64(st, c++);
	w->stacked = (uint64_t)sqlite3_column_int64(st, c++);
	w->migrations = (uint64_t)sqlite3_column_int64(st, c++);
	w->switches = (uint64_t)sqlite3_column_int64(st, c++);
	w->preempt_wakeup = (uint64_t)sqlite3_column_int64(st, c++);
	w->preempt_tick = (uint64_t)sqlite3_column_int64(st, c++);
	w->preempt_same_group = (uint64_t)sqlite3_column_int64(st, c++);
	w->lhp_count = (uint64_t)sqlite3_column_int64(st, c++);
	w->lhp_cost_ns = (uint64_t)sqlite3_column_int64(st, c++);
	w->hub_preemptions = (uint64_t)sqlite3_column_int64(st, c++);
	w->policy_known = (uint64_t)sqlite3_column_int64(st, c++);
	for (int p = 0; p < SL_POL_COUNT; p++)
		w->policy_agree[p] = (uint64_t)sqlite3_column_int64(st, c++);
	w->spin_count = (uint64_t)sqlite3_column_int64(st, c + 1);
	w->spin_cost_ns = (uint64_t)sqlite3_column_int64(st, c + 2);
	return sl_hist_decode(sqlite3_column_blob(st, c), (size_t)sqlite3_column_bytes(st, c),
			      &w->latency);
}

static int load_side(sqlite3 *db, const struct sl_compare_opts *o, struct sl_cmp_side *side, int s,
		     struct loaded *l)
{
	struct sl_window_rec *w = malloc(sizeof(*w));
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	if (!w)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, WIN_SQL, -1, &st, NULL) != SQLITE_OK) {
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
		goto out;
	}
	for (int r = 0; r < side->nr_runs && !err; r++) {
		uint64_t first = 0;
		char cur[SL_GROUP_LEN] = "";

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, side->runs[r]);
		while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *grp = (const char *)sqlite3_column_text(st, 0);
			struct group *g;
			struct unit *u;

			memset(w, 0, sizeof(*w));
			if ((err = read_window(st, w)))
				break;
			if (!grp || !w->dur_ns)
				continue;
			if (strcmp(cur, grp)) {
				snprintf(cur, sizeof(cur), "%.*s", SL_GROUP_LEN - 1, grp);
				first = w->start_ns;
			}
			if (!(g = find_group(l, grp)) ||
			    !(u = find_unit(&g->side[s], side->runs[r],
					    o->segment_ns ? (w->start_ns - first) / o->segment_ns :
							    0))) {
				err = -ENOMEM;
				break;
			}
			if ((err = unit_add(u, w)))
				break;
			g->side[s].windows++;
		}
		if (!err && rc != SQLITE_DONE && rc != SQLITE_ROW)
			err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
	}
out:
	sqlite3_finalize(st);
	free(w);
	return err;
}

/* Prefix sums of one unit: columns, and latency counts in the group's compact buckets. */
struct prefix {
	size_t n;
	double *c; /* (n + 1) * NC */
	double *h; /* (n + 1) * nb */
	size_t len; /* block length */
};

/*
 * Quantiles are found in two steps so a resample does not add up every histogram bucket
 * for every block: the prefix rows carry, after the NC columns, the counts of "super
 * bins" of SUPER compact buckets each; a quantile first finds its super bin from those
 * sums, then adds up only that super bin's buckets over the resample's blocks.
 */
#define SUPER 16

struct blk {
	const struct prefix *u;
	size_t s, len;
};

struct boot_ctx {
	const struct sl_compare_opts *o;
	const int *map; /* histogram bucket -> compact index, -1 if never used */
	const uint16_t *unmap; /* compact index -> bucket */
	int nb;
	int nsb; /* super bins */
	int width; /* NC + nsb: a prefix row */
};

static int build_prefix(const struct boot_ctx *b, const struct unit *u, struct prefix *p)
{
	size_t nb = (size_t)b->nb;

	p->n = u->n;
	p->c = calloc((u->n + 1) * b->width, sizeof(double));
	p->h = calloc((u->n + 1) * (nb ? nb : 1), sizeof(double));
	if (!p->c || !p->h)
		return -ENOMEM;
	for (size_t i = 0; i < u->n; i++) {
		double *c0 = p->c + i * b->width, *c1 = c0 + b->width, *h0 = p->h + i * nb;
		double *h1 = h0 + nb;

		for (int k = 0; k < NC; k++)
			c1[k] = c0[k] + u->cols[i * NC + k];
		for (int k = NC; k < b->width; k++)
			c1[k] = c0[k];
		memcpy(h1, h0, sizeof(double) * nb);
		for (size_t j = u->hoff[i]; j < u->hoff[i + 1]; j++) {
			int k = b->map[u->bins[j].bucket];

			h1[k] += u->bins[j].count;
			c1[NC + k / SUPER] += u->bins[j].count;
		}
	}
	p->len = b->o->block_len ? b->o->block_len : sl_stats_block_len(u->n);
	if (p->len > u->n)
		p->len = u->n ? u->n : 1;
	return 0;
}

/*
 * Quantile q of the latency histogram of a resample (its blocks, and sums with the super
 * bin totals), interpolated within the bucket, in us.
 */
static double quantile(const struct boot_ctx *b, const double *sums, const struct blk *bl,
		       size_t nbl, double q)
{
	const double *sb = sums + NC;
	double total = 0, rank, seen = 0, fine[SUPER];
	int j, lo, hi;

	for (int k = 0; k < b->nsb; k++)
		total += sb[k];
	if (total <= 0)
		return NAN;
	rank = ceil(q * total - 1e-9);
	if (rank < 1)
		rank = 1;
	for (j = 0; j < b->nsb - 1 && seen + sb[j] < rank; j++)
		seen += sb[j];
	lo = j * SUPER;
	hi = lo + SUPER < b->nb ? lo + SUPER : b->nb;
	memset(fine, 0, sizeof(fine));
	for (size_t i = 0; i < nbl; i++) {
		const double *h0 = bl[i].u->h + bl[i].s * b->nb;
		const double *h1 = bl[i].u->h + (bl[i].s + bl[i].len) * b->nb;

		for (int k = lo; k < hi; k++)
			fine[k - lo] += h1[k] - h0[k];
	}
	for (int k = lo; k < hi; k++) {
		double c = fine[k - lo];

		if (c > 0 && seen + c >= rank) {
			unsigned int bk = b->unmap[k];
			double blo = (double)sl_hist_bucket_lo_ns(bk);
			double bhi = bk == SL_HIST_OVERFLOW ? blo :
							      (double)sl_hist_bucket_hi_ns(bk);

			return (blo + (bhi - blo) * (rank - seen - 0.5) / c) / 1e3;
		}
		seen += c;
	}
	return NAN;
}

static void metric_values(const struct boot_ctx *b, const double *sums, const struct blk *bl,
			  size_t nbl, double *out)
{
	for (size_t m = 0; m < sl_nr_metrics; m++) {
		const struct sl_metric *mt = &sl_metrics[m];

		if (mt->kind == SL_MK_QUANTILE)
			out[m] = quantile(b, sums, bl, nbl, mt->q);
		else
			out[m] = sl_metric_value(mt, sums, NULL);
	}
}

/* Adds windows [s, s + len) of unit p to sums (columns and super bins). */
static void add_block(const struct boot_ctx *b, const struct prefix *p, size_t s, size_t len,
		      double *restrict sums)
{
	const double *restrict c0 = p->c + s * b->width;
	const double *restrict c1 = p->c + (s + len) * b->width;

	for (int k = 0; k < b->width; k++)
		sums[k] += c1[k] - c0[k];
}

/*
 * Observed metric values of one side into obs[m], and resamples into boot[m * B + i].
 * sums_out gets the observed column sums (for the minimum-denominator checks).
 */
static int side_boot(const struct boot_ctx *b, const struct gside *gs, struct sl_rng *rng,
		     double *obs, double *boot, double *sums_out)
{
	int B = b->o->resamples, err = 0;
	struct prefix *p = calloc(gs->nr ? gs->nr : 1, sizeof(*p));
	double *sums = malloc(sizeof(double) * b->width);
	double *vals = malloc(sizeof(double) * sl_nr_metrics);
	size_t *starts = NULL, maxn = 1, nbl;
	struct blk *bl = NULL;

	if (!p || !sums || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < gs->nr && !err; i++) {
		err = build_prefix(b, &gs->u[i], &p[i]);
		if (gs->u[i].n > maxn)
			maxn = gs->u[i].n;
	}
	if (err || !(starts = malloc(sizeof(*starts) * maxn)) ||
	    !(bl = malloc(sizeof(*bl) * maxn * (gs->nr ? gs->nr : 1)))) {
		err = err ? err : -ENOMEM;
		goto out;
	}
	memset(sums, 0, sizeof(double) * b->width);
	for (int i = 0; i < gs->nr; i++) {
		add_block(b, &p[i], 0, p[i].n, sums);
		bl[i] = (struct blk){ &p[i], 0, p[i].n };
	}
	metric_values(b, sums, bl, (size_t)gs->nr, obs);
	memcpy(sums_out, sums, sizeof(double) * NC);
	for (int r = 0; r < B; r++) {
		memset(sums, 0, sizeof(double) * b->width);
		nbl = 0;
		for (int k = 0; k < gs->nr; k++) {
			const struct prefix *u = &p[sl_rng_below(rng, (uint64_t)gs->nr)];
			size_t nbk = sl_stats_block_starts(rng, u->n, u->len, starts);

			for (size_t j = 0; j < nbk; j++) {
				size_t len = j + 1 < nbk ? u->len : u->n - j * u->len;

				add_block(b, u, starts[j], len, sums);
				bl[nbl++] = (struct blk){ u, starts[j], len };
			}
		}
		metric_values(b, sums, bl, nbl, vals);
		for (size_t m = 0; m < sl_nr_metrics; m++)
			boot[m * B + r] = vals[m];
	}
out:
	for (int i = 0; p && i < gs->nr; i++) {
		free(p[i].c);
		free(p[i].h);
	}
	free(p);
	free(sums);
	free(vals);
	free(starts);
	free(bl);
	return err;
}

static uint64_t name_hash(const char *s)
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
 * With one run (or segment) on a side the bootstrap sees only window-to-window variance,
 * and run-to-run variance dominates (docs/statistics.md): stretch the distribution of the
 * difference about its mean by f, i.e. assume the unseen run-to-run variance is
 * (f^2 - 1) times what was seen. Intervals get f times wider, z-scores f times smaller.
 */
static void widen(double *d, size_t n, double f)
{
	double mean = 0;

	for (size_t i = 0; i < n; i++)
		mean += d[i];
	mean /= n ? (double)n : 1;
	for (size_t i = 0; i < n; i++)
		d[i] = mean + f * (d[i] - mean);
}

/* All metrics of one group: observed values, CI and raw p-values (verdicts come later). */
static int test_group(const struct sl_compare_opts *o, const struct group *g,
		      struct sl_comparison *c)
{
	int B = o->resamples, nb = 0, err = 0, map[SL_HIST_BUCKETS];
	uint16_t unmap[SL_HIST_BUCKETS];
	double obs[2][MAX_METRICS], sums[2][NC], *boot[2] = { NULL, NULL }, *d = NULL;
	bool enough = g->side[0].windows >= o->min_windows && g->side[1].windows >= o->min_windows;
	struct boot_ctx bc = { .o = o, .map = map, .unmap = unmap };
	struct sl_rng rng;

	memset(map, 0xff, sizeof(map));
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < g->side[s].nr; i++)
			for (size_t j = 0; j < g->side[s].u[i].nr_bins; j++)
				map[g->side[s].u[i].bins[j].bucket] = 0;
	for (unsigned int k = 0; k < SL_HIST_BUCKETS; k++)
		if (map[k] == 0) {
			unmap[nb] = (uint16_t)k;
			map[k] = nb++;
		}
	bc.nb = nb;
	bc.nsb = nb ? (nb + SUPER - 1) / SUPER : 1;
	bc.width = NC + bc.nsb;
	sl_rng_seed(&rng, o->seed ^ name_hash(g->name));
	if (enough) {
		boot[0] = malloc(sizeof(double) * B * sl_nr_metrics);
		boot[1] = malloc(sizeof(double) * B * sl_nr_metrics);
		d = malloc(sizeof(double) * B);
		if (!boot[0] || !boot[1] || !d) {
			err = -ENOMEM;
			goto out;
		}
		for (int s = 0; s < 2 && !err; s++)
			err = side_boot(&bc, &g->side[s], &rng, obs[s], boot[s], sums[s]);
		if (err)
			goto out;
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
					.verdict = SL_V_INSUFFICIENT };
		size_t nd = 0;

		snprintf(f.grp, sizeof(f.grp), "%s", g->name);
		if (enough && sums[0][mt->den] >= mt->min_den && sums[1][mt->den] >= mt->min_den &&
		    (mt->kind != SL_MK_RATE || sums[0][SL_WC_DUR_NS] > 0)) {
			f.base = obs[0][m];
			f.cand = obs[1][m];
		}
		if (!isnan(f.base) && !isnan(f.cand)) {
			f.delta = f.cand - f.base;
			f.rel = f.base != 0 ? f.delta / f.base : (f.delta != 0 ? INFINITY : 0);
			for (int r = 0; r < B; r++) {
				double x = boot[1][m * B + r] - boot[0][m * B + r];

				if (!isnan(x))
					d[nd++] = x;
			}
			if (c->single_run)
				widen(d, nd, o->single_run_factor);
			f.p = sl_stats_boot_pvalue(f.delta, d, nd);
			f.ci_lo = sl_stats_percentile(d, nd, 0.025);
			f.ci_hi = sl_stats_percentile(d, nd, 0.975);
			f.verdict = SL_V_NO_CHANGE;
			if (isnan(f.p))
				f.verdict = SL_V_INSUFFICIENT;
		}
		err = push_finding(c, &f);
	}
out:
	free(boot[0]);
	free(boot[1]);
	free(d);
	return err;
}

/* Holm across every tested (group, metric), then the three conditions of a flag. */
static int decide(const struct sl_compare_opts *o, struct sl_comparison *c)
{
	double *p = malloc(sizeof(double) * (c->nr_findings ? c->nr_findings : 1));
	double *adj = malloc(sizeof(double) * (c->nr_findings ? c->nr_findings : 1));
	int err;

	if (!p || !adj) {
		free(p);
		free(adj);
		return -ENOMEM;
	}
	/* one run a side: a relative change must also be twice as large */
	c->rel_threshold = o->rel_threshold * (c->single_run ? 2 : 1);
	c->floor_scale = o->floor_scale;
	for (size_t i = 0; i < c->nr_findings; i++)
		p[i] = c->findings[i].verdict == SL_V_INSUFFICIENT ? NAN : c->findings[i].p;
	err = sl_stats_holm(p, c->nr_findings, adj);
	for (size_t i = 0; !err && i < c->nr_findings; i++) {
		struct sl_finding *f = &c->findings[i];
		const struct sl_metric *m = f->metric;
		bool up = f->delta > 0;

		if (f->verdict == SL_V_INSUFFICIENT) {
			c->insufficient++;
			snprintf(f->explanation, sizeof(f->explanation),
				 "too few windows or events of %s for %s",
				 strcmp(f->grp, SL_GROUP_ALL) ? f->grp : "all tasks", m->name);
			continue;
		}
		f->p_adj = adj[i];
		if (f->p_adj < o->alpha && fabs(f->rel) >= c->rel_threshold &&
		    fabs(f->delta) >= m->floor * c->floor_scale) {
			if (m->polarity == SL_MPOL_NEUTRAL)
				f->verdict = SL_V_CHANGE;
			else if (up == (m->polarity == SL_MPOL_WORSE_UP))
				f->verdict = SL_V_REGRESSION;
			else
				f->verdict = SL_V_IMPROVEMENT;
		}
		c->regressions += f->verdict == SL_V_REGRESSION;
		c->improvements += f->verdict == SL_V_IMPROVEMENT;
		c->changes += f->verdict == SL_V_CHANGE;
		sl_metric_explain(m, f->grp, f->base, f->cand, f->ci_lo, f->ci_hi, f->explanation,
				  sizeof(f->explanation));
	}
	free(p);
	free(adj);
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

static void summarize(struct sl_comparison *c)
{
	const char *b = c->side[0].kernel, *k = c->side[1].kernel;

	if (c->verdict == SL_V_INSUFFICIENT)
		snprintf(c->summary, sizeof(c->summary),
			 "insufficient data: %zu baseline and %zu candidate windows of all tasks",
			 c->side[0].windows, c->side[1].windows);
	else
		snprintf(c->summary, sizeof(c->summary),
			 "%s vs %s: %d regression%s, %d improvement%s, %d neutral change%s "
			 "(%d vs %d run%s, %zu vs %zu windows)",
			 b, k, c->regressions, c->regressions == 1 ? "" : "s", c->improvements,
			 c->improvements == 1 ? "" : "s", c->changes, c->changes == 1 ? "" : "s",
			 c->side[0].nr_runs, c->side[1].nr_runs, c->side[1].nr_runs == 1 ? "" : "s",
			 c->side[0].windows, c->side[1].windows);
}

int sl_compare(struct sl_store *store, const struct sl_compare_opts *opts,
	       struct sl_comparison **ret)
{
	struct sl_compare_opts o = *opts;
	struct sl_comparison *c = calloc(1, sizeof(*c));
	struct loaded l = { 0 };
	sqlite3 *db = sl_store_db(store);
	struct group *all = NULL;
	int err, skipped = 0;

	if (!c)
		return -ENOMEM;
	if (sl_nr_metrics > MAX_METRICS) {
		free(c);
		return sl_error(-SL_ERANGE, "metric table larger than %d", MAX_METRICS);
	}
	if (o.resamples < 100 || o.resamples > 1000000 || o.alpha <= 0 || o.alpha >= 1 ||
	    o.rel_threshold < 0 || o.floor_scale < 0 || o.single_run_factor < 1) {
		free(c);
		return sl_error(-SL_EUSAGE,
				"comparison settings out of range (resamples %d, "
				"alpha %g, threshold %g)",
				o.resamples, o.alpha, o.rel_threshold);
	}
	c->id = -1;
	c->seed = o.seed;
	c->resamples = o.resamples;
	c->alpha = o.alpha;
	if ((err = sl_cmp_select(db, &o, c)) || (err = load_side(db, &o, &c->side[0], 0, &l)) ||
	    (err = load_side(db, &o, &c->side[1], 1, &l)))
		goto fail;
	qsort(l.g, l.nr, sizeof(*l.g), cmp_group);
	for (int i = 0; i < l.nr; i++)
		if (!strcmp(l.g[i].name, SL_GROUP_ALL))
			all = &l.g[i];
	for (int s = 0; s < 2; s++) {
		c->side[s].windows = all ? all->side[s].windows : 0;
		c->side[s].units = all ? all->side[s].nr : 0;
	}
	c->single_run = c->side[0].units < 2 || c->side[1].units < 2;
	c->single_run_factor = c->single_run ? o.single_run_factor : 1;
	if (c->single_run)
		sl_cmp_note(c,
			    "single run%s on a side: run-to-run variance unknown, confidence "
			    "intervals widened %gx and the relative threshold doubled",
			    o.segment_ns ? " or segment" : "", o.single_run_factor);
	if (o.segment_ns)
		sl_cmp_note(c, "runs cut into %.0f s segments that serve as runs",
			    (double)o.segment_ns / 1e9);
	for (int i = 0; i < l.nr && !err; i++) {
		const struct group *g = &l.g[i];
		bool small = g->side[0].windows < o.min_windows ||
			     g->side[1].windows < o.min_windows;

		if (!group_wanted(&o, g->name))
			continue;
		/* groups that came and went (a kworker, a one-off command) have no verdict to
		 * give; those the user asked for by name say "insufficient data" */
		if (!o.groups && small && strcmp(g->name, SL_GROUP_ALL)) {
			skipped++;
			continue;
		}
		err = test_group(&o, g, c);
	}
	if (skipped)
		sl_cmp_note(c, "%d group%s with fewer than %zu windows on a side not compared",
			    skipped, skipped == 1 ? "" : "s", o.min_windows);
	if (err || (err = decide(&o, c)))
		goto fail;
	if (!all || c->side[0].windows < o.min_windows || c->side[1].windows < o.min_windows)
		c->verdict = SL_V_INSUFFICIENT;
	else if (c->regressions)
		c->verdict = SL_V_REGRESSION;
	else if (c->improvements)
		c->verdict = SL_V_IMPROVEMENT;
	else if (c->changes)
		c->verdict = SL_V_CHANGE;
	else
		c->verdict = SL_V_NO_CHANGE;
	if (o.groups && !c->nr_findings)
		sl_cmp_note(c, "none of the selected groups has windows on both sides");
	summarize(c);
	free_loaded(&l);
	if (o.store && (err = sl_cmp_store(db, c)))
		goto fail_stored;
	*ret = c;
	return 0;
fail:
	free_loaded(&l);
fail_stored:
	sl_comparison_free(c);
	return err;
}

void sl_comparison_free(struct sl_comparison *c)
{
	if (!c)
		return;
	free(c->side[0].runs);
	free(c->side[1].runs);
	free(c->findings);
	free(c);
}
