// SPDX-License-Identifier: GPL-2.0-only
/*
 * Strict number parsing (see parse-num.h). strtoull and strtod alone accept too much for
 * a flag: leading blanks, a sign on an unsigned value (strtoull("-1") is UINT64_MAX),
 * hexadecimal, "nan" and "inf", and they signal overflow only through errno; every
 * numeric flag and configuration value goes through here instead.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "parse-num.h"

int sl_parse_u64_prefix(const char *s, uint64_t *ret, const char **ret_end)
{
	uint64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return sl_error(-EINVAL, *p ? "not a whole number" : "empty");
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return sl_error(-ERANGE, "too large (the largest is %" PRIu64 ")",
					UINT64_MAX);
		v = v * 10 + d;
	}
	*ret = v;
	*ret_end = p;
	return 0;
}

int sl_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int err;

	if (*s == '-' && isdigit((unsigned char)s[1]))
		return sl_error(-ERANGE, "negative (expected %" PRIu64 "..%" PRIu64 ")", min, max);
	err = sl_parse_u64_prefix(s, &v, &end);
	if (err == -ERANGE)
		return sl_error(-ERANGE, "too large (expected %" PRIu64 "..%" PRIu64 ")", min, max);
	if (err || *end)
		return sl_error(-EINVAL, "%s (expected %" PRIu64 "..%" PRIu64 ")",
				*s ? "not a whole number" : "empty", min, max);
	if (v < min || v > max)
		return sl_error(-ERANGE, "out of range (expected %" PRIu64 "..%" PRIu64 ")", min,
				max);
	*ret = v;
	return 0;
}

int sl_parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret)
{
	bool neg = *s == '-';
	const char *end;
	uint64_t mag;
	int64_t v;
	int err;

	err = sl_parse_u64_prefix(s + neg, &mag, &end);
	if ((!err && *end) || err == -EINVAL)
		return sl_error(-EINVAL, "%s (expected %" PRId64 "..%" PRId64 ")",
				*s ? "not a whole number" : "empty", min, max);
	if (err || mag > (uint64_t)INT64_MAX + neg)
		return sl_error(-ERANGE, "out of range (expected %" PRId64 "..%" PRId64 ")", min,
				max);
	v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	if (v < min || v > max)
		return sl_error(-ERANGE, "%s (expected %" PRId64 "..%" PRId64 ")",
				v < 0 && min >= 0 ? "negative" : "out of range", min, max);
	*ret = v;
	return 0;
}

static int range_error(double min, double max, unsigned int flags, const char *why)
{
	return sl_error(-ERANGE, "%s (expected %s%.10g and %s%.10g)", why,
			flags & SL_PARSE_MIN_OPEN ? "> " : ">= ", min,
			flags & SL_PARSE_MAX_OPEN ? "< " : "<= ", max);
}

int sl_parse_double(const char *s, double min, double max, unsigned int flags, double *ret)
{
	const char *p = s + (*s == '-');
	char *end;
	double v;

	/* digits or a point first: refuses blanks, "+", "nan", "inf" and "infinity" */
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1]))) {
		if (!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3))
			return sl_error(-EDOM, "not a finite number");
		return sl_error(-EINVAL, *s ? "not a number" : "empty");
	}
	/* no hexadecimal floats: "0x10" would be 16 */
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return sl_error(-EINVAL, "not a decimal number");
	errno = 0;
	v = strtod(s, &end);
	if (*end)
		return sl_error(-EINVAL, "not a number");
	if (errno == ERANGE && fabs(v) > 1)
		return range_error(min, max, flags, "too large");
	if (!isfinite(v))
		return sl_error(-EDOM, "not a finite number");
	if (v < min || v > max || ((flags & SL_PARSE_MIN_OPEN) && v == min) ||
	    ((flags & SL_PARSE_MAX_OPEN) && v == max))
		return range_error(min, max, flags,
				   v < 0 && min >= 0 ? "negative" : "out of range");
	*ret = v;
	return 0;
}
