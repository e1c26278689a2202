/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fixed-size CPU bitmap and the kernel's CPU list syntax ("0-3,8,10-11"), as found in
 * sysfs files like topology/thread_siblings_list and cache/index3/shared_cpu_list.
 */
#ifndef SL_CPUSET_H
#define SL_CPUSET_H

#include <stdbool.h>
#include <stdint.h>

#include "topo.h"

struct sl_cpuset {
	uint64_t bits[SL_TOPO_MAX_CPUS / 64];
};

static inline void sl_cpuset_set(struct sl_cpuset *s, int cpu)
{
	s->bits[cpu / 64] |= 1ull << (cpu % 64);
}

static inline bool sl_cpuset_has(const struct sl_cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < SL_TOPO_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* Number of CPUs in the set, and the lowest one (-1 if empty). */
int sl_cpuset_count(const struct sl_cpuset *s);
int sl_cpuset_first(const struct sl_cpuset *s);

/*
 * Parses a CPU list into ret_set (cleared first). An empty string is an empty set.
 * Returns -SL_EPARSE for anything else that is not a list of CPUs below SL_TOPO_MAX_CPUS;
 * no message is recorded (the caller knows the file name).
 */
int sl_cpuset_parse(const char *text, struct sl_cpuset *ret_set);

#endif
