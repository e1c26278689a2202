// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the strict number parser (lib/common/parse-num.h) every numeric flag and config
 * value goes through: what strtoull/strtod accept and a flag must not (a sign on an
 * unsigned value, blanks, junk, hexadecimal, nan, inf, overflow such as 4294968296 into
 * 32 bits), range bounds open and closed, and that *ret is untouched on failure.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "error.h"
#include "parse-num.h"
#include "tap.h"

static void test_u64(void)
{
	static const char *const bad[] = { "",
					   "-1",
					   "+1",
					   " 1",
					   "1 ",
					   "0x10",
					   "1e3",
					   "1.0",
					   "1,000",
					   "abc",
					   "1x",
					   "-0",
					   "18446744073709551616" };
	uint64_t v = 7;

	is_int(sl_parse_u64("0", 0, 10, &v), 0, "u64: 0");
	is_int(v, 0, "u64: 0 stored");
	is_int(sl_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0, "u64: UINT64_MAX");
	ok(v == UINT64_MAX, "u64: UINT64_MAX stored");
	is_int(sl_parse_u64("007", 0, 10, &v), 0, "u64: leading zeros are decimal");
	is_int(v, 7, "u64: 007 is 7");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		ok(sl_parse_u64(bad[i], 0, UINT64_MAX, &v) < 0 && v == 42, "u64: '%s' refused",
		   bad[i]);
	}
	is_int(sl_parse_u64("4294968296", 100, 1000000, &v), -ERANGE, "u64: 4294968296 > max");
	ok(strstr(sl_errmsg(-ERANGE), "100..1000000"), "u64: the message gives the range: %s",
	   sl_errmsg(-ERANGE));
	is_int(sl_parse_u64("99", 100, 1000, &v), -ERANGE, "u64: below min");
	is_int(sl_parse_u64("-1", 0, 10, &v), -ERANGE, "u64: -1 is a range error");
	ok(strstr(sl_errmsg(-ERANGE), "negative"), "u64: -1 said negative: %s", sl_errmsg(-ERANGE));
	is_int(sl_parse_u64("", 0, 10, &v), -EINVAL, "u64: empty");
	ok(strstr(sl_errmsg(-EINVAL), "empty"), "u64: the message says empty");
}

static void test_i64(void)
{
	static const char *const bad[] = { "",
					   "+1",
					   " 1",
					   "1x",
					   "1.5",
					   "0x1",
					   "--1",
					   "-",
					   "9223372036854775808",
					   "-9223372036854775809" };
	int64_t v = 5;

	is_int(sl_parse_i64("-9223372036854775808", INT64_MIN, INT64_MAX, &v), 0, "i64: min");
	ok(v == INT64_MIN, "i64: INT64_MIN stored");
	is_int(sl_parse_i64("9223372036854775807", INT64_MIN, INT64_MAX, &v), 0, "i64: max");
	ok(v == INT64_MAX, "i64: INT64_MAX stored");
	is_int(sl_parse_i64("-3", -5, 5, &v), 0, "i64: -3");
	is_int(v, -3, "i64: -3 stored");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		ok(sl_parse_i64(bad[i], INT64_MIN, INT64_MAX, &v) < 0 && v == 42,
		   "i64: '%s' refused", bad[i]);
	}
	is_int(sl_parse_i64("0", 1, INT64_MAX, &v), -ERANGE, "i64: run id 0 out of range");
	is_int(sl_parse_i64("-1", 1, INT64_MAX, &v), -ERANGE, "i64: run id -1 out of range");
}

static void test_double(void)
{
	static const char *const bad[] = { "",	       "nan", "NaN", "-nan", "inf", "-inf",
					   "infinity", " 1",  "1 ",  "+1",   "1x",  "0x1p3",
					   "1,5",      ".",   "1e",  "e3",   "--1", "1e999" };
	double v = 9;

	is_int(sl_parse_double("0.5", 0, 1, SL_PARSE_MIN_OPEN | SL_PARSE_MAX_OPEN, &v), 0,
	       "double: 0.5 in (0,1)");
	ok(v == 0.5, "double: 0.5 stored");
	is_int(sl_parse_double("1e-3", 0, 1, 0, &v), 0, "double: 1e-3");
	ok(v == 1e-3, "double: 1e-3 stored");
	is_int(sl_parse_double(".25", 0, 1, 0, &v), 0, "double: .25");
	is_int(sl_parse_double("-2", -5, 5, 0, &v), 0, "double: -2");
	ok(v == -2, "double: -2 stored");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		ok(sl_parse_double(bad[i], -1e300, 1e300, 0, &v) < 0 && v == 42,
		   "double: '%s' refused", bad[i]);
	}
	is_int(sl_parse_double("nan", 0, 1, 0, &v), -EDOM, "double: nan is EDOM");
	ok(strstr(sl_errmsg(-EDOM), "finite"), "double: nan said not finite");
	is_int(sl_parse_double("0", 0, 1, SL_PARSE_MIN_OPEN, &v), -ERANGE,
	       "double: open min excludes 0");
	is_int(sl_parse_double("1", 0, 1, SL_PARSE_MAX_OPEN, &v), -ERANGE,
	       "double: open max excludes 1");
	is_int(sl_parse_double("1", 0, 1, 0, &v), 0, "double: closed max includes 1");
	is_int(sl_parse_double("-0.1", 0, 1, 0, &v), -ERANGE, "double: negative");
	ok(strstr(sl_errmsg(-ERANGE), "negative"), "double: said negative: %s", sl_errmsg(-ERANGE));
}

static void test_prefix(void)
{
	const char *end = NULL;
	uint64_t v = 0;

	is_int(sl_parse_u64_prefix("64k", &v, &end), 0, "prefix: 64k");
	ok(v == 64 && !strcmp(end, "k"), "prefix: 64 then 'k'");
	ok(sl_parse_u64_prefix("k", &v, &end) < 0, "prefix: no digit refused");
	ok(sl_parse_u64_prefix("-1s", &v, &end) < 0, "prefix: sign refused");
	is_int(sl_parse_u64_prefix("99999999999999999999s", &v, &end), -ERANGE,
	       "prefix: overflow refused");
}

/* lib/common/config.c goes through the same parser; its message must quote the whole value. */
struct cfg {
	uint64_t count;
};

static const struct sl_cfg_opt tab[] = {
	{ .name = "count", .type = SL_CFG_UINT, .offset = 0, .def = "3", .min = 1, .max = 16 },
	{ 0 },
};

static void test_config(void)
{
	struct cfg c = { 0 };

	is_int(sl_config_set(tab, &c, "count", "1x"), -SL_EUSAGE, "config: '1x' refused");
	ok(strstr(sl_errmsg(-SL_EUSAGE), "'1x'"), "config: message quotes '1x': %s",
	   sl_errmsg(-SL_EUSAGE));
	is_int(sl_config_set(tab, &c, "count", "18446744073709551616"), -SL_EUSAGE,
	       "config: overflow refused");
	is_int(sl_config_set(tab, &c, "count", "-1"), -SL_EUSAGE, "config: -1 refused");
	is_int(sl_config_set(tab, &c, "count", "17"), -SL_EUSAGE, "config: 17 > max refused");
	is_int(sl_config_set(tab, &c, "count", "16"), 0, "config: 16 accepted");
	ok(c.count == 16, "config: 16 stored");
}

int main(void)
{
	test_u64();
	test_i64();
	test_double();
	test_prefix();
	test_config();
	return tap_done();
}
