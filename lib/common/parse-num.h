/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Strict numbers from text, for every numeric command-line flag and configuration value:
 * the whole string is the number (no leading space, no trailing junk, no empty string),
 * base 10, no sign on an unsigned value, a finite value for a real one, and a range the
 * caller gives. Each function returns 0 and writes *ret, or returns -EINVAL (not a number
 * of that kind), -EDOM (nan or infinite) or -ERANGE (overflow or outside the range) with
 * a message for sl_errmsg() saying why, without the value (the caller names the flag and
 * the value); *ret is written only on success.
 */
#ifndef SL_PARSE_NUM_H
#define SL_PARSE_NUM_H

#include <stdint.h>

/* An unsigned whole number in min..max: "0", "42"; not "-1", "+1", "0x10", "1e3", "1.0". */
int sl_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/* A signed whole number in min..max: "-3", "42"; not "+1", " 1", "1.5". */
int sl_parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret);

enum {
	SL_PARSE_MIN_OPEN = 1 << 0, /* min itself is out of range: (min, ...] */
	SL_PARSE_MAX_OPEN = 1 << 1, /* max itself is out of range: [..., max) */
};

/*
 * A finite real number in min..max (bounds closed unless flags says SL_PARSE_*_OPEN):
 * "0.5", "1e-3", "-2"; not "nan", "inf", "0x1p3", "1,5", "" or an overflowing "1e999".
 */
int sl_parse_double(const char *s, double min, double max, unsigned int flags, double *ret);

/*
 * The leading unsigned whole number of s followed by a unit the caller checks ("10s",
 * "64k"): like sl_parse_u64 with no range, but stops at the first non-digit and stores
 * where in *ret_end. At least one digit is required.
 */
int sl_parse_u64_prefix(const char *s, uint64_t *ret, const char **ret_end);

#endif
