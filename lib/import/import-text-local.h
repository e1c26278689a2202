/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/import-text*.c: the parser's state, a line being parsed, and the bounded
 * string helpers both paths use (a line is a slice of a buffer: every scan is bounded by an
 * end pointer, nothing relies on a terminating NUL). import-text.c owns the parser object,
 * the per-line entry point and the fast path; import-text-general.c owns the general path
 * (every style, every event, and the error messages).
 */
#ifndef SL_IMPORT_TEXT_LOCAL_H
#define SL_IMPORT_TEXT_LOCAL_H

#include <string.h>

#include "error.h"
#include "import-text.h"

struct sl_text_parser {
	int max_cpus;
	uint64_t lineno;
	uint64_t skipped;
	uint64_t other, first_other; /* lines skipped that were not blank, comments or headers */
	int32_t tgid;
	uint8_t irq; /* SL_IRQ_* of the last event line's flags column */
	enum sl_text_style style;
	bool nsec;
	bool no_fast; /* tests: the general path only */
	uint64_t last_ts; /* newest timestamp of any CPU: the time of a lost-events marker */
	uint64_t *cpu_ts; /* newest timestamp per CPU, +1 (0: none yet) */
	/* the fast path's last "<sec>." (8 bytes from its first digit), its digits and value */
	uint64_t sec_bytes, sec;
	unsigned int sec_digits;
	/* ... and its last CPU column's "<digits>]" (masked to those bytes), digits and value */
	uint64_t cpu_bytes, cpu_mask, cpu;
	unsigned int cpu_digits;
	/* ... and the 16 bytes before its last CPU column, when they alone gave the pid */
	uint64_t pid_bytes[2], pid;
	bool pid_ok;
};

/* --- bounded string helpers ----------------------------------------------------------- */

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * memcmp(a, b, n) == 0 for a constant n: two overlapping 4- or 8-byte loads from 4 bytes up
 * (libc's memcmp is a call, and these keys are compared on every line).
 */
static inline __attribute__((always_inline)) bool same(const char *a, const char *b, size_t n)
{
	uint64_t x, y, u, v;
	uint32_t x4, y4, u4, v4;

	if (n >= 4 && n < 8) {
		memcpy(&x4, a, 4);
		memcpy(&y4, b, 4);
		memcpy(&u4, a + n - 4, 4);
		memcpy(&v4, b + n - 4, 4);
		return x4 == y4 && u4 == v4;
	}
	if (n < 8 || n > 16)
		return !memcmp(a, b, n);
	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
	memcpy(&u, a + n - 8, 8);
	memcpy(&v, b + n - 8, 8);
	return x == y && u == v;
}

/*
 * Needles are string literals: inlined, their strlen is a constant. The first occurrence,
 * found by memchr on the needle's first byte that is neither a space nor '=' (those are on
 * every line; glibc's memmem costs ~300 instructions a call on these short lines).
 */
static inline __attribute__((always_inline)) const char *find(const char *s, const char *end,
							      const char *needle)
{
	size_t n = strlen(needle), a = 0;
	const char *q, *lim;

	if (end - s < (ptrdiff_t)n)
		return NULL;
	while (a + 1 < n && (needle[a] == ' ' || needle[a] == '='))
		a++;
	/* a match starts in [s, end - n], so its anchor byte lies in [s + a, end - n + a] */
	lim = end - n + a + 1;
	for (q = s + a; q < lim; q++) {
		q = memchr(q, needle[a], lim - q);
		if (!q)
			return NULL;
		if (same(q - a, needle, n))
			return q - a;
	}
	return NULL;
}

static inline __attribute__((always_inline)) const char *rfind(const char *s, const char *end,
							       const char *needle)
{
	size_t n = strlen(needle);

	if (end - s < (ptrdiff_t)n)
		return NULL;
	for (const char *q = end - n; q >= s; q--)
		if (*q == needle[0] && same(q, needle, n))
			return q;
	return NULL;
}

static inline __attribute__((always_inline)) bool starts(const char *s, const char *end,
							 const char *prefix)
{
	size_t n = strlen(prefix);

	return end - s >= (ptrdiff_t)n && same(s, prefix, n);
}

/* The whole of [s, e) as a decimal integer (an optional '-', at most 12 digits). */
static inline __attribute__((always_inline)) int parse_num(const char *s, const char *e,
							   int64_t *ret)
{
	bool neg = false;
	int64_t v = 0;

	if (s < e && *s == '-') {
		neg = true;
		s++;
	}
	if (s >= e || e - s > 12)
		return -1;
	do {
		unsigned int d = (unsigned char)*s - '0';

		if (d > 9)
			return -1;
		v = v * 10 + d;
	} while (++s < e);
	*ret = neg ? -v : v;
	return 0;
}

struct line {
	struct sl_text_parser *p;
	const char *start, *end;
};

static inline int bad(const struct line *l, int err, const char *what)
{
	return sl_error(err, "line %llu: %s", (unsigned long long)l->p->lineno, what);
}

/*
 * SL_IRQ_* of a flags column ("d.h2."), whose third letter is the context: 'h' hard irq,
 * 's' softirq, 'H' a hard irq in a softirq, 'z'/'Z' NMI, '.' a task (the kernel's
 * trace_print_lat_fmt(), the same order since 2.6).
 */
static inline uint8_t flags_irq(const char *f, const char *fe)
{
	if (fe - f < 3)
		return 0;
	switch (f[2]) {
	case 'h':
	case 'z':
	case 'Z':
		return SL_IRQ_HARD;
	case 's':
		return SL_IRQ_SOFT;
	case 'H':
		return SL_IRQ_HARD | SL_IRQ_SOFT;
	}
	return 0;
}

/*
 * Everything the fast path left: the context columns, the event name and the body of
 * either style (import-text-general.c). 1: parsed, *ret_style the line's style; 0: not an
 * event of ours (counted as skipped); negative: an error naming the line.
 */
int text_general_line(struct line *l, const char *s, struct sl_event *ev,
		      enum sl_text_style *ret_style);

#endif
