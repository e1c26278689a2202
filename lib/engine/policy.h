/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Placement bookkeeping over a topology: which CPUs are idle and unclaimed ("available",
 * what the kernel's idle_cpu() would see), counted per core and per LLC so that a wakeup's
 * llc_idle and missed_smt cost O(1); the seed patch's buddy table; and the policy
 * fingerprint: which textbook placement policies would have chosen the kernel's CPU.
 *
 * The policies, each starting from the kernel's candidate target t0 (the waker's CPU for
 * an affine wakeup, else the previous CPU; we do not see which, so both are tried):
 *   prev-idle  prev if available, else any available CPU of prev's LLC, else prev
 *   affine     the waker's CPU
 *   llc-scan   pre-3.6 select_idle_sibling: t0 if available, else a CPU of a fully idle
 *              core in t0's LLC, else an available SMT sibling of t0, else t0
 *   buddy      3.6 (commit 970e178985ca): t0 if available, else t0's LLC-level buddy if
 *              available, else t0's SMT-level buddy (its sibling) if available, else t0
 *   smt-first  t0 if available, else an available SMT sibling of t0, else any available
 *              CPU of t0's LLC, else t0
 */
#ifndef SL_POLICY_H
#define SL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "records.h"
#include "topo.h"

struct sl_policy_topo {
	const struct sl_topo *topo;
	int nr_cpus;
	uint8_t *known; /* per CPU */
	uint8_t *avail; /* per CPU */
	int32_t *mc_buddy; /* per CPU: LLC-level buddy (first CPU of the paired core) */
	int32_t *smt_buddy; /* per CPU: SMT-level buddy */
	int32_t *core_size; /* per core: online CPUs */
	int32_t *core_avail; /* per core: available CPUs */
	int32_t *llc_size; /* per LLC: online CPUs */
	int32_t *llc_known; /* per LLC: known CPUs */
	int32_t *llc_avail; /* per LLC: available CPUs */
	int32_t *llc_idle_cores; /* per LLC: cores whose CPUs are all available */
	/* per CPU, copied out of topo->cpus[] so the hot paths touch dense arrays: the
	 * CPU's core, LLC and package, all -1 for an offline or undescribed CPU */
	int32_t *core_of;
	int32_t *llc_of;
	int32_t *pkg_of;
};

/* topo may be NULL (no placement information). 0 or -ENOMEM. */
int sl_policy_topo_init(struct sl_policy_topo *p, const struct sl_topo *topo);
void sl_policy_topo_free(struct sl_policy_topo *p);

void sl_policy_set_slow(struct sl_policy_topo *p, int cpu, bool known, bool avail);

/* True if cpu is online and described by the topology (sl_topo_cpu_valid()). */
static inline bool sl_policy_cpu_valid(const struct sl_policy_topo *p, int cpu)
{
	return cpu >= 0 && cpu < p->nr_cpus && p->core_of[cpu] >= 0;
}

/*
 * Records that cpu is now known/unknown and available or not, updating the counters.
 * Most calls change nothing (a switch between two tasks), so that is settled inline.
 */
static inline void sl_policy_set(struct sl_policy_topo *p, int cpu, bool known, bool avail)
{
	if (!sl_policy_cpu_valid(p, cpu))
		return;
	if (p->known[cpu] == known && p->avail[cpu] == (avail && known))
		return;
	sl_policy_set_slow(p, cpu, known, avail);
}

/* Whether cpu is described by the topology and its state is known. */
static inline bool sl_policy_known(const struct sl_policy_topo *p, int cpu)
{
	return cpu >= 0 && cpu < p->nr_cpus && p->known[cpu];
}

/* Available CPUs in cpu's LLC, and whether one of cpu's SMT siblings is available. */
static inline int sl_policy_llc_avail(const struct sl_policy_topo *p, int cpu)
{
	if (!sl_policy_cpu_valid(p, cpu))
		return 0;
	return p->llc_avail[p->llc_of[cpu]];
}

static inline bool sl_policy_sibling_avail(const struct sl_policy_topo *p, int cpu)
{
	if (!sl_policy_cpu_valid(p, cpu))
		return false;
	return p->core_avail[p->core_of[cpu]] - p->avail[cpu] > 0;
}

/* Relation of CPUs a and b, as sl_topo_relation() would answer it. */
static inline enum sl_relation sl_policy_relation(const struct sl_policy_topo *p, int a, int b)
{
	if (!sl_policy_cpu_valid(p, a) || !sl_policy_cpu_valid(p, b))
		return SL_REL_UNKNOWN;
	if (a == b)
		return SL_REL_SAME;
	if (p->core_of[a] == p->core_of[b])
		return SL_REL_SMT;
	if (p->llc_of[a] == p->llc_of[b])
		return SL_REL_LLC;
	if (p->pkg_of[a] == p->pkg_of[b])
		return SL_REL_PACKAGE;
	return SL_REL_REMOTE;
}

/*
 * The fingerprint of one wakeup, evaluated before the wakee's own claim on target:
 * bit n of *ret_known says policy n could be evaluated (every CPU it looks at is known),
 * bit n of *ret_agree that it would have chosen target. waker is -1 when unknown.
 */
void sl_policy_fingerprint(const struct sl_policy_topo *p, int target, int prev, int waker,
			   uint8_t *ret_known, uint8_t *ret_agree);

/* "prev-idle", "affine", "llc-scan", "buddy", "smt-first" */
const char *sl_policy_name(enum sl_policy pol);

#endif
