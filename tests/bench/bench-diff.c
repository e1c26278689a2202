// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparison benchmark: how long `schedlens diff` takes on two runs of 10 minutes of
 * 1 s windows each, with the engine's default group count (all tasks plus 16 groups) and
 * pgbench-like counts and latency histograms (drawn from a seeded generator and written
 * through the store's writer, as a recording would write them). Prints the in-process
 * sl_compare() time (median of 5) and the wall time of the CLI command end to end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "error.h"
#include "stats.h"
#include "store.h"

#define WINDOWS 600
#define GROUPS 17

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t draw(struct sl_rng *r, double mean)
{
	/* mean +- 10%: window-to-window noise */
	return (uint64_t)(mean * (0.9 + 0.2 * sl_rng_double(r)));
}

static int fill(struct sl_store *st, struct sl_writer *w, const char *kernel, double scale,
		int64_t host, struct sl_rng *r)
{
	struct sl_run_meta m = { .host_id = host, .kernel_release = kernel, .workload = "pgbench" };
	static struct sl_window_rec rec;
	int64_t run;
	int err;

	if ((err = sl_store_run_begin(st, &m, &run)))
		return err;
	for (int i = 0; i < WINDOWS; i++)
		for (int g = 0; g < GROUPS; g++) {
			double size = g == 0 ? 1 : g < 3 ? 0.45 : 0.01;

			memset(&rec, 0, sizeof(rec));
			rec.run_id = run;
			rec.start_ns = (uint64_t)i * 1000000000ull;
			rec.dur_ns = 1000000000ull;
			if (g == 0)
				snprintf(rec.grp, sizeof(rec.grp), "*");
			else
				snprintf(rec.grp, sizeof(rec.grp), "group%02d", g);
			rec.wakeups = draw(r, 90000 * size);
			for (int c = 0; c < 5; c++) {
				rec.class_prev[c] = rec.wakeups / 5;
				rec.class_waker[c] = rec.wakeups / 5;
			}
			rec.target_state[SL_TS_IDLE] = rec.wakeups * 7 / 10;
			rec.target_state[SL_TS_BUSY] = rec.wakeups * 3 / 10;
			rec.missed_idle = draw(r, rec.wakeups * 0.02 * scale);
			rec.missed_smt = draw(r, rec.wakeups * 0.01);
			rec.stacked = draw(r, rec.wakeups * 0.002);
			rec.migrations = draw(r, 3000 * size);
			rec.switches = draw(r, 180000 * size);
			rec.preempt_wakeup = draw(r, 4000 * size * scale);
			rec.preempt_tick = draw(r, 300 * size);
			rec.preempt_same_group = draw(r, 1000 * size);
			rec.lhp_count = draw(r, 40 * size * scale);
			rec.lhp_cost_ns = draw(r, 3e6 * size * scale);
			rec.hub_preemptions = draw(r, 20 * size);
			rec.policy_known = rec.wakeups;
			for (int p = 0; p < SL_POL_COUNT; p++)
				rec.policy_agree[p] = draw(r, rec.wakeups * 0.5);
			/* ~2000 latencies a window, log-uniform from 2 us to 2 ms */
			for (int k = 0; k < 2000 * size + 50; k++)
				sl_hist_add(&rec.latency,
					    (uint64_t)(2000 * exp(sl_rng_double(r) * log(1000.0))));
			while (!sl_writer_push_window(w, &rec))
				usleep(1000);
		}
	return 0;
}

int main(void)
{
	const char *tmp = getenv("TMPDIR"), *build = getenv("SL_BUILD");
	struct sl_host_info h = { .hostname = "bench",
				  .topo_hash = "0123456789abcdef",
				  .nr_cpus = 2 };
	char db[512], cmd[1200];
	struct sl_store *st = NULL;
	struct sl_writer *w = NULL;
	struct sl_compare_opts o;
	struct sl_rng r;
	double t[5], t0, cli;
	int64_t host, ids[2] = { 1, 2 };
	int err;

	snprintf(db, sizeof(db), "%s/bench-diff.%d.db", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	sl_rng_seed(&r, 1);
	if ((err = sl_store_open(db, SL_STORE_CREATE, &st)) ||
	    (err = sl_store_host_upsert(st, &h, &host)) || (err = sl_writer_start(st, NULL, &w)) ||
	    (err = fill(st, w, "6.1.0-50", 1, host, &r)) ||
	    (err = fill(st, w, "6.12.117", 1.5, host, &r)) || (err = sl_writer_stop(w))) {
		fprintf(stderr, "bench-diff: %s\n", sl_errmsg(err));
		return 1;
	}
	sl_compare_opts_default(&o);
	o.baseline_runs = &ids[0];
	o.nr_baseline_runs = 1;
	o.candidate_runs = &ids[1];
	o.nr_candidate_runs = 1;
	for (int i = 0; i < 5; i++) {
		struct sl_comparison *c = NULL;

		t0 = now_s();
		err = sl_compare(st, &o, &c);
		t[i] = now_s() - t0;
		if (err) {
			fprintf(stderr, "bench-diff: %s\n", sl_errmsg(err));
			return 1;
		}
		if (!i)
			printf("bench-diff: %s\n", c->summary);
		sl_comparison_free(c);
	}
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			if (t[j] < t[i]) {
				double x = t[i];

				t[i] = t[j];
				t[j] = x;
			}
	sl_store_close(st);
	printf("bench-diff: sl_compare on 2 runs x %d windows x %d groups (%zu metrics, %d "
	       "resamples): median %.3f s (min %.3f, max %.3f)\n",
	       WINDOWS, GROUPS, sl_nr_metrics, o.resamples, t[2], t[0], t[4]);
	snprintf(cmd, sizeof(cmd), "'%s/schedlens' diff --db '%s' --no-store 1 2 >/dev/null",
		 build ? build : "build", db);
	t0 = now_s();
	err = system(cmd);
	cli = now_s() - t0;
	printf("bench-diff: 'schedlens diff' end to end: %.3f s (exit %d)%s\n", cli,
	       WIFEXITED(err) ? WEXITSTATUS(err) : -1, cli < 1 ? "" : "  OVER the 1 s budget");
	unlink(db);
	snprintf(cmd, sizeof(cmd), "rm -f '%s-wal' '%s-shm'", db, db);
	if (system(cmd) != 0)
		return 1;
	return 0;
}
