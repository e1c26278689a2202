// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helper of the dashboard's browser test and benchmark: fills a database with data a
 * person would recognise. "synth" analyses synthesized pgbench-like traces through the
 * real engine and store (lib/session), N runs of a pre-3.6 kernel (full LLC scan) and N of
 * a 3.6 one (the buddy rule of the seed patch), so a comparison of the two kernels finds
 * the seed article's regression. "days" writes one long run of 1 s windows (7 days by
 * default) for a few groups straight through the store's writer: the dashboard's scale
 * test. The machine shape is SOCKETSxCORESxTHREADS with Intel numbering (the SMT sibling
 * of n is n + sockets * cores), one LLC per socket: 4x10x2 is the seed's 80-CPU Westmere.
 *
 *   sl-demo-db synth DB [--shape 4x10x2] [--runs 2] [--duration 8] [--seed 1]
 *   sl-demo-db days DB [--shape 4x10x2] [--days 7]
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../synth/synth.h"
#include "error.h"
#include "hist.h"
#include "session.h"
#include "store.h"
#include "topo.h"

#define NS 1000000000ULL

static int usage(void)
{
	fprintf(stderr, "usage: sl-demo-db synth|days DB [--shape SxCxT] [--runs N] "
			"[--duration S] [--days D] [--seed N]\n");
	return 2;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "sl-demo-db: %s: %s\n", what, sl_errmsg(err));
	return 1;
}

/* A topology of the shape, through its JSON form so the library computes the hash. */
static struct sl_topo *make_topo(int sockets, int cores, int threads)
{
	struct sl_topo t = { 0 }, *ret = NULL;
	json_t *root;
	char *text;
	int n = sockets * cores * threads;

	t.nr_cpus = t.nr_online = n;
	t.nr_cores = sockets * cores;
	t.nr_llcs = t.nr_packages = sockets;
	t.llc_from_cache = true;
	t.cpus = calloc(n, sizeof(*t.cpus));
	if (!t.cpus)
		return NULL;
	for (int cpu = 0; cpu < n; cpu++) {
		int core = cpu % (sockets * cores);

		t.cpus[cpu] = (struct sl_topo_cpu){ .online = true,
						    .core = core,
						    .llc = core / cores,
						    .package = core / cores,
						    .node = core / cores,
						    .core_id = core % cores,
						    .package_id = core / cores };
	}
	text = sl_topo_to_json(&t);
	free(t.cpus);
	root = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	if (!root)
		return NULL;
	json_object_del(root, "hash");
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (text && sl_topo_from_json(text, &ret))
		ret = NULL;
	free(text);
	return ret;
}

static int feed(void *ctx, const struct sl_event *ev)
{
	sl_session_feed(ctx, ev, 1);
	return 0;
}

/* One synthesized run of policy under kernel release, started at wall time start_wall. */
static int synth_one(const char *db, const struct sl_topo *topo, enum synth_policy policy,
		     const char *kernel, uint64_t seed, uint64_t dur_ns, uint64_t start_wall)
{
	struct sl_session_opts o = { 0 };
	struct sl_session_result res = { 0 };
	struct synth_truth truth = { 0 };
	struct synth_config cfg;
	struct sl_session *s;
	uint64_t t0 = 1000 * NS;
	int err;

	o.db_path = db;
	o.wait_for_writer = true; /* a simulation outruns the writer: wait, drop nothing */
	o.topo = topo;
	o.hostname = "db-demo-80";
	o.machine_id = "5c4ed1e95ddemo";
	o.meta = (struct sl_run_meta){
		.kernel_release = kernel,
		.kernel_version = policy == SYNTH_BUDDY ? "#1 SMP PREEMPT_DYNAMIC (buddy)" :
							  "#1 SMP PREEMPT_DYNAMIC",
		.preempt_mode = "voluntary",
		.workload = "pgbench",
		.source = "text",
		.trace_clock = "mono",
		.recorder_version = "sl-demo-db",
		.nr_cpus = topo->nr_cpus,
		.start_wall_ns = start_wall,
		.start_ns = t0,
	};
	sl_engine_config_default(&o.engine);
	o.engine.no_slices = true;
	err = sl_session_open(&o, &s);
	if (err)
		return fail("session", err);
	synth_config_default(&cfg, topo);
	cfg.policy = policy;
	cfg.seed = seed;
	cfg.duration_ns = dur_ns;
	cfg.start_ns = t0;
	err = synth_run(&cfg, feed, s, &truth);
	if (err) {
		sl_session_close(s, &(struct sl_run_totals){ .end_ns = t0 + dur_ns }, &res);
		sl_session_result_free(&res);
		return fail("synth", err);
	}
	err = sl_session_close(s,
			       &(struct sl_run_totals){ .end_ns = t0 + dur_ns,
							.end_wall_ns = start_wall + dur_ns,
							.events = truth.events },
			       &res);
	printf("run %lld kernel %s policy %s events %llu wakeups %llu\n", (long long)res.run_id,
	       kernel, synth_policy_name(policy), (unsigned long long)truth.events,
	       (unsigned long long)truth.wakeups);
	synth_truth_free(&truth);
	sl_session_result_free(&res);
	return err ? fail("close", err) : 0;
}

static uint64_t now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static int cmd_synth(const char *db, const struct sl_topo *topo, int runs, double dur,
		     uint64_t seed)
{
	uint64_t dur_ns = (uint64_t)(dur * NS), now = now_wall();

	for (int i = 0; i < runs; i++) {
		uint64_t day = 86400 * NS;

		if (synth_one(db, topo, SYNTH_LLC_SCAN, "3.5.0-demo", seed + i, dur_ns,
			      now - 2 * day + i * 3600 * NS))
			return 1;
	}
	for (int i = 0; i < runs; i++)
		if (synth_one(db, topo, SYNTH_BUDDY, "3.6.0-demo", seed + 100 + i, dur_ns,
			      now - 3600 * NS * (runs - i)))
			return 1;
	return 0;
}

/* xorshift64*: deterministic noise for the long run */
static uint64_t rnd_state = 88172645463325252ULL;
static double rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (double)((rnd_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* A window of group g at second i of a daily cycle, loosely like a busy database host. */
static void fake_window(struct sl_window_rec *w, int g, uint64_t i)
{
	double load = 0.55 + 0.4 * sin((double)(i % 86400) / 86400.0 * 2 * M_PI) + 0.1 * rnd();
	double scale = g == 0 ? 1.0 : g == 1 ? 0.6 : g == 2 ? 0.3 : 0.05;
	uint64_t wk = (uint64_t)(40000 * load * scale) + 1;

	w->events = (uint64_t)(180000 * load) + 100;
	w->wakeups = wk;
	w->wakeups_new = wk / 500;
	w->class_prev[SL_RREL_SAME] = wk * 45 / 100;
	w->class_prev[SL_RREL_SMT] = wk * 10 / 100;
	w->class_prev[SL_RREL_LLC] = wk * 35 / 100;
	w->class_prev[SL_RREL_PACKAGE] = 0;
	w->class_prev[SL_RREL_REMOTE] = wk * 8 / 100;
	w->class_prev[SL_RREL_UNKNOWN] = wk - wk * 98 / 100;
	w->class_waker[SL_RREL_SAME] = wk * 20 / 100;
	w->class_waker[SL_RREL_SMT] = wk * 15 / 100;
	w->class_waker[SL_RREL_LLC] = wk * 50 / 100;
	w->class_waker[SL_RREL_REMOTE] = wk * 13 / 100;
	w->class_waker[SL_RREL_UNKNOWN] = wk - wk * 98 / 100;
	w->target_state[SL_TS_IDLE] = wk * 70 / 100;
	w->target_state[SL_TS_BUSY] = wk * 27 / 100;
	w->target_state[SL_TS_CLAIMED] = wk * 2 / 100;
	w->target_state[SL_TS_UNKNOWN] = wk - wk * 99 / 100;
	w->missed_idle = (uint64_t)(wk * (0.02 + 0.01 * rnd()));
	w->missed_smt = wk / 50;
	w->stacked = wk * 2 / 100;
	w->migrations = wk / 5;
	w->switches = wk + wk / 10;
	w->preempt_wakeup = wk / 40;
	w->preempt_tick = wk / 400;
	w->preempt_same_group = wk / 80;
	w->lhp_count = (uint64_t)(5 * load * scale * rnd());
	w->lhp_cost_ns = w->lhp_count * 150000;
	w->hub_preemptions = w->lhp_count / 3;
	w->lost_events = rnd() < 0.0005 ? 100 : 0;
	w->policy_known = wk * 9 / 10;
	w->policy_agree[SL_POL_PREV_IDLE] = wk * 6 / 10;
	w->policy_agree[SL_POL_AFFINE] = wk * 2 / 10;
	w->policy_agree[SL_POL_LLC_SCAN] = wk * 8 / 10;
	w->policy_agree[SL_POL_BUDDY] = wk * 3 / 10;
	w->policy_agree[SL_POL_SMT_FIRST] = wk * 5 / 10;
	for (int k = 0; k < 8; k++) {
		unsigned int b = sl_hist_bucket((uint64_t)(2000 + 60000 * rnd() * rnd()));

		w->latency.counts[b] += wk / 8;
		w->latency.total += wk / 8;
	}
}

static int cmd_days(const char *db, const struct sl_topo *topo, double days)
{
	static const char *const groups[] = { "*", "postgres", "pgbench", "kworker" };
	struct sl_writer_opts wo = { .capacity = 1 << 18, .commit_rows = 100000 };
	uint64_t n = (uint64_t)(days * 86400), now = now_wall(), t0 = 5000 * NS;
	struct sl_run_meta m = { .kernel_release = "6.1.0-31-amd64",
				 .kernel_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.128-1",
				 .preempt_mode = "voluntary",
				 .workload = "pgbench",
				 .trace_clock = "mono",
				 .nr_cpus = topo->nr_cpus,
				 .start_wall_ns = now - n * NS,
				 .start_ns = t0 };
	struct sl_cpu_row *rows = calloc(topo->nr_cpus, sizeof(*rows));
	char hash[17], *json = sl_topo_to_json(topo);
	struct sl_host_info h = { .hostname = "db-week-80",
				  .machine_id = "week",
				  .topo_hash = sl_topo_hash_str(topo, hash),
				  .topo_json = json,
				  .nr_cpus = topo->nr_cpus,
				  .cpus = rows,
				  .nr_cpu_rows = topo->nr_cpus };
	struct sl_window_rec *w = calloc(1, sizeof(*w));
	struct sl_store *st;
	struct sl_writer *wr;
	int64_t run;
	int err;

	if (!rows || !json || !w)
		return fail("memory", -ENOMEM);
	for (int c = 0; c < topo->nr_cpus; c++)
		rows[c] = (struct sl_cpu_row){ c,
					       true,
					       topo->cpus[c].core,
					       topo->cpus[c].llc,
					       topo->cpus[c].package,
					       topo->cpus[c].node };
	err = sl_store_open(db, SL_STORE_CREATE, &st);
	if (!err)
		err = sl_store_host_upsert(st, &h, &m.host_id);
	if (!err)
		err = sl_store_run_begin(st, &m, &run);
	if (!err)
		err = sl_writer_start(st, &wo, &wr);
	if (err)
		return fail(db, err);
	for (uint64_t i = 0; i < n; i++) {
		for (int g = 0; g < 4; g++) {
			memset(w, 0, sizeof(*w));
			w->run_id = run;
			w->start_ns = t0 + i * NS;
			w->dur_ns = NS;
			snprintf(w->grp, sizeof(w->grp), "%s", groups[g]);
			fake_window(w, g, i);
			/* flushed every 200 k rows: the queue never fills */
			if (!sl_writer_push_window(wr, w))
				return fail("write: queue full", -EIO);
		}
		if (i % 50000 == 49999 && (err = sl_writer_flush(wr)))
			return fail("write", err);
	}
	err = sl_writer_stop(wr);
	if (!err)
		err = sl_store_run_end(st, run,
				       &(struct sl_run_totals){ .end_ns = t0 + n * NS,
								.end_wall_ns = now,
								.events = n * 180000 });
	/* as a recorder's session does when the run ends */
	if (!err)
		err = sl_store_run_bins(st, run);
	sl_store_close(st);
	free(rows);
	free(json);
	free(w);
	if (err)
		return fail(db, err);
	printf("run %lld: %llu windows x 4 groups\n", (long long)run, (unsigned long long)n);
	return 0;
}

int main(int argc, char **argv)
{
	int sockets = 4, cores = 10, threads = 2, runs = 2;
	double dur = 8, days = 7;
	uint64_t seed = 1;
	struct sl_topo *topo;
	int ret;

	if (argc < 3)
		return usage();
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			return usage();
		if (!strcmp(a, "--shape")) {
			if (sscanf(v, "%dx%dx%d", &sockets, &cores, &threads) != 3)
				return usage();
		} else if (!strcmp(a, "--runs")) {
			runs = atoi(v);
		} else if (!strcmp(a, "--duration")) {
			dur = atof(v);
		} else if (!strcmp(a, "--days")) {
			days = atof(v);
		} else if (!strcmp(a, "--seed")) {
			seed = strtoull(v, NULL, 0);
		} else {
			return usage();
		}
		i++;
	}
	if (sockets < 1 || cores < 1 || threads < 1 || sockets * cores * threads > 4096)
		return usage();
	topo = make_topo(sockets, cores, threads);
	if (!topo)
		return fail("topology", -ENOMEM);
	if (!strcmp(argv[1], "synth"))
		ret = cmd_synth(argv[2], topo, runs, dur, seed);
	else if (!strcmp(argv[1], "days"))
		ret = cmd_days(argv[2], topo, days);
	else
		ret = usage();
	sl_topo_free(topo);
	return ret;
}
