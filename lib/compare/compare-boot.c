// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison's within-run variance: a moving-block bootstrap of each unit's windows
 * (compare.c's header comment). Block sums come from prefix sums, so a resample costs one
 * subtraction per column per block; latency quantiles come from the merged histogram of
 * the resampled blocks.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare-units-local.h"

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
int cmp_side_boot(const struct boot_ctx *b, const struct gside *gs, struct sl_rng *rng, int B,
		  double *obs, double *boot, double *sums_out)
{
	int err = 0;
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

/* Maps the histogram buckets either side of g uses to compact indices for the bootstrap. */
void cmp_ctx_init(const struct sl_compare_opts *o, const struct group *g, int *map, uint16_t *unmap,
		  struct boot_ctx *bc)
{
	int nb = 0;

	memset(map, 0xff, sizeof(int) * SL_HIST_BUCKETS);
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < g->side[s].nr; i++)
			for (size_t j = 0; j < g->side[s].u[i].nr_bins; j++)
				map[g->side[s].u[i].bins[j].bucket] = 0;
	for (unsigned int k = 0; k < SL_HIST_BUCKETS; k++)
		if (map[k] == 0) {
			unmap[nb] = (uint16_t)k;
			map[k] = nb++;
		}
	*bc = (struct boot_ctx){ .o = o, .map = map, .unmap = unmap, .nb = nb };
	bc->nsb = nb ? (nb + SUPER - 1) / SUPER : 1;
	bc->width = NC + bc->nsb;
}

/* Resamples for a unit's within-run variance: a variance needs far fewer than a p-value. */
static int within_resamples(const struct sl_compare_opts *o)
{
	return o->resamples < 400 ? o->resamples : 400;
}

/*
 * Every unit of gs on its own: its metric values y[i * MAX_METRICS + m] and the moving-block
 * bootstrap variance of each, w[...] (NAN when undefined): the within-run variance.
 */
int cmp_unit_stats(const struct boot_ctx *bc, const struct gside *gs, struct sl_rng *rng, double *y,
		   double *w)
{
	int B = within_resamples(bc->o), err = 0;
	double *boot = malloc(sizeof(double) * B * sl_nr_metrics), sums[NC];

	if (!boot)
		return -ENOMEM;
	for (int i = 0; i < gs->nr && !err; i++) {
		struct gside one = { .u = &gs->u[i], .nr = 1, .windows = gs->u[i].n };

		err = cmp_side_boot(bc, &one, rng, B, y + i * MAX_METRICS, boot, sums);
		for (size_t m = 0; m < sl_nr_metrics && !err; m++) {
			double mean = 0, ss = 0;
			int k = 0;

			for (int r = 0; r < B; r++)
				if (!isnan(boot[m * B + r])) {
					mean += boot[m * B + r];
					k++;
				}
			mean /= k ? k : 1;
			for (int r = 0; r < B; r++)
				if (!isnan(boot[m * B + r]))
					ss += (boot[m * B + r] - mean) * (boot[m * B + r] - mean);
			w[i * MAX_METRICS + m] = k > 1 ? ss / (k - 1) : NAN;
		}
	}
	free(boot);
	return err;
}
