// SPDX-License-Identifier: GPL-2.0-only
/*
 * Available-CPU counters, the 3.6 buddy table and the placement policy fingerprint.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

const char *sl_policy_name(enum sl_policy pol)
{
	static const char *const names[SL_POL_COUNT] = {
		[SL_POL_PREV_IDLE] = "prev-idle", [SL_POL_AFFINE] = "affine",
		[SL_POL_LLC_SCAN] = "llc-scan",	  [SL_POL_BUDDY] = "buddy",
		[SL_POL_SMT_FIRST] = "smt-first",
	};

	return (unsigned int)pol < SL_POL_COUNT ? names[pol] : "?";
}

/*
 * The seed patch's assignment: walk a domain's groups in order from the group holding
 * the domain's first CPU, alternate direction at each hop, never point the last group
 * rightward (back to the start). members[] are the groups' first CPUs in order; returns
 * the buddy of the group at position k.
 */
static int buddy_of(const int *members, int n, int k)
{
	bool right = k % 2 == 0;

	if (right && k == n - 1)
		right = false;
	return right ? members[k + 1] : members[(k - 1 + n) % n];
}

static int build_buddies(struct sl_policy_topo *p)
{
	const struct sl_topo *t = p->topo;
	int *first_of_core = malloc(sizeof(int) * t->nr_cores);
	int *llc_cores = malloc(sizeof(int) * t->nr_cores); /* cores grouped by LLC */
	int *llc_start = calloc(t->nr_llcs + 1, sizeof(int));
	int *fill = calloc(t->nr_llcs, sizeof(int));
	int *core_cpus = malloc(sizeof(int) * t->nr_cpus);
	int err = -ENOMEM;

	if (!first_of_core || !llc_cores || !llc_start || !fill || !core_cpus)
		goto out;
	for (int k = 0; k < t->nr_cores; k++)
		first_of_core[k] = -1;
	/* cores are numbered in order of their lowest CPU, so this lists each LLC's cores
	 * in the order the kernel's sched groups follow */
	for (int c = 0; c < t->nr_cpus; c++) {
		const struct sl_topo_cpu *cpu = &t->cpus[c];

		if (cpu->online && first_of_core[cpu->core] < 0) {
			first_of_core[cpu->core] = c;
			llc_start[cpu->llc + 1]++;
		}
	}
	for (int l = 0; l < t->nr_llcs; l++)
		llc_start[l + 1] += llc_start[l];
	for (int k = 0; k < t->nr_cores; k++) {
		int l = t->cpus[first_of_core[k]].llc;

		llc_cores[llc_start[l] + fill[l]++] = k;
	}
	for (int c = 0; c < t->nr_cpus; c++) {
		const struct sl_topo_cpu *cpu = &t->cpus[c];
		int l, pos = 0, n, m = 0, j = 0, members[64];

		if (!cpu->online)
			continue;
		l = cpu->llc;
		n = llc_start[l + 1] - llc_start[l];
		for (int i = 0; i < n; i++)
			if (llc_cores[llc_start[l] + i] == cpu->core)
				pos = i;
		for (int i = 0; i < n; i++)
			core_cpus[i] = first_of_core[llc_cores[llc_start[l] + i]];
		p->mc_buddy[c] = buddy_of(core_cpus, n, pos);
		/* SMT level: the core's CPUs in order (at most 64 threads per core) */
		for (int s = 0; s < t->nr_cpus && m < 64; s++) {
			if (t->cpus[s].online && t->cpus[s].core == cpu->core) {
				if (s == c)
					j = m;
				members[m++] = s;
			}
		}
		p->smt_buddy[c] = buddy_of(members, m, j);
	}
	err = 0;
out:
	free(first_of_core);
	free(llc_cores);
	free(llc_start);
	free(fill);
	free(core_cpus);
	return err;
}

int sl_policy_topo_init(struct sl_policy_topo *p, const struct sl_topo *topo)
{
	memset(p, 0, sizeof(*p));
	p->topo = topo;
	if (!topo)
		return 0;
	p->nr_cpus = topo->nr_cpus;
	p->known = calloc(topo->nr_cpus, 1);
	p->avail = calloc(topo->nr_cpus, 1);
	p->mc_buddy = calloc(topo->nr_cpus, sizeof(int32_t));
	p->smt_buddy = calloc(topo->nr_cpus, sizeof(int32_t));
	p->core_size = calloc(topo->nr_cores, sizeof(int32_t));
	p->core_avail = calloc(topo->nr_cores, sizeof(int32_t));
	p->llc_size = calloc(topo->nr_llcs, sizeof(int32_t));
	p->llc_known = calloc(topo->nr_llcs, sizeof(int32_t));
	p->llc_avail = calloc(topo->nr_llcs, sizeof(int32_t));
	p->llc_idle_cores = calloc(topo->nr_llcs, sizeof(int32_t));
	p->core_of = malloc(topo->nr_cpus * sizeof(int32_t));
	p->llc_of = malloc(topo->nr_cpus * sizeof(int32_t));
	p->pkg_of = malloc(topo->nr_cpus * sizeof(int32_t));
	if (!p->known || !p->avail || !p->mc_buddy || !p->smt_buddy || !p->core_size ||
	    !p->core_avail || !p->llc_size || !p->llc_known || !p->llc_avail ||
	    !p->llc_idle_cores || !p->core_of || !p->llc_of || !p->pkg_of || build_buddies(p)) {
		sl_policy_topo_free(p);
		return -ENOMEM;
	}
	for (int c = 0; c < topo->nr_cpus; c++) {
		bool on = topo->cpus[c].online;

		p->core_of[c] = on ? topo->cpus[c].core : -1;
		p->llc_of[c] = on ? topo->cpus[c].llc : -1;
		p->pkg_of[c] = on ? topo->cpus[c].package : -1;
		if (!on)
			continue;
		p->core_size[topo->cpus[c].core]++;
		p->llc_size[topo->cpus[c].llc]++;
	}
	return 0;
}

void sl_policy_topo_free(struct sl_policy_topo *p)
{
	free(p->known);
	free(p->avail);
	free(p->mc_buddy);
	free(p->smt_buddy);
	free(p->core_size);
	free(p->core_avail);
	free(p->llc_size);
	free(p->llc_known);
	free(p->llc_avail);
	free(p->llc_idle_cores);
	free(p->core_of);
	free(p->llc_of);
	free(p->pkg_of);
	memset(p, 0, sizeof(*p));
}

void sl_policy_set_slow(struct sl_policy_topo *p, int cpu, bool known, bool avail)
{
	int core, llc;
	bool was_idle_core;

	if (!sl_policy_cpu_valid(p, cpu))
		return;
	core = p->core_of[cpu];
	llc = p->llc_of[cpu];
	avail = avail && known;
	if (known != p->known[cpu]) {
		p->llc_known[llc] += known ? 1 : -1;
		p->known[cpu] = known;
	}
	if (avail == p->avail[cpu])
		return;
	was_idle_core = p->core_avail[core] == p->core_size[core];
	p->avail[cpu] = avail;
	p->core_avail[core] += avail ? 1 : -1;
	p->llc_avail[llc] += avail ? 1 : -1;
	if (was_idle_core != (p->core_avail[core] == p->core_size[core]))
		p->llc_idle_cores[llc] += was_idle_core ? -1 : 1;
}

/* Every CPU of cpu's LLC known: a policy that scans the LLC can be evaluated. */
static inline bool llc_known(const struct sl_policy_topo *p, int cpu)
{
	int llc;

	if (!sl_policy_known(p, cpu))
		return false;
	llc = p->llc_of[cpu];
	return p->llc_known[llc] == p->llc_size[llc];
}

/* The target's side of every comparison, looked up once per wakeup. */
struct fp_ctx {
	const struct sl_policy_topo *p;
	int target;
	int llc, core; /* the target's */
	bool target_avail;
	bool target_idle_core; /* every CPU of the target's core available */
};

/*
 * The three policies that start from a candidate t0 (policy.h), evaluated together: they
 * ask the same questions of t0's core and LLC. Returns their agreement bits.
 */
static uint8_t candidate_agrees(const struct fp_ctx *f, int t0)
{
	const struct sl_policy_topo *p = f->p;
	int core0, llc0, choice = t0;
	bool sibling, scan, smt, same = f->target == t0;

	/* an available t0 is every policy's choice (the buddy rule's too) */
	if (p->avail[t0])
		return same << SL_POL_LLC_SCAN | same << SL_POL_BUDDY | same << SL_POL_SMT_FIRST;
	core0 = p->core_of[t0];
	llc0 = p->llc_of[t0];
	sibling = p->core_avail[core0] > 0; /* t0 itself is not available */

	if (p->llc_idle_cores[llc0] > 0)
		scan = llc0 == f->llc && f->target_idle_core;
	else if (sibling)
		scan = f->target_avail && core0 == f->core;
	else
		scan = same;

	if (p->avail[p->mc_buddy[t0]])
		choice = p->mc_buddy[t0];
	else if (p->avail[p->smt_buddy[t0]])
		choice = p->smt_buddy[t0];

	if (sibling)
		smt = f->target_avail && core0 == f->core;
	else if (p->llc_avail[llc0] > 0)
		smt = f->target_avail && llc0 == f->llc;
	else
		smt = same;
	return scan << SL_POL_LLC_SCAN | (f->target == choice) << SL_POL_BUDDY |
	       smt << SL_POL_SMT_FIRST;
}

void sl_policy_fingerprint(const struct sl_policy_topo *p, int target, int prev, int waker,
			   uint8_t *ret_known, uint8_t *ret_agree)
{
	struct fp_ctx f = { .p = p, .target = target };
	int cand[2], nr = 0;
	uint8_t known = 0, agree = 0;
	bool prev_llc_known;

	*ret_known = *ret_agree = 0;
	if (!p->topo || !llc_known(p, target))
		return;
	f.llc = p->llc_of[target];
	f.core = p->core_of[target];
	f.target_avail = p->avail[target];
	f.target_idle_core = p->core_avail[f.core] == p->core_size[f.core];
	prev_llc_known = llc_known(p, prev);
	if (prev_llc_known)
		cand[nr++] = prev;
	if (waker != prev && llc_known(p, waker))
		cand[nr++] = waker;

	if (prev_llc_known) {
		known |= 1 << SL_POL_PREV_IDLE;
		if (p->avail[prev])
			agree |= (target == prev) << SL_POL_PREV_IDLE;
		else if (p->llc_avail[p->llc_of[prev]] > 0)
			agree |= (f.target_avail && p->llc_of[prev] == f.llc) << SL_POL_PREV_IDLE;
		else
			agree |= (target == prev) << SL_POL_PREV_IDLE;
	}
	if (sl_policy_known(p, waker)) {
		known |= 1 << SL_POL_AFFINE;
		agree |= (target == waker) << SL_POL_AFFINE;
	}
	if (nr) {
		known |= 1 << SL_POL_LLC_SCAN | 1 << SL_POL_BUDDY | 1 << SL_POL_SMT_FIRST;
		for (int i = 0; i < nr; i++)
			agree |= candidate_agrees(&f, cand[i]);
	}
	*ret_known = known;
	*ret_agree = agree;
}
