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
	return done_testing();
}
