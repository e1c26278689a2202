// SPDX-License-Identifier: GPL-2.0-only
/*
 * The log-linear latency histogram of hist.h: bucket arithmetic, exact merge, quantiles
 * and the sparse blob the windows table stores.
 */
#include <math.h>
#include <string.h>

#include "error.h"
#include "hist.h"

unsigned int sl_hist_bucket(uint64_t value_ns)
{
	uint64_t us = value_ns / 1000;
	unsigned int msb, shift;

	if (us < SL_HIST_LINEAR)
		return (unsigned int)us;
	if (us > SL_HIST_MAX_US)
		return SL_HIST_OVERFLOW;
	msb = 63 - (unsigned int)__builtin_clzll(us);
	shift = msb - (SL_HIST_SUB_BITS - 1);
	/* us >> shift is in [16, 32): the position inside the octave plus 16 */
	return SL_HIST_LINEAR + (msb - SL_HIST_SUB_BITS) * SL_HIST_PER_OCTAVE +
	       (unsigned int)(us >> shift) - SL_HIST_PER_OCTAVE;
}

/* Nominal lower bound in us of bucket (valid up to SL_HIST_OVERFLOW, which gives 2^24). */
static uint64_t bucket_lo_us(unsigned int bucket)
{
	unsigned int octave, sub;

	if (bucket < SL_HIST_LINEAR)
		return bucket;
	octave = (bucket - SL_HIST_LINEAR) / SL_HIST_PER_OCTAVE; /* msb - SUB_BITS */
	sub = (bucket - SL_HIST_LINEAR) % SL_HIST_PER_OCTAVE + SL_HIST_PER_OCTAVE;
	return (uint64_t)sub << (octave + 1);
}

uint64_t sl_hist_bucket_lo_ns(unsigned int bucket)
{
	if (bucket >= SL_HIST_OVERFLOW)
		return (SL_HIST_MAX_US + 1) * 1000;
	return bucket_lo_us(bucket) * 1000;
}

/* Buckets above the one holding 10 s exist in the layout but never receive a value. */
uint64_t sl_hist_bucket_hi_ns(unsigned int bucket)
{
	if (bucket >= SL_HIST_OVERFLOW)
		return UINT64_MAX;
	return bucket_lo_us(bucket + 1) * 1000;
}

void sl_hist_add(struct sl_hist *h, uint64_t value_ns)
{
	h->counts[sl_hist_bucket(value_ns)]++;
	h->total++;
}

void sl_hist_merge(struct sl_hist *dst, const struct sl_hist *src)
{
	for (unsigned int i = 0; i < SL_HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
}

uint64_t sl_hist_quantile_ns(const struct sl_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->total)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = (uint64_t)(q * (double)h->total + 0.999999999);
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < SL_HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			return sl_hist_bucket_lo_ns(i);
	}
	return sl_hist_bucket_lo_ns(SL_HIST_OVERFLOW);
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static int get_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *ret)
{
	uint64_t v = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (*pos >= len)
			return -1;
		b = buf[(*pos)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return 0;
		}
	}
	return -1;
}

size_t sl_hist_encode(const struct sl_hist *h, uint8_t *buf)
{
	size_t n = 0;
	long prev = -1;

	buf[n++] = SL_HIST_BLOB_VERSION;
	buf[n++] = SL_HIST_SUB_BITS;
	for (unsigned int i = 0; i < SL_HIST_BUCKETS; i++) {
		if (!h->counts[i])
			continue;
		n += put_varint(buf + n, (uint64_t)((long)i - prev - 1));
		n += put_varint(buf + n, h->counts[i]);
		prev = i;
	}
	return n;
}

int sl_hist_decode(const uint8_t *buf, size_t len, struct sl_hist *h)
{
	size_t pos = 2;
	long prev = -1;

	memset(h, 0, sizeof(*h));
	if (len < 2 || buf[0] != SL_HIST_BLOB_VERSION || buf[1] != SL_HIST_SUB_BITS)
		return sl_error(-SL_EPARSE, "histogram blob: unknown format (%zu bytes)", len);
	while (pos < len) {
		uint64_t gap, count;

		if (get_varint(buf, len, &pos, &gap) || get_varint(buf, len, &pos, &count))
			return sl_error(-SL_EPARSE, "histogram blob: truncated at byte %zu", pos);
		if (gap >= SL_HIST_BUCKETS || prev + 1 + (long)gap >= (long)SL_HIST_BUCKETS)
			return sl_error(-SL_EPARSE,
					"histogram blob: bucket out of range at byte %zu", pos);
		prev += 1 + (long)gap;
		h->counts[prev] = count;
		h->total += count;
	}
	return 0;
}

/* The coarse buckets below 32 us, where fine buckets are 1 us wide. */
static const uint8_t coarse_linear_lo[] = { 0, 1, 2, 3, 4, 6, 8, 12, 16, 24 };
#define COARSE_LINEAR (sizeof(coarse_linear_lo) / sizeof(coarse_linear_lo[0]))

unsigned int sl_hist_coarse_lo(unsigned int i)
{
	if (i < COARSE_LINEAR)
		return coarse_linear_lo[i];
	if (i < SL_HIST_COARSE - 1) /* two per octave: sub-bucket 0 (1x) and 8 (1.5x) */
		return SL_HIST_LINEAR + (i - COARSE_LINEAR) / 2 * SL_HIST_PER_OCTAVE +
		       (i - COARSE_LINEAR) % 2 * (SL_HIST_PER_OCTAVE / 2);
	return SL_HIST_OVERFLOW;
}

unsigned int sl_hist_coarse_of(unsigned int b)
{
	unsigned int i;

	if (b >= SL_HIST_LINEAR) {
		i = COARSE_LINEAR + (b - SL_HIST_LINEAR) / (SL_HIST_PER_OCTAVE / 2);
		return i < SL_HIST_COARSE ? i : SL_HIST_COARSE - 1;
	}
	for (i = COARSE_LINEAR - 1; coarse_linear_lo[i] > b; i--)
		;
	return i;
}

void sl_hist_from_coarse(struct sl_hist *h, const double *coarse)
{
	/* the highest bucket that can hold a value: the one of 10 s */
	unsigned int live = sl_hist_bucket(SL_HIST_MAX_US * 1000);

	memset(h, 0, sizeof(*h));
	for (unsigned int i = 0; i < SL_HIST_COARSE; i++) {
		unsigned int lo = sl_hist_coarse_lo(i), hi, n;
		double c = coarse[i] > 0 ? coarse[i] : 0;

		if (i == SL_HIST_COARSE - 1) {
			hi = SL_HIST_BUCKETS;
		} else {
			hi = sl_hist_coarse_lo(i + 1);
			if (hi > live + 1)
				hi = live + 1;
		}
		n = hi - lo;
		/* bucket k gets round((k + 1) c / n) - round(k c / n): the sum is round(c) */
		for (unsigned int k = 0; k < n; k++) {
			uint64_t v =
				(uint64_t)llround((k + 1) * c / n) - (uint64_t)llround(k * c / n);

			h->counts[lo + k] += v;
			h->total += v;
		}
	}
}
