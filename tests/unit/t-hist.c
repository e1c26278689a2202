// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the log-linear latency histogram: bucket bounds, relative width, exact
 * merge, quantiles and the blob encoding round trip.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hist.h"
#include "tap.h"

/* The coarse layout of /metrics: exact fine boundaries, ordered, every live bucket covered. */
static void coarse_layout(void)
{
	unsigned int live = sl_hist_bucket(10000000000ull);
	bool order = true, cover = true, narrow = true;

	is_int(sl_hist_coarse_lo(0), 0, "coarse bucket 0 starts at fine bucket 0");
	is_int(sl_hist_coarse_lo(SL_HIST_COARSE - 1), SL_HIST_OVERFLOW,
	       "the last coarse bucket is the overflow");
	is_int(sl_hist_coarse_lo(SL_HIST_COARSE - 2), sl_hist_bucket(8388608000ull),
	       "the one before it starts at 2^23 us (8.4 s)");
	for (unsigned int i = 1; i < SL_HIST_COARSE; i++) {
		uint64_t lo = sl_hist_bucket_lo_ns(sl_hist_coarse_lo(i - 1));
		uint64_t hi = sl_hist_bucket_lo_ns(sl_hist_coarse_lo(i));

		if (sl_hist_coarse_lo(i) <= sl_hist_coarse_lo(i - 1))
			order = false;
		/* at most half the lower bound wide, except the 1 us steps and 10 s */
		if (lo >= 2000 && i < SL_HIST_COARSE - 1 && (hi - lo) * 2 > lo)
			narrow = false;
	}
	for (unsigned int b = 0; b < SL_HIST_BUCKETS; b++) {
		unsigned int i = sl_hist_coarse_of(b);

		if ((b <= live || b == SL_HIST_OVERFLOW) &&
		    (sl_hist_coarse_lo(i) > b ||
		     (i + 1 < SL_HIST_COARSE && sl_hist_coarse_lo(i + 1) <= b))) {
			diag("fine %u in coarse %u [%u, %u)", b, i, sl_hist_coarse_lo(i),
			     i + 1 < SL_HIST_COARSE ? sl_hist_coarse_lo(i + 1) : 999);
			cover = false;
		}
	}
	ok(order, "coarse buckets increase");
	ok(narrow, "coarse buckets are at most half their lower bound wide");
	ok(cover, "every fine bucket lies in its coarse bucket");
}

/* A histogram through coarse counts: same total, quantiles within the coarse bucket. */
static void coarse_round_trip(void)
{
	struct sl_hist h = { 0 }, back;
	double coarse[SL_HIST_COARSE] = { 0 }, frac[SL_HIST_COARSE] = { 0 };
	bool in_range = true;

	for (uint64_t v = 0; v < 50000; v++)
		sl_hist_add(&h, 3000 + v * v % 400000 * 97); /* 3 us .. 39 ms, skewed */
	sl_hist_add(&h, 20000000000ull);
	for (unsigned int b = 0; b < SL_HIST_BUCKETS; b++)
		coarse[sl_hist_coarse_of(b)] += (double)h.counts[b];
	sl_hist_from_coarse(&back, coarse);
	is_int(back.total, h.total, "coarse round trip keeps the total");
	is_int(back.counts[SL_HIST_OVERFLOW], 1, "and the overflow");
	for (double q = 0.05; q < 1; q += 0.05) {
		uint64_t a = sl_hist_quantile_ns(&h, q), b = sl_hist_quantile_ns(&back, q);
		unsigned int ca = sl_hist_coarse_of(sl_hist_bucket(a));

		if (ca != sl_hist_coarse_of(sl_hist_bucket(b))) {
			diag("q %.2f: %llu vs %llu ns", q, (unsigned long long)a,
			     (unsigned long long)b);
			in_range = false;
		}
	}
	ok(in_range, "every 5%% quantile stays in its coarse bucket");
	/* Prometheus increases are reals: 2.5 events spread over 8 fine buckets are 3, not 0 */
	frac[20] = 2.5;
	frac[SL_HIST_COARSE - 2] = 7.4;
	sl_hist_from_coarse(&back, frac);
	is_int(back.total, 10, "fractional counts round per coarse bucket (3 + 7)");
	ok(!back.counts[sl_hist_bucket(10000000000ull) + 1],
	   "nothing lands in buckets above 10 s that never hold a value");
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int main(void)
{
	struct sl_hist a = { 0 }, b = { 0 }, m = { 0 }, back;
	uint8_t blob[SL_HIST_BLOB_MAX];
	bool bounds = true, width = true, mono = true;
	size_t n;

	is_int(SL_HIST_BUCKETS, 337, "337 buckets");
	is_int(sl_hist_bucket(0), 0, "0 ns: bucket 0");
	is_int(sl_hist_bucket(999), 0, "under 1 us: bucket 0");
	is_int(sl_hist_bucket(1000), 1, "1 us: bucket 1");
	is_int(sl_hist_bucket(31999), 31, "31.9 us: bucket 31");
	is_int(sl_hist_bucket(32000), 32, "32 us: first log bucket");
	is_int(sl_hist_bucket(10000000000ull), sl_hist_bucket(9999999999ull), "10 s in range");
	is_int(sl_hist_bucket(10000001000ull), SL_HIST_OVERFLOW, "above 10 s: overflow");
	is_int(sl_hist_bucket(UINT64_MAX), SL_HIST_OVERFLOW, "huge: overflow");
	for (uint64_t us = 1; us <= 10000000; us += us / 7 + 1) {
		unsigned int bk = sl_hist_bucket(us * 1000);
		uint64_t lo = sl_hist_bucket_lo_ns(bk), hi = sl_hist_bucket_hi_ns(bk);

		if (lo > us * 1000 || hi <= us * 1000) {
			diag("%llu us: bucket %u [%llu, %llu)", (unsigned long long)us, bk,
			     (unsigned long long)lo, (unsigned long long)hi);
			bounds = false;
		}
		if (us >= 32 && (hi - lo) * 16 > lo)
			width = false;
		if (bk > 0 && sl_hist_bucket(us * 1000 - 1) > bk)
			mono = false;
	}
	ok(bounds, "every value lies in [lo, hi) of its bucket");
	ok(width, "log buckets are at most 1/16 of their lower bound wide");
	ok(mono, "buckets increase with the value");

	for (uint64_t v = 0; v < 20000; v++) {
		sl_hist_add(&a, v * 1000); /* 0..20 ms uniform */
		sl_hist_add(&b, 5000000 + v * 7919); /* 5..163 ms */
		sl_hist_add(&m, v * 1000);
		sl_hist_add(&m, 5000000 + v * 7919);
	}
	sl_hist_add(&b, 60000000000ull);
	sl_hist_add(&m, 60000000000ull);
	sl_hist_merge(&a, &b);
	ok(!memcmp(&a, &m, sizeof(a)), "merge equals adding everything to one histogram");
	is_int(a.total, 40001, "total");
	{
		static uint64_t all[40001];
		uint64_t p50 = sl_hist_quantile_ns(&a, 0.5), truth;
		size_t k = 0;

		for (uint64_t v = 0; v < 20000; v++) {
			all[k++] = v * 1000;
			all[k++] = 5000000 + v * 7919;
		}
		all[k++] = 60000000000ull;
		qsort(all, k, sizeof(all[0]), cmp_u64);
		truth = all[20000]; /* rank ceil(0.5 * 40001) */
		is_int(p50, sl_hist_bucket_lo_ns(sl_hist_bucket(truth)),
		       "p50 is the lower bound of the true median's bucket");
		ok(p50 <= truth && (truth - p50) * 16 <= truth, "p50 %llu within 1/16 below %llu",
		   (unsigned long long)p50, (unsigned long long)truth);
	}
	is_int(sl_hist_quantile_ns(&a, 1.0), (int64_t)sl_hist_bucket_lo_ns(SL_HIST_OVERFLOW),
	       "p100 is the overflow bucket");
	is_int(sl_hist_quantile_ns(&(struct sl_hist){ 0 }, 0.5), 0, "empty: 0");

	n = sl_hist_encode(&a, blob);
	ok(n > 2 && n < 1200, "encoded in %zu bytes", n);
	is_int(sl_hist_decode(blob, n, &back), 0, "decodes");
	ok(!memcmp(&back, &a, sizeof(a)), "round trip is exact");
	is_int(sl_hist_decode(blob, n - 1, &back), -SL_EPARSE, "truncated blob refused");
	blob[0] = 9;
	is_int(sl_hist_decode(blob, n, &back), -SL_EPARSE, "unknown version refused");
	n = sl_hist_encode(&(struct sl_hist){ 0 }, blob);
	is_int(n, 2, "empty histogram: 2 bytes");
	coarse_layout();
	coarse_round_trip();
	return done_testing();
}
