// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace synthesizer: the seed patch's buddy table on every fixture shape,
 * determinism per seed, a kernel-shaped stream (nondecreasing time, per-CPU switch
 * chains, waking before wakeup, migrate before wakeup), placements that obey the policy
 * as re-derived from the stream alone, LHP truth that matches the switches, text output,
 * speed (reported, not asserted) and the 3.6 signature: buddy misses idle CPUs that the
 * LLC scan finds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../synth/synth.h"
#include "tap.h"
#include "topo.h"

static struct sl_topo *fixture(const char *shape)
{
	const char *src = getenv("SL_SRC");
	char root[512], cmd[2048];
	struct sl_topo *topo = NULL;

	snprintf(root, sizeof(root), "%s/%s", tap_tmpdir(), shape);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && '%s/tests/fixtures/mksysfs' %s '%s'", root,
		 src ? src : ".", shape, root);
	if (system(cmd) != 0 || sl_topo_read(root, &topo) != 0) {
		fprintf(stderr, "cannot make fixture %s\n", shape);
		exit(2);
	}
	return topo;
}

/* ---- buddies ---- */

static void test_buddies(void)
{
	struct sl_topo *w = fixture("westmere"), *g = fixture("guest16"), *e = fixture("epyc");
	int llc[128], smt[128], bad = 0, cpu;

	is_int(synth_buddies(w, llc, smt), 0, "buddies: westmere computed");
	for (cpu = 0; cpu < 80; cpu++) {
		int n = cpu % 40, sock = n / 10, k = n % 10;

		/* cores of a socket in first-CPU order are n = 10s .. 10s+9: pairs (0,1) (2,3)... */
		bad += llc[cpu] != sock * 10 + (k ^ 1);
		bad += smt[cpu] != (cpu < 40 ? cpu + 40 : cpu - 40);
	}
	is_int(bad, 0, "buddies: westmere cross-wired core pairs, SMT buddy = sibling");
	is_int(llc[0], 1, "buddies: westmere cpu0 -> cpu1");
	is_int(llc[41], 0, "buddies: westmere cpu41 (core of cpu1) -> cpu0");
	is_int(llc[49], 8, "buddies: westmere cpu49 (10th core) -> cpu8");

	is_int(synth_buddies(g, llc, smt), 0, "buddies: guest16 computed");
	bad = 0;
	for (cpu = 0; cpu < 16; cpu++) {
		int core = cpu / 2, first = (core ^ 1) * 2;

		bad += llc[cpu] != first || smt[cpu] != (cpu ^ 1);
	}
	is_int(bad, 0, "buddies: guest16 (siblings adjacent, 2 cores per LLC)");

	is_int(synth_buddies(e, llc, smt), 0, "buddies: epyc computed");
	bad = 0;
	for (cpu = 0; cpu < 128; cpu++) {
		int n = cpu % 64, ccx = n / 4, k = n % 4;

		bad += llc[cpu] != ccx * 4 + (k ^ 1) || smt[cpu] != (cpu + 64) % 128;
	}
	is_int(bad, 0, "buddies: epyc (4-core CCX: pairs within the CCX)");
	sl_topo_free(g);
	sl_topo_free(e);
	sl_topo_free(w);
}

/* ---- a recorded stream ---- */

struct rec {
	struct sl_event *ev;
	size_t nr, cap;
	uint64_t hash;
};

static int record(void *ctx, const struct sl_event *ev)
{
	struct rec *r = ctx;
	const unsigned char *p = (const unsigned char *)ev;

	for (size_t i = 0; i < sizeof(*ev); i++)
		r->hash = (r->hash ^ p[i]) * 0x100000001b3ULL;
	if (r->nr == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 65536;
		r->ev = realloc(r->ev, sizeof(*r->ev) * r->cap);
		if (!r->ev)
			return -1;
	}
	r->ev[r->nr++] = *ev;
	return 0;
}

static int run(const struct sl_topo *topo, enum synth_policy pol, uint64_t seed, double secs,
	       struct rec *r, struct synth_truth *t)
{
	struct synth_config cfg;

	synth_config_default(&cfg, topo);
	cfg.policy = pol;
	cfg.seed = seed;
	cfg.duration_ns = (uint64_t)(secs * 1e9);
	memset(r, 0, sizeof(*r));
	r->hash = 0xcbf29ce484222325ULL;
	memset(t, 0, sizeof(*t));
	return synth_run(&cfg, record, r, t);
}

static void test_determinism(const struct sl_topo *topo)
{
	struct rec a, b, c;
	struct synth_truth ta, tb, tc;

	is_int(run(topo, SYNTH_BUDDY, 7, 0.2, &a, &ta), 0, "determinism: run 1");
	is_int(run(topo, SYNTH_BUDDY, 7, 0.2, &b, &tb), 0, "determinism: run 2, same seed");
	is_int(run(topo, SYNTH_BUDDY, 8, 0.2, &c, &tc), 0, "determinism: run 3, other seed");
	ok(a.nr > 10000, "determinism: a real stream (%zu events)", a.nr);
	is_int(a.nr, ta.events, "truth counts the events emitted");
	ok(a.nr == b.nr && a.hash == b.hash, "same seed: identical stream (%016llx)",
	   (unsigned long long)a.hash);
	ok(a.hash != c.hash, "other seed: another stream (%016llx)", (unsigned long long)c.hash);
	is_int(ta.transactions, tb.transactions, "same seed: same transactions");
	free(a.ev);
	free(b.ev);
	free(c.ev);
	synth_truth_free(&ta);
	synth_truth_free(&tb);
	synth_truth_free(&tc);
}

/*
 * Replays a stream with only what a trace shows and checks it is kernel-shaped; returns
 * the wakeups that landed on a non-idle CPU while a whole core of its LLC was idle, and
 * while any CPU of it was idle.
 */
struct replay {
	long bad_order, bad_chain, bad_wake, bad_migrate, missed_core, missed_idle, wakeups;
	long preempt;
};

static void replay(const struct sl_topo *topo, const struct rec *r, struct replay *out)
{
	int n = topo->nr_cpus, *curr = calloc(n, sizeof(int));
	char *known = calloc(n, 1), *claimed = calloc(n, 1), *core_busy = calloc(topo->nr_cores, 1);
	int waking_pid = -1, waking_cpu = -1, migrate_dest = -1;
	uint64_t last = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < r->nr; i++) {
		const struct sl_event *ev = &r->ev[i];

		out->bad_order += ev->ts_ns < last;
		last = ev->ts_ns;
		switch (ev->type) {
		case SL_EV_SWITCH:
			out->bad_chain += known[ev->cpu] && curr[ev->cpu] != ev->sw.prev_pid;
			out->bad_chain += ev->common_pid != ev->sw.prev_pid;
			out->preempt += ev->sw.prev_pid && ev->sw.prev_state == 'R';
			known[ev->cpu] = 1;
			curr[ev->cpu] = ev->sw.next_pid;
			claimed[ev->cpu] = 0;
			break;
		case SL_EV_WAKING:
			waking_pid = ev->wake.pid;
			waking_cpu = ev->cpu;
			migrate_dest = -1;
			break;
		case SL_EV_MIGRATE:
			if (ev->migrate.pid == waking_pid)
				migrate_dest = ev->migrate.dest_cpu;
			break;
		case SL_EV_WAKEUP: {
			int t = ev->wake.target_cpu, l = topo->cpus[t].llc, idle = 0, core_idle = 0;

			out->wakeups++;
			out->bad_wake += waking_pid != ev->wake.pid || waking_cpu != ev->cpu;
			out->bad_migrate += migrate_dest >= 0 && migrate_dest != t;
			waking_pid = -1;
			if (!(known[t] && curr[t] == 0 && !claimed[t])) {
				memset(core_busy, 0, topo->nr_cores);
				for (int c = 0; c < n; c++) {
					bool c_idle = known[c] && curr[c] == 0 && !claimed[c];

					if (!sl_topo_cpu_valid(topo, c) || topo->cpus[c].llc != l)
						continue;
					idle += c_idle;
					core_busy[topo->cpus[c].core] |= !c_idle;
				}
				for (int c = 0; c < n; c++)
					if (sl_topo_cpu_valid(topo, c) && topo->cpus[c].llc == l &&
					    !core_busy[topo->cpus[c].core])
						core_idle = 1;
				out->missed_idle += idle > 0;
				out->missed_core += core_idle > 0;
			}
			if (known[t] && curr[t] == 0)
				claimed[t] = 1;
			break;
		}
		}
	}
	free(curr);
	free(known);
	free(claimed);
	free(core_busy);
}

static const struct sl_event *find_ts(const struct rec *r, uint64_t ts, size_t *ret_i)
{
	size_t lo = 0, hi = r->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->ev[mid].ts_ns < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ret_i = lo;
	return lo < r->nr && r->ev[lo].ts_ns == ts ? &r->ev[lo] : NULL;
}

/* every LHP record's t0 is the victim's preemption, t1 its next switch-in */
static long check_lhp(const struct rec *r, const struct synth_truth *t)
{
	long bad = 0;

	for (size_t k = 0; k < t->nr_lhp; k++) {
		const struct synth_lhp *l = &t->lhp[k];
		const struct sl_event *ev;
		size_t i;

		ev = find_ts(r, l->t0_ns, &i);
		if (!ev || ev->type != SL_EV_SWITCH || ev->cpu != l->cpu ||
		    ev->sw.prev_pid != l->victim_pid || ev->sw.prev_state != 'R' ||
		    ev->sw.next_pid != l->preemptor_pid || l->nr_waiters < 1 || !l->cost_ns) {
			bad++;
			continue;
		}
		for (i++; i < r->nr; i++)
			if (r->ev[i].type == SL_EV_SWITCH && r->ev[i].sw.next_pid == l->victim_pid)
				break;
		if (l->censored ? i != r->nr : (i == r->nr || r->ev[i].ts_ns != l->t1_ns))
			bad++;
	}
	return bad;
}

static void test_stream(const struct sl_topo *topo, enum synth_policy pol)
{
	const char *name = synth_policy_name(pol);
	struct synth_truth t;
	struct replay rp;
	struct rec r;

	is_int(run(topo, pol, 3, 1.0, &r, &t), 0, "%s: 1 s run", name);
	replay(topo, &r, &rp);
	is_int(rp.bad_order, 0, "%s: timestamps nondecreasing", name);
	is_int(rp.bad_chain, 0, "%s: each switch's prev is the CPU's previous next", name);
	is_int(rp.bad_wake, 0, "%s: each wakeup follows its waking on the waker's CPU", name);
	is_int(rp.bad_migrate, 0, "%s: wakeup migrations go where the wakeup says", name);
	is_int(rp.wakeups, t.wakeups, "%s: truth counts every wakeup", name);
	is_int(rp.missed_idle, t.wakeups_missed_idle, "%s: missed_idle re-derived from the stream",
	       name);
	is_int(rp.missed_core, t.wakeups_missed_core, "%s: missed idle core re-derived", name);
	is_int(rp.preempt, t.preemptions, "%s: preemptions re-derived (R/R+ switch-outs)", name);
	if (pol == SYNTH_LLC_SCAN)
		is_int(rp.missed_core, 0, "llc-scan: never a busy CPU while a whole core was idle");
	else
		ok(rp.missed_core > 0, "buddy: busy CPU while a whole core was idle (%ld times)",
		   rp.missed_core);
	is_int(check_lhp(&r, &t), 0, "%s: LHP truth matches the switches (%zu records)", name,
	       t.nr_lhp);
	free(r.ev);
	synth_truth_free(&t);
}

/* the classic signature, on several seeds at the default pgbench-like load */
static void test_signature(const struct sl_topo *topo)
{
	double missed[2] = { 0 }, cost[2] = { 0 }, wpl = 0;
	uint64_t lhp[2] = { 0 }, tps[2] = { 0 }, waiters = 0;
	struct timespec a, b;

	for (int pol = 0; pol < 2; pol++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct synth_config cfg;
			struct synth_truth t = {};
			double secs;

			synth_config_default(&cfg, topo);
			cfg.policy = pol;
			cfg.seed = seed;
			clock_gettime(CLOCK_MONOTONIC, &a);
			if (synth_run(&cfg, NULL, NULL, &t)) {
				ok(0, "signature run");
				return;
			}
			clock_gettime(CLOCK_MONOTONIC, &b);
			secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
			diag("%s seed %llu: %.2f s simulated on %d CPUs in %.3f s real, %llu events",
			     synth_policy_name(pol), (unsigned long long)seed,
			     cfg.duration_ns / 1e9, topo->nr_online, secs,
			     (unsigned long long)t.events);
			missed[pol] += (double)t.wakeups_missed_idle / t.wakeups / 3;
			cost[pol] += t.lhp_cost_ns / 1e6 / 3;
			lhp[pol] += t.nr_lhp;
			tps[pol] += t.transactions;
			if (pol == SYNTH_BUDDY)
				for (size_t i = 0; i < t.nr_lhp; i++)
					waiters += t.lhp[i].nr_waiters;
			synth_truth_free(&t);
		}
	wpl = lhp[1] ? (double)waiters / lhp[1] : 0;
	diag("missed_idle: llc-scan %.1f%%, buddy %.1f%%", 100 * missed[0], 100 * missed[1]);
	diag("LHP with waiters: llc-scan %llu (cost %.2f ms), buddy %llu (cost %.2f ms), "
	     "waiters per LHP under buddy %.2f",
	     (unsigned long long)lhp[0], cost[0], (unsigned long long)lhp[1], cost[1], wpl);
	diag("transactions: llc-scan %llu, buddy %llu", (unsigned long long)tps[0],
	     (unsigned long long)tps[1]);
	ok(missed[1] > missed[0] + 0.05, "buddy misses idle CPUs clearly more often");
	ok(lhp[1] > 0 && wpl > 0, "lock waiters per LHP > 0");
	ok(cost[1] > cost[0], "LHP cost higher under buddy");
}

static void test_text(void)
{
	struct sl_event ev = { .ts_ns = 1234567890123ULL, .type = SL_EV_SWITCH, .cpu = 3 };
	char buf[512];

	ev.sw.prev_pid = 104;
	ev.sw.prev_prio = ev.sw.next_prio = 120;
	ev.sw.prev_state = 'R';
	ev.sw.prev_preempt = 1;
	ev.sw.next_pid = 0;
	ev.common_pid = 104;
	strcpy(ev.sw.prev_comm, "postgres");
	strcpy(ev.sw.next_comm, "swapper/3");
	synth_format_text(&ev, "postgres", false, buf, sizeof(buf));
	is_str(buf,
	       "        postgres-104     [003] d..2.  1234.567890: sched_switch: prev_comm=postgres "
	       "prev_pid=104 prev_prio=120 prev_state=R+ ==> next_comm=swapper/3 next_pid=0 "
	       "next_prio=120\n",
	       "text: sched_switch line, R+");
	memset(&ev, 0, sizeof(ev));
	ev.ts_ns = 1234567891000ULL;
	ev.type = SL_EV_WAKEUP;
	ev.cpu = 1;
	ev.wake.pid = 105;
	ev.wake.prio = 120;
	ev.wake.target_cpu = 3;
	strcpy(ev.wake.comm, "postgres");
	synth_format_text(&ev, NULL, true, buf, sizeof(buf));
	is_str(buf,
	       "          <idle>-0       [001] d..3.  1234.567891000: sched_wakeup: comm=postgres "
	       "pid=105 prio=120 target_cpu=003\n",
	       "text: sched_wakeup line, nanoseconds");
}

int main(void)
{
	struct sl_topo *w = fixture("westmere");

	test_buddies();
	test_determinism(w);
	test_stream(w, SYNTH_LLC_SCAN);
	test_stream(w, SYNTH_BUDDY);
	test_signature(w);
	test_text();
	sl_topo_free(w);
	return done_testing();
}
