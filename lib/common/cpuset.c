// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU bitmaps and the parser for the kernel's CPU list syntax.
 */
#include <ctype.h>
#include <string.h>

#include "cpuset.h"
#include "error.h"

int sl_cpuset_count(const struct sl_cpuset *s)
{
	int n = 0;

	for (unsigned int i = 0; i < SL_TOPO_MAX_CPUS / 64; i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int sl_cpuset_first(const struct sl_cpuset *s)
{
	for (unsigned int i = 0; i < SL_TOPO_MAX_CPUS / 64; i++)
		if (s->bits[i])
			return i * 64 + __builtin_ctzll(s->bits[i]);
	return -1;
}

/* Reads a decimal CPU number below SL_TOPO_MAX_CPUS; advances *p. */
static int parse_cpu(const char **p, int *ret_cpu)
{
	int v = 0;

	if (!isdigit((unsigned char)**p))
		return -SL_EPARSE;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v >= SL_TOPO_MAX_CPUS)
			return -SL_EPARSE;
		(*p)++;
	}
	*ret_cpu = v;
	return 0;
}

int sl_cpuset_parse(const char *text, struct sl_cpuset *ret_set)
{
	const char *p = text;

	memset(ret_set, 0, sizeof(*ret_set));
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;
	for (;;) {
		int lo, hi;

		if (parse_cpu(&p, &lo))
			return -SL_EPARSE;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &hi) || hi < lo)
				return -SL_EPARSE;
		}
		for (int c = lo; c <= hi; c++)
			sl_cpuset_set(ret_set, c);
		if (*p != ',')
			break;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -SL_EPARSE : 0;
}
