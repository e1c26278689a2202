// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wakeup placement for the trace synthesizer: the topology tables (CPUs of each core and
 * LLC, cores of each LLC in the kernel's sched_group order), the seed patch's buddy
 * assignment, a wake_affine() simplification, and the two select_idle_sibling() variants:
 * the pre-3.6 LLC scan and the 3.6 "CPU buddies" rule.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "synth-local.h"

/*
 * Groups of a domain are linked in the order of their first CPU (build_sched_groups()
 * walks the span upwards), and the domain's first CPU is the first group's. For the
 * CPU in group k the patch hops from group 0 to group k flipping direction each hop, so
 * even groups point right and odd ones left: pairs (0,1), (2,3), ... cross-wired; the
 * last group never points right (back to the start), so with an odd count it points
 * left to k - 1. A domain with a single group is degenerate and does not exist.
 */
static int buddy_of(const int *group_first, int n, int k)
{
	bool right = k % 2 == 0;

	if (n < 2)
		return -1;
	if (right && k == n - 1)
		right = false;
	return right ? group_first[k + 1] : group_first[k - 1];
}

static int *alloc_ints(size_t n)
{
	return calloc(n ? n : 1, sizeof(int));
}

int synth_place_init(struct synth *s)
{
	const struct sl_topo *topo = s->topo;
	int n = topo->nr_cpus, nl = topo->nr_llcs, nc = topo->nr_cores;
	int *fill = NULL, *first = NULL, cpu, l, c, k;

	s->llc_cpus = alloc_ints(n);
	s->llc_off = alloc_ints(nl + 1);
	s->core_cpus = alloc_ints(n);
	s->core_off = alloc_ints(nc + 1);
	s->llc_cores = alloc_ints(nc);
	s->llc_core_off = alloc_ints(nl + 1);
	s->llc_buddy = alloc_ints(n);
	s->smt_buddy = alloc_ints(n);
	fill = alloc_ints((nl > nc ? nl : nc) + 1);
	first = alloc_ints(n);
	if (!s->llc_cpus || !s->llc_off || !s->core_cpus || !s->core_off || !s->llc_cores ||
	    !s->llc_core_off || !s->llc_buddy || !s->smt_buddy || !fill || !first) {
		free(fill);
		free(first);
		return -ENOMEM;
	}

	/* counting sort by LLC and by core; CPUs ascending within each */
	for (cpu = 0; cpu < n; cpu++) {
		if (!sl_topo_cpu_valid(topo, cpu))
			continue;
		s->llc_off[topo->cpus[cpu].llc + 1]++;
		s->core_off[topo->cpus[cpu].core + 1]++;
	}
	for (l = 0; l < nl; l++)
		s->llc_off[l + 1] += s->llc_off[l];
	for (c = 0; c < nc; c++)
		s->core_off[c + 1] += s->core_off[c];
	memset(fill, 0, sizeof(int) * (nl + 1));
	for (cpu = 0; cpu < n; cpu++)
		if (sl_topo_cpu_valid(topo, cpu)) {
			l = topo->cpus[cpu].llc;
			s->llc_cpus[s->llc_off[l] + fill[l]++] = cpu;
		}
	memset(fill, 0, sizeof(int) * (nc > nl ? nc : nl));
	for (cpu = 0; cpu < n; cpu++)
		if (sl_topo_cpu_valid(topo, cpu)) {
			c = topo->cpus[cpu].core;
			s->core_cpus[s->core_off[c] + fill[c]++] = cpu;
		}

	/* cores of each LLC in the order of their first CPU */
	for (cpu = 0; cpu < n; cpu++)
		if (sl_topo_cpu_valid(topo, cpu) &&
		    s->core_cpus[s->core_off[topo->cpus[cpu].core]] == cpu)
			s->llc_core_off[topo->cpus[cpu].llc + 1]++;
	for (l = 0; l < nl; l++)
		s->llc_core_off[l + 1] += s->llc_core_off[l];
	memset(fill, 0, sizeof(int) * (nl + 1));
	for (cpu = 0; cpu < n; cpu++)
		if (sl_topo_cpu_valid(topo, cpu) &&
		    s->core_cpus[s->core_off[topo->cpus[cpu].core]] == cpu) {
			l = topo->cpus[cpu].llc;
			s->llc_cores[s->llc_core_off[l] + fill[l]++] = topo->cpus[cpu].core;
		}

	for (cpu = 0; cpu < n; cpu++) {
		s->llc_buddy[cpu] = s->smt_buddy[cpu] = -1;
		if (!sl_topo_cpu_valid(topo, cpu))
			continue;
		l = topo->cpus[cpu].llc;
		c = topo->cpus[cpu].core;
		/* LLC level: groups are the LLC's cores (single CPUs without SMT) */
		int nlc = s->llc_core_off[l + 1] - s->llc_core_off[l], pos = 0;

		for (k = 0; k < nlc; k++) {
			int core = s->llc_cores[s->llc_core_off[l] + k];

			first[k] = s->core_cpus[s->core_off[core]];
			if (core == c)
				pos = k;
		}
		s->llc_buddy[cpu] = buddy_of(first, nlc, pos);
		/* SMT level: groups are the core's CPUs */
		int ncc = s->core_off[c + 1] - s->core_off[c];

		for (k = 0; k < ncc; k++)
			if (s->core_cpus[s->core_off[c] + k] == cpu)
				pos = k;
		s->smt_buddy[cpu] = buddy_of(&s->core_cpus[s->core_off[c]], ncc, pos);
	}
	free(fill);
	free(first);
	return 0;
}

void synth_place_free(struct synth *s)
{
	free(s->llc_cpus);
	free(s->llc_off);
	free(s->core_cpus);
	free(s->core_off);
	free(s->llc_cores);
	free(s->llc_core_off);
	free(s->llc_buddy);
	free(s->smt_buddy);
}

int synth_buddies(const struct sl_topo *topo, int *llc_buddy, int *smt_buddy)
{
	struct synth s = { .topo = topo };
	int err;

	if (!topo || topo->nr_cpus <= 0 || !llc_buddy || !smt_buddy)
		return -EINVAL;
	err = synth_place_init(&s);
	if (!err) {
		memcpy(llc_buddy, s.llc_buddy, sizeof(int) * topo->nr_cpus);
		memcpy(smt_buddy, s.smt_buddy, sizeof(int) * topo->nr_cpus);
	}
	synth_place_free(&s);
	return err;
}

static bool core_idle(const struct synth *s, int core)
{
	for (int i = s->core_off[core]; i < s->core_off[core + 1]; i++)
		if (!synth_cpu_idle(s, s->core_cpus[i]))
			return false;
	return true;
}

/*
 * 3.5's select_idle_sibling() below the target's LLC: the LLC-level groups (cores) from
 * the target's own core round the circle, the first whole-idle core wins (its first CPU);
 * then the SMT-level groups of the target's core, from the target on.
 */
static int llc_scan(const struct synth *s, int target)
{
	const struct sl_topo_cpu *tc = &s->topo->cpus[target];
	int lo = s->llc_core_off[tc->llc], n = s->llc_core_off[tc->llc + 1] - lo;
	int start = 0, k, i;

	if (n > 1) {
		for (k = 0; k < n; k++)
			if (s->llc_cores[lo + k] == tc->core)
				start = k;
		for (k = 0; k < n; k++) {
			int core = s->llc_cores[lo + (start + k) % n];

			if (core_idle(s, core))
				return s->core_cpus[s->core_off[core]];
		}
	}
	lo = s->core_off[tc->core];
	n = s->core_off[tc->core + 1] - lo;
	for (k = 0; k < n; k++)
		if (s->core_cpus[lo + k] == target)
			start = k;
	for (k = 1; k < n; k++) {
		i = s->core_cpus[lo + (start + k) % n];
		if (synth_cpu_idle(s, i))
			return i;
	}
	return target;
}

/*
 * The seed patch's select_idle_sibling(): only the target's domains' idle_buddy CPUs, LLC
 * level first (a CPU of the paired core), then SMT level (the target's own sibling; the
 * commit message's "its SMT sibling" is the target's in the code, not the buddy's).
 */
static int buddy_scan(const struct synth *s, int target)
{
	if (s->llc_buddy[target] >= 0 && synth_cpu_idle(s, s->llc_buddy[target]))
		return s->llc_buddy[target];
	if (s->smt_buddy[target] >= 0 && synth_cpu_idle(s, s->smt_buddy[target]))
		return s->smt_buddy[target];
	return target;
}

/*
 * 3.x wake_affine() with run-queue lengths for loads: the waker's CPU, without the waker
 * if it is about to sleep (sync), must be no busier than the previous CPU with half the
 * imbalance allowance (imbalance_pct 125 -> 112%), and a sync waker alone on its CPU
 * always attracts the wakee ("this_load" drops to 0: balanced). So ping-pong partners
 * (socket-like sync wakeups) are pulled to the waker's CPU, which is busy until the waker
 * sleeps, and select_idle_sibling() decides; a non-sync wakee goes back to its previous
 * CPU unless that one runs two tasks or more. All CPUs are treated as one SD_WAKE_AFFINE
 * domain (3.5 ran no select_idle_sibling() for cross-node wakeups; we do, so the LLC scan
 * is a clean baseline).
 */
static int wake_affine_target(const struct synth *s, int cpu, int prev, bool sync)
{
	int this_load = synth_nr_running(s, cpu) - (sync ? 1 : 0);
	bool balanced = this_load <= 0 || (this_load + 1) * 100 <= 112 * synth_nr_running(s, prev);

	if (cpu == prev)
		return prev;
	return balanced ? cpu : prev;
}

int synth_select_cpu(struct synth *s, struct synth_task *waker, struct synth_task *p, bool sync)
{
	int cpu = waker->cpu, prev = p->cpu;
	int target = wake_affine_target(s, cpu, prev, sync);

	if (target == cpu && synth_cpu_idle(s, cpu))
		return cpu;
	if (target == prev && synth_cpu_idle(s, prev))
		return prev;
	return s->cfg->policy == SYNTH_BUDDY ? buddy_scan(s, target) : llc_scan(s, target);
}

const char *synth_policy_name(enum synth_policy policy)
{
	return policy == SYNTH_BUDDY ? "buddy" : "llc-scan";
}

int synth_policy_parse(const char *name)
{
	if (!strcmp(name, "buddy"))
		return SYNTH_BUDDY;
	if (!strcmp(name, "llc-scan"))
		return SYNTH_LLC_SCAN;
	return -1;
}
