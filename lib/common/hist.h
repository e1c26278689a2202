/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Log-linear latency histogram (HDR style) from 1 us to 10 s: values are counted in whole
 * microseconds; 0..31 us have one bucket each, then every power-of-two octave up to 2^24 us
 * is split into 16 equal buckets, so a bucket is at most 1/16 (6.25%) of its lower bound
 * wide. Values above 10 s land in one overflow bucket. Fixed layout, so merging two
 * histograms is an exact bucket-wise sum and a stored blob can be merged with any other.
 * On disk (windows.lat_hist) it is a sparse varint blob, see sl_hist_encode().
 */
#ifndef SL_HIST_H
#define SL_HIST_H

#include <stddef.h>
#include <stdint.h>

#define SL_HIST_SUB_BITS 5
#define SL_HIST_LINEAR (1u << SL_HIST_SUB_BITS) /* 32 unit-wide buckets: 0..31 us */
#define SL_HIST_PER_OCTAVE (SL_HIST_LINEAR / 2) /* 16 */
#define SL_HIST_TOP_MSB 23 /* 2^23 us <= 10 s < 2^24 us */
#define SL_HIST_MAX_US 10000000ull /* 10 s */
#define SL_HIST_OVERFLOW \
	(SL_HIST_LINEAR + (SL_HIST_TOP_MSB - SL_HIST_SUB_BITS + 1) * SL_HIST_PER_OCTAVE)
#define SL_HIST_BUCKETS (SL_HIST_OVERFLOW + 1) /* 337 */

/* Blob format version, the first byte of every encoded histogram. */
#define SL_HIST_BLOB_VERSION 1
/* Largest encoded size: header + (gap, count) varint pairs for every bucket. */
#define SL_HIST_BLOB_MAX (2 + SL_HIST_BUCKETS * (2 + 10))

struct sl_hist {
	uint64_t total;
	uint64_t counts[SL_HIST_BUCKETS];
};

/* Bucket of a value in nanoseconds. */
unsigned int sl_hist_bucket(uint64_t value_ns);
/* Smallest value (ns) of a bucket; the overflow bucket starts just above 10 s. */
uint64_t sl_hist_bucket_lo_ns(unsigned int bucket);
/* First value (ns) above the bucket; UINT64_MAX for the overflow bucket. */
uint64_t sl_hist_bucket_hi_ns(unsigned int bucket);

void sl_hist_add(struct sl_hist *h, uint64_t value_ns);
/* dst += src, exactly. */
void sl_hist_merge(struct sl_hist *dst, const struct sl_hist *src);

/*
 * The value (ns) at quantile q in [0, 1]: the lower bound of the bucket holding the
 * ceil(q * total)-th smallest value (so within 6.25% below the true value, exact under
 * 32 us). 0 for an empty histogram.
 */
uint64_t sl_hist_quantile_ns(const struct sl_hist *h, double q);

/*
 * Encodes into buf (at least SL_HIST_BLOB_MAX bytes): byte 0 the format version, byte 1
 * SL_HIST_SUB_BITS, then for each non-empty bucket in order the LEB128 varints (gap, count)
 * where gap is the bucket index minus the previous non-empty bucket's index minus one
 * (the first gap counts from -1). Returns the encoded size.
 */
size_t sl_hist_encode(const struct sl_hist *h, uint8_t *buf);
/* Decodes such a blob into h (overwritten). 0, or -SL_EPARSE with a message. */
int sl_hist_decode(const uint8_t *buf, size_t len, struct sl_hist *h);

/*
 * A coarse layout for /metrics, where every bucket is a time series on every host: the
 * coarse buckets start at 0, 1, 2, 3, 4, 6, 8, 12, 16 and 24 us, then at 1x and 1.5x of
 * every octave up to 8.4 s, and the last one is the overflow (above 10 s). Each coarse
 * boundary is a fine bucket's lower bound, so the coarse counts are exact sums of the fine
 * ones; a coarse bucket is at most half its lower bound wide.
 */
#define SL_HIST_COARSE 48

/* First fine bucket of coarse bucket i (i < SL_HIST_COARSE). */
unsigned int sl_hist_coarse_lo(unsigned int i);
/* The coarse bucket holding fine bucket b. */
unsigned int sl_hist_coarse_of(unsigned int b);
/*
 * h from coarse counts (non-negative reals, such as Prometheus increases): each count,
 * rounded, is spread evenly over the fine buckets of its coarse bucket that can hold a
 * value, so quantiles come out interpolated within the coarse bucket.
 */
void sl_hist_from_coarse(struct sl_hist *h, const double *coarse);

#endif
