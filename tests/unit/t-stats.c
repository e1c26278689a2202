// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of lib/stats: the PRNG is reproducible per seed and uniform enough, moving
 * blocks keep their contents intact, percentiles interpolate, Holm matches a published
 * worked example, and a block-bootstrap percentile interval of a known difference covers
 * it close to 95% of the time on simulated autocorrelated data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tap.h"

static void test_rng(void)
{
	struct sl_rng a, b, c;
	int same = 1, differ = 0, counts[10] = { 0 }, in_range = 1;

	sl_rng_seed(&a, 42);
	sl_rng_seed(&b, 42);
	sl_rng_seed(&c, 43);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = sl_rng_next(&a), y = sl_rng_next(&b), z = sl_rng_next(&c);

		same &= x == y;
		differ += x != z;
	}
	ok(same, "same seed, same stream");
	ok(differ > 990, "another seed, another stream (%d of 1000 differ)", differ);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = sl_rng_below(&a, 10);
		double d = sl_rng_double(&a);

		in_range &= v < 10 && d >= 0 && d < 1;
		counts[v < 10 ? v : 0]++;
	}
	ok(in_range, "below(10) and double() stay in range");
	for (int i = 0; i < 10; i++)
		if (abs(counts[i] - 10000) > 600)
			ok(0, "bucket %d of below(10) holds %d of 100000", i, counts[i]);
	is_int(sl_rng_below(&a, 0), 0, "below(0) is 0");
}

static void test_blocks(void)
{
	struct sl_rng r;
	size_t idx[100], starts[100], k;
	int intact = 1, in_range = 1;

	is_int(sl_stats_block_len(1000), 10, "block length of 1000 windows is 10");
	is_int(sl_stats_block_len(600), 8, "block length of 600 windows is 8");
	is_int(sl_stats_block_len(1), 1, "block length of 1 window is 1");
	sl_rng_seed(&r, 7);
	k = sl_stats_block_starts(&r, 100, 7, starts);
	is_int(k, 15, "100 windows in blocks of 7: 15 blocks");
	for (size_t i = 0; i < k; i++)
		in_range &= starts[i] <= 93;
	ok(in_range, "every block starts where a whole block fits");

	for (int rep = 0; rep < 200; rep++) {
		sl_stats_block_resample(&r, 100, 7, idx);
		for (size_t i = 0; i < 100; i++) {
			in_range &= idx[i] < 100;
			/* inside a block, indices run consecutively: contents are intact */
			if (i % 7)
				intact &= idx[i] == idx[i - 1] + 1;
		}
	}
	ok(intact, "resampled blocks are runs of consecutive windows (200 resamples)");
	ok(in_range, "resampled indices stay in range");

	struct sl_rng r1, r2;
	size_t a[50], b[50];

	sl_rng_seed(&r1, 99);
	sl_rng_seed(&r2, 99);
	sl_stats_block_resample(&r1, 50, 4, a);
	sl_stats_block_resample(&r2, 50, 4, b);
	ok(!memcmp(a, b, sizeof(a)), "block resampling is reproducible for a seed");
	sl_stats_block_resample(&r1, 5, 10, a);
	ok(a[0] == 0 && a[4] == 4, "a block longer than the series is the whole series");
}

static void test_percentile(void)
{
	double v[] = { 5, 1, 4, 2, 3 }, w[] = { 10 };

	ok(fabs(sl_stats_percentile(v, 5, 0.5) - 3) < 1e-12, "median of 1..5 is 3");
	ok(fabs(sl_stats_percentile(v, 5, 0.25) - 2) < 1e-12, "first quartile of 1..5 is 2");
	ok(fabs(sl_stats_percentile(v, 5, 0.1) - 1.4) < 1e-12, "10th percentile interpolates");
	ok(sl_stats_percentile(w, 1, 0.975) == 10, "one value is every percentile");
	ok(isnan(sl_stats_percentile(w, 0, 0.5)), "no values: NAN");
	ok(fabs(sl_stats_norm_cdf(1.959964) - 0.975) < 1e-6, "Phi(1.96) = 0.975");
}

/*
 * Holm (1979) as worked on Wikipedia's "Holm-Bonferroni method" page: H1..H4 with p
 * 0.01, 0.04, 0.03, 0.005 at alpha 0.05. Sorted: 0.005 * 4 = 0.02 < 0.05 reject;
 * 0.01 * 3 = 0.03 reject; 0.03 * 2 = 0.06 stop: H1 and H4 rejected, H2 and H3 not.
 * Adjusted p-values (R's p.adjust(method = "holm")): 0.03, 0.06, 0.06, 0.02.
 */
static void test_holm(void)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
	double want[] = { 0.03, 0.06, 0.06, 0.02 };
	double q[] = { NAN, 0.2, 0.01, NAN, 0.5 }, qa[5];
	int good = 1;

	is_int(sl_stats_holm(p, 4, adj), 0, "holm runs");
	for (int i = 0; i < 4; i++)
		good &= fabs(adj[i] - want[i]) < 1e-12;
	ok(good, "adjusted p: %g %g %g %g (want 0.03 0.06 0.06 0.02)", adj[0], adj[1], adj[2],
	   adj[3]);
	ok(adj[0] < 0.05 && adj[3] < 0.05 && adj[1] >= 0.05 && adj[2] >= 0.05,
	   "at alpha 0.05 H1 and H4 are rejected, H2 and H3 are not");
	sl_stats_holm(q, 5, qa);
	ok(isnan(qa[0]) && isnan(qa[3]), "untested entries stay NAN");
	ok(fabs(qa[2] - 0.03) < 1e-12 && fabs(qa[1] - 0.4) < 1e-12 && fabs(qa[4] - 0.5) < 1e-12,
	   "NAN entries are not part of the family (m = 3): %g %g %g", qa[2], qa[1], qa[4]);
	ok(sl_stats_boot_pvalue(0, p, 4) == 1, "zero difference: p = 1");
}

/* An AR(1) series of n windows with mean mu: autocorrelated like real windows. */
static void ar1(struct sl_rng *r, double *x, size_t n, double mu, double phi)
{
	double e = 0;

	for (size_t i = 0; i < n; i++) {
		/* sum of 12 uniforms - 6: close enough to a standard normal */
		double z = -6;

		for (int k = 0; k < 12; k++)
			z += sl_rng_double(r);
		e = phi * e + z;
		x[i] = mu + e;
	}
}

static double block_mean(struct sl_rng *r, const double *x, size_t n, size_t len, size_t *idx)
{
	double s = 0;

	sl_stats_block_resample(r, n, len, idx);
	for (size_t i = 0; i < n; i++)
		s += x[idx[i]];
	return s / (double)n;
}

/*
 * Coverage: 400 simulated experiments (AR(1) windows, phi 0.3, 300 a side, the comparison's
 * default block length), each a 95% percentile interval from 400 resamples.
 */
static void test_coverage(void)
{
	enum { N = 300, B = 400, TRIALS = 400 };
	static double a[N], b[N], d[B];
	static size_t idx[N];
	struct sl_rng data, boot;
	double truth = 0.5;
	size_t len = sl_stats_block_len(N); /* what the comparison uses: 7 */
	int covered = 0;

	sl_rng_seed(&data, 2024);
	sl_rng_seed(&boot, 1);
	for (int t = 0; t < TRIALS; t++) {
		ar1(&data, a, N, 10, 0.3);
		ar1(&data, b, N, 10 + truth, 0.3);
		for (int i = 0; i < B; i++)
			d[i] = block_mean(&boot, b, N, len, idx) -
			       block_mean(&boot, a, N, len, idx);
		double lo = sl_stats_percentile(d, B, 0.025), hi = sl_stats_percentile(d, B, 0.975);
		covered += lo <= truth && truth <= hi;
	}
	diag("95%% block-bootstrap interval covered the true difference in %d of %d trials (%.1f%%)",
	     covered, TRIALS, 100.0 * covered / TRIALS);
	ok(covered >= TRIALS * 90 / 100 && covered <= TRIALS * 99 / 100,
	   "coverage %.1f%% is close to 95%% (90..99)", 100.0 * covered / TRIALS);
}

/* Reference values as R gives them: pt(), qt(), digamma(), trigamma(), p.adjust("BH"). */
static void test_moderated(void)
{
	const double p[5] = { 0.01, 0.04, NAN, 0.03, 0.2 };
	const double want[5] = { 0.04, 0.16 / 3, NAN, 0.16 / 3, 0.2 };
	double adj[5], s2[8], df[8], s02, d0;
	struct sl_rng r;
	bool same = true;

	/* the plain t on run means: t = 7.8 on 2 df */
	ok(fabs(2 * sl_stats_t_cdf(-7.8, 2) - 0.016042) < 1e-5, "2 * pt(-7.8, 2) = 0.01604");
	ok(fabs(sl_stats_t_cdf(1.5, 7) - 0.911351) < 1e-5, "pt(1.5, 7) = 0.91135");
	ok(fabs(sl_stats_t_quantile(0.975, 2) - 4.302653) < 1e-5, "qt(0.975, 2) = 4.30265");
	ok(fabs(sl_stats_t_quantile(0.975, INFINITY) - 1.959964) < 1e-5,
	   "qt(0.975, Inf) = 1.95996");
	ok(fabs(sl_stats_digamma(2.5) - 0.7031566) < 1e-6, "digamma(2.5)");
	ok(fabs(sl_stats_trigamma(0.5) - 4.934802) < 1e-5, "trigamma(0.5)");
	is_int(sl_stats_bh(p, 5, adj), 0, "Benjamini-Hochberg");
	for (int i = 0; i < 5; i++)
		same &= isnan(want[i]) ? isnan(adj[i]) : fabs(adj[i] - want[i]) < 1e-12;
	ok(same, "BH adjusted p-values as R's p.adjust, NAN left out");

	/* variances drawn from a scaled inverse chi-square prior s0^2 = 2, d0 = 10, each on
	 * 4 df: the prior is found again within sampling error */
	sl_rng_seed(&r, 7);
	{
		enum { N = 4000 };
		static double v[N], dfs[N];

		for (int i = 0; i < N; i++) {
			double chi0 = 0, chi = 0;

			for (int k = 0; k < 10; k++) {
				double u = sl_rng_double(&r), w = sl_rng_double(&r);
				double z = sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * w);

				chi0 += z * z;
			}
			for (int k = 0; k < 4; k++) {
				double u = sl_rng_double(&r), w = sl_rng_double(&r);
				double z = sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * w);

				chi += z * z;
			}
			/* sigma^2 ~ d0 s0^2 / chi2(d0); s2 ~ sigma^2 chi2(4) / 4 */
			v[i] = 10 * 2.0 / chi0 * chi / 4;
			dfs[i] = 4;
		}
		sl_stats_fit_prior(v, dfs, N, &s02, &d0);
		diag("fitted prior: s0^2 %.3f (2), d0 %.2f (10)", s02, d0);
		ok(fabs(s02 - 2) < 0.2 && d0 > 7 && d0 < 14, "the prior is recovered");
	}
	for (int i = 0; i < 8; i++) {
		s2[i] = 1 + 0.01 * i;
		df[i] = 3;
	}
	sl_stats_fit_prior(s2, df, 8, &s02, &d0);
	ok(isinf(d0) && s02 > 0, "variances that agree better than chance: d0 infinite");
	sl_stats_fit_prior(s2, df, 2, &s02, &d0);
	ok(d0 == 0 && isnan(s02), "fewer than 3 variances: no prior");
}

int main(void)
{
	test_rng();
	test_blocks();
	test_percentile();
	test_holm();
	test_coverage();
	test_moderated();
	return done_testing();
}
