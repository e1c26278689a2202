// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the placement bookkeeping (lib/engine/policy.c) against brute force: random
 * known/available changes on the fixture topologies, and after each one the counters'
 * answers (available CPUs of an LLC, an available SMT sibling, the relation of two CPUs)
 * and the policy fingerprint of random wakeups, each compared with a scan of every CPU
 * that follows policy.h's description of the policies.
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "policy.h"
#include "tap.h"

struct bf {
	const struct sl_topo *t;
	bool known[SL_TOPO_MAX_CPUS];
	bool avail[SL_TOPO_MAX_CPUS];
};

static bool valid(const struct bf *b, int c)
{
	return c >= 0 && c < b->t->nr_cpus && b->t->cpus[c].online;
}

static int llc_avail(const struct bf *b, int cpu)
{
	int n = 0;

	for (int c = 0; c < b->t->nr_cpus; c++)
		n += valid(b, c) && b->t->cpus[c].llc == b->t->cpus[cpu].llc && b->avail[c];
	return n;
}

static bool sibling_avail(const struct bf *b, int cpu)
{
	for (int c = 0; c < b->t->nr_cpus; c++)
		if (c != cpu && valid(b, c) && b->t->cpus[c].core == b->t->cpus[cpu].core &&
		    b->avail[c])
			return true;
	return false;
}

static bool core_idle(const struct bf *b, int core)
{
	for (int c = 0; c < b->t->nr_cpus; c++)
		if (valid(b, c) && b->t->cpus[c].core == core && !b->avail[c])
			return false;
	return true;
}

static bool llc_has_idle_core(const struct bf *b, int llc)
{
	for (int c = 0; c < b->t->nr_cpus; c++)
		if (valid(b, c) && b->t->cpus[c].llc == llc && core_idle(b, b->t->cpus[c].core))
			return true;
	return false;
}

static bool llc_all_known(const struct bf *b, int cpu)
{
	if (!valid(b, cpu) || !b->known[cpu])
		return false;
	for (int c = 0; c < b->t->nr_cpus; c++)
		if (valid(b, c) && b->t->cpus[c].llc == b->t->cpus[cpu].llc && !b->known[c])
			return false;
	return true;
}

static void fingerprint(const struct bf *b, const struct sl_policy_topo *p, int target, int prev,
			int waker, uint8_t *ret_known, uint8_t *ret_agree)
{
	const struct sl_topo_cpu *tc;
	int cand[2], nr = 0;
	uint8_t known = 0, agree = 0;

	*ret_known = *ret_agree = 0;
	if (!llc_all_known(b, target))
		return;
	tc = &b->t->cpus[target];
	if (llc_all_known(b, prev)) {
		cand[nr++] = prev;
		known |= 1 << SL_POL_PREV_IDLE;
		if (b->avail[prev])
			agree |= (target == prev) << SL_POL_PREV_IDLE;
		else if (llc_avail(b, prev))
			agree |= (b->avail[target] && b->t->cpus[prev].llc == tc->llc)
				 << SL_POL_PREV_IDLE;
		else
			agree |= (target == prev) << SL_POL_PREV_IDLE;
	}
	if (waker != prev && llc_all_known(b, waker))
		cand[nr++] = waker;
	if (valid(b, waker) && b->known[waker]) {
		known |= 1 << SL_POL_AFFINE;
		agree |= (target == waker) << SL_POL_AFFINE;
	}
	if (nr)
		known |= 1 << SL_POL_LLC_SCAN | 1 << SL_POL_BUDDY | 1 << SL_POL_SMT_FIRST;
	for (int i = 0; i < nr; i++) {
		const struct sl_topo_cpu *c0 = &b->t->cpus[cand[i]];
		int t0 = cand[i], choice = t0;
		bool a;

		if (b->avail[t0])
			a = target == t0;
		else if (llc_has_idle_core(b, c0->llc))
			a = c0->llc == tc->llc && core_idle(b, tc->core);
		else if (sibling_avail(b, t0))
			a = b->avail[target] && c0->core == tc->core;
		else
			a = target == t0;
		agree |= a << SL_POL_LLC_SCAN;

		if (!b->avail[t0]) {
			if (b->avail[p->mc_buddy[t0]])
				choice = p->mc_buddy[t0];
			else if (b->avail[p->smt_buddy[t0]])
				choice = p->smt_buddy[t0];
		}
		agree |= (target == choice) << SL_POL_BUDDY;

		if (b->avail[t0])
			a = target == t0;
		else if (sibling_avail(b, t0))
			a = b->avail[target] && c0->core == tc->core;
		else if (llc_avail(b, t0))
			a = b->avail[target] && c0->llc == tc->llc;
		else
			a = target == t0;
		agree |= a << SL_POL_SMT_FIRST;
	}
	*ret_known = known;
	*ret_agree = agree;
}

/* A CPU number: mostly online ones, sometimes out of range. */
static int any_cpu(const struct sl_topo *t)
{
	int r = rand() % 64;

	if (r == 0)
		return -1;
	if (r == 1)
		return t->nr_cpus;
	return rand() % t->nr_cpus;
}

static void run(const char *shape, int steps)
{
	struct sl_topo *t = fixture_topo(shape);
	struct sl_policy_topo p;
	struct bf *b = calloc(1, sizeof(*b));
	int bad_llc = 0, bad_smt = 0, bad_rel = 0, bad_fp = 0, evaluated = 0, agreed[SL_POL_COUNT];

	memset(agreed, 0, sizeof(agreed));
	b->t = t;
	ok(sl_policy_topo_init(&p, t) == 0, "%s: init", shape);
	for (int s = 0; s < steps; s++) {
		int cpu = any_cpu(t), target = any_cpu(t), prev = any_cpu(t), waker = any_cpu(t);
		/* mostly known, and busy or idle in turn, so every policy branch is reached */
		bool known = rand() % 16 != 0, avail = rand() % (s % 2000 < 1000 ? 4 : 2) != 0;
		uint8_t k1, a1, k2, a2;

		sl_policy_set(&p, cpu, known, avail);
		if (valid(b, cpu)) {
			b->known[cpu] = known;
			b->avail[cpu] = known && avail;
		}
		if (valid(b, target)) {
			bad_llc += sl_policy_llc_avail(&p, target) != llc_avail(b, target);
			bad_smt += sl_policy_sibling_avail(&p, target) != sibling_avail(b, target);
		} else {
			bad_llc += sl_policy_llc_avail(&p, target) != 0;
			bad_smt += sl_policy_sibling_avail(&p, target);
		}
		bad_rel += sl_policy_relation(&p, target, prev) !=
			   sl_topo_relation(t, target, prev);
		sl_policy_fingerprint(&p, target, prev, waker, &k1, &a1);
		fingerprint(b, &p, target, prev, waker, &k2, &a2);
		bad_fp += k1 != k2 || a1 != a2;
		if (k1 == (1 << SL_POL_COUNT) - 1) {
			evaluated++;
			for (int i = 0; i < SL_POL_COUNT; i++)
				agreed[i] += (a1 >> i) & 1;
		}
	}
	is_int(bad_llc, 0, "%s: available CPUs per LLC agree with a scan (%d changes)", shape,
	       steps);
	is_int(bad_smt, 0, "%s: available SMT sibling agrees with a scan", shape);
	is_int(bad_rel, 0, "%s: relations agree with sl_topo_relation()", shape);
	is_int(bad_fp, 0, "%s: fingerprints agree with the brute-force policies", shape);
	ok(evaluated > steps / 20, "%s: %d wakeups with every policy evaluable", shape, evaluated);
	for (int i = 0; i < SL_POL_COUNT; i++)
		ok(agreed[i] > 0 && agreed[i] < evaluated,
		   "%s: %s agrees sometimes (%d), not always", shape, sl_policy_name(i), agreed[i]);
	sl_policy_topo_free(&p);
	sl_topo_free(t);
	free(b);
}

int main(void)
{
	srand(12345);
	run("westmere", 40000);
	run("epyc", 40000);
	run("guest16", 40000);
	return done_testing();
}
