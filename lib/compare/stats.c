// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seeded PRNG, moving-block resampling, percentiles, bootstrap p-values and Holm's
 * correction for the comparison (see stats.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void sl_rng_seed(struct sl_rng *r, uint64_t seed)
{
	/* splitmix64 never yields four zero words, the one state xoshiro cannot leave */
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sl_rng_next(struct sl_rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t sl_rng_below(struct sl_rng *r, uint64_t n)
{
	uint64_t x, lim;

	if (n <= 1)
		return 0;
	/* reject the top partial copy of [0, n) so every value is equally likely */
	lim = UINT64_MAX - UINT64_MAX % n;
	do
		x = sl_rng_next(r);
	while (x >= lim);
	return x % n;
}

double sl_rng_double(struct sl_rng *r)
{
	return (double)(sl_rng_next(r) >> 11) * 0x1.0p-53;
}

size_t sl_stats_block_len(size_t n)
{
	size_t len = (size_t)llround(cbrt((double)n));

	return len ? len : 1;
}

size_t sl_stats_block_starts(struct sl_rng *r, size_t n, size_t len, size_t *starts)
{
	size_t k;

	if (!n)
		return 0;
	if (!len || len > n)
		len = len ? n : 1;
	k = (n + len - 1) / len;
	for (size_t i = 0; i < k; i++)
		starts[i] = sl_rng_below(r, n - len + 1);
	return k;
}

void sl_stats_block_resample(struct sl_rng *r, size_t n, size_t len, size_t *idx)
{
	size_t k, out = 0;

	if (!len || len > n)
		len = len ? n : 1;
	/* the starts go to the tail of idx, which the copying below only reaches later */
	k = n ? (n + len - 1) / len : 0;
	sl_stats_block_starts(r, n, len, idx + n - k);
	for (size_t b = 0; b < k; b++) {
		size_t s = idx[n - k + b];

		for (size_t j = 0; j < len && out < n; j++)
			idx[out++] = s + j;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double sl_stats_percentile(double *v, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	if (q <= 0)
		return v[0];
	if (q >= 1)
		return v[n - 1];
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	frac = pos - (double)i;
	return i + 1 < n ? v[i] + frac * (v[i + 1] - v[i]) : v[i];
}

double sl_stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double sl_stats_boot_pvalue(double observed, const double *boot, size_t n)
{
	double mean = 0, ss = 0, se;

	if (observed == 0)
		return 1;
	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		mean += boot[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (boot[i] - mean) * (boot[i] - mean);
	se = sqrt(ss / (double)(n - 1));
	if (se == 0)
		return 0;
	return 2 * sl_stats_norm_cdf(-fabs(observed) / se);
}

struct pv {
	double p;
	size_t i;
};

static int cmp_pv(const void *a, const void *b)
{
	const struct pv *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * The p-values that are not NaN, ascending with their indices, for a step-wise adjustment;
 * sets every adj[] to NaN first (untested stays NaN). Caller frees; NULL when out of memory.
 */
static struct pv *sorted_pvalues(const double *p, size_t n, double *adj, size_t *ret_m)
{
	struct pv *v = malloc(sizeof(*v) * (n ? n : 1));
	size_t m = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		adj[i] = NAN;
		if (!isnan(p[i]))
			v[m++] = (struct pv){ p[i], i };
	}
	qsort(v, m, sizeof(*v), cmp_pv);
	*ret_m = m;
	return v;
}

int sl_stats_holm(const double *p, size_t n, double *adj)
{
	size_t m;
	struct pv *v = sorted_pvalues(p, n, adj, &m);
	double run = 0;

	if (!v)
		return -ENOMEM;
	for (size_t j = 0; j < m; j++) {
		double a = (double)(m - j) * v[j].p;

		if (a > 1)
			a = 1;
		if (a > run)
			run = a;
		adj[v[j].i] = run;
	}
	free(v);
	return 0;
}

int sl_stats_bh(const double *p, size_t n, double *adj)
{
	size_t m;
	struct pv *v = sorted_pvalues(p, n, adj, &m);
	double run = 1;

	if (!v)
		return -ENOMEM;
	for (size_t j = m; j-- > 0;) {
		double a = (double)m * v[j].p / (double)(j + 1);

		if (a < run)
			run = a;
		adj[v[j].i] = run;
	}
	free(v);
	return 0;
}

/* Continued fraction of the regularized incomplete beta function (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), del;

		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double ibeta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double sl_stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(df) || df > 1e7)
		return sl_stats_norm_cdf(t);
	tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));
	return t < 0 ? tail : 1 - tail;
}

double sl_stats_t_quantile(double q, double df)
{
	double lo = -1e3, hi = 1e3;

	if (!(q > 0 && q < 1) || !(df > 0))
		return NAN;
	/* bisection: 100 halvings of [-1000, 1000] are far below double precision */
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (sl_stats_t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double sl_stats_digamma(double x)
{
	double r = 0, f;

	while (x < 6) {
		r -= 1 / x;
		x += 1;
	}
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double sl_stats_trigamma(double x)
{
	double r = 0, f;

	while (x < 6) {
		r += 1 / (x * x);
		x += 1;
	}
	f = 1 / (x * x);
	return r + 1 / x + f / 2 +
	       f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30))));
}

static double tetragamma(double x)
{
	double r = 0, f;

	while (x < 6) {
		r -= 2 / (x * x * x);
		x += 1;
	}
	f = 1 / (x * x);
	return r - f - f / x - f * f / 2 + f * f * f / 6 - f * f * f * f / 6;
}

/* limma's trigammaInverse: Newton's method from Smyth's start value. */
static double trigamma_inverse(double y)
{
	double x;

	if (y > 1e7)
		return 1 / sqrt(y);
	if (y < 1e-6)
		return 1 / y;
	x = 0.5 + 1 / y;
	for (int i = 0; i < 50; i++) {
		double tri = sl_stats_trigamma(x), dif = tri * (1 - tri / y) / tetragamma(x);

		x += dif;
		if (-dif / x < 1e-8)
			break;
	}
	return x;
}

void sl_stats_fit_prior(const double *s2, const double *df, size_t n, double *ret_s02,
			double *ret_d0)
{
	double emean = 0, evar = 0, tri = 0, e;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (s2[i] > 0 && df[i] > 0 && !isnan(s2[i]) && !isinf(s2[i]))
			m++;
	*ret_s02 = NAN;
	*ret_d0 = 0;
	if (m < 3)
		return;
	for (size_t i = 0; i < n; i++)
		if (s2[i] > 0 && df[i] > 0 && !isnan(s2[i]) && !isinf(s2[i]))
			emean += log(s2[i]) - sl_stats_digamma(df[i] / 2) + log(df[i] / 2);
	emean /= (double)m;
	for (size_t i = 0; i < n; i++)
		if (s2[i] > 0 && df[i] > 0 && !isnan(s2[i]) && !isinf(s2[i])) {
			e = log(s2[i]) - sl_stats_digamma(df[i] / 2) + log(df[i] / 2);
			evar += (e - emean) * (e - emean);
			tri += sl_stats_trigamma(df[i] / 2);
		}
	evar = evar / (double)(m - 1) - tri / (double)m;
	if (evar > 0) {
		*ret_d0 = 2 * trigamma_inverse(evar);
		*ret_s02 = exp(emean + sl_stats_digamma(*ret_d0 / 2) - log(*ret_d0 / 2));
	} else {
		*ret_d0 = INFINITY;
		*ret_s02 = exp(emean);
	}
}
