/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The statistics behind `schedlens diff` (docs/statistics.md): a small seeded PRNG
 * (xoshiro256** seeded through splitmix64) so every bootstrap is reproducible from its
 * seed, moving-block resampling of consecutive windows (autocorrelation inside a block is
 * kept), percentiles for the percentile confidence interval, the bootstrap p-value and the
 * Holm step-down correction for a family of tests. Pure functions, no allocation except
 * where documented.
 */
#ifndef SL_STATS_H
#define SL_STATS_H

#include <stddef.h>
#include <stdint.h>

struct sl_rng {
	uint64_t s[4];
};

/* Seeds the generator; any seed (0 too) gives a valid, distinct stream. */
void sl_rng_seed(struct sl_rng *r, uint64_t seed);
uint64_t sl_rng_next(struct sl_rng *r);
/* Uniform in [0, n), without modulo bias; 0 when n is 0. */
uint64_t sl_rng_below(struct sl_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double sl_rng_double(struct sl_rng *r);

/* The default moving-block length for n windows: round(n^(1/3)), at least 1. */
size_t sl_stats_block_len(size_t n);

/*
 * One moving-block resample of a series of n items: ceil(n / len) blocks, each starting
 * at a uniform position in [0, n - len] (len is clamped to n), concatenated and cut to n
 * items. Writes the block starts to starts[] (room for ceil(n / len) entries) and returns
 * how many; the last block covers only n - (k - 1) * len items.
 */
size_t sl_stats_block_starts(struct sl_rng *r, size_t n, size_t len, size_t *starts);

/* The same resample as item indices: idx[0..n) (built on sl_stats_block_starts()). */
void sl_stats_block_resample(struct sl_rng *r, size_t n, size_t len, size_t *idx);

/* The q-quantile (q in [0, 1]) of v[0..n) with linear interpolation; sorts v. NAN if n = 0. */
double sl_stats_percentile(double *v, size_t n, double q);

/* Standard normal distribution function. */
double sl_stats_norm_cdf(double x);

/*
 * Two-sided p-value of an observed difference against its bootstrap distribution
 * boot[0..n): the observed value over the bootstrap standard error, referred to the
 * normal distribution. (Counting resamples beyond zero cannot resolve the p-values a Holm
 * correction over dozens of metrics needs: with 1000 resamples the smallest is 0.001.)
 * 1 when observed is 0; 0 when the bootstrap has no spread but observed is not 0.
 */
double sl_stats_boot_pvalue(double observed, const double *boot, size_t n);

/*
 * Holm's step-down adjusted p-values: with the m valid p-values sorted ascending,
 * adj(i) = max over j <= i of min(1, (m - j) * p(j)) (j from 0). Rejecting where
 * adj < alpha is Holm's procedure at family-wise level alpha. NAN entries of p (no test,
 * e.g. insufficient data) are left out of the family and stay NAN in adj. Returns 0, or
 * -ENOMEM.
 */
int sl_stats_holm(const double *p, size_t n, double *adj);

/*
 * Benjamini-Hochberg adjusted p-values (false-discovery rate): with the m valid p-values
 * sorted ascending, adj(i) = min over j >= i of min(1, m * p(j) / (j + 1)). NAN entries are
 * left out, as in sl_stats_holm(). Returns 0 or -ENOMEM.
 */
int sl_stats_bh(const double *p, size_t n, double *adj);

/* Student's t distribution function with df degrees of freedom (df > 0; INFINITY: normal). */
double sl_stats_t_cdf(double t, double df);

/* The q-quantile of Student's t with df degrees of freedom (0 < q < 1). */
double sl_stats_t_quantile(double q, double df);

/* Digamma and trigamma functions for x > 0. */
double sl_stats_digamma(double x);
double sl_stats_trigamma(double x);

/*
 * The empirical-Bayes prior of limma's moderated t (Smyth 2004, fitFDist): given n
 * feature variances s2[i] > 0 each on df[i] > 0 degrees of freedom, estimates by moments
 * of log s2 the scaled inverse-chi-square prior s0^2, d0 they are drawn from. *ret_d0 is
 * INFINITY when the variances spread no more than sampling alone explains, 0 (and s0^2
 * NAN) with fewer than 3 features. Entries with s2 <= 0, NAN or df <= 0 are skipped.
 */
void sl_stats_fit_prior(const double *s2, const double *df, size_t n, double *ret_s02,
			double *ret_d0);

#endif
