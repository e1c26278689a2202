// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark of the live recorder under two workloads. Under hackbench (as many events as
 * the machine makes): events read, parsed and merged per CPU-second of the recorder's own
 * threads. Under pgbench -S -c 8 -j 2 on a PostgreSQL 15 cluster of our own (the rate the
 * DESIGN's budget names): the recorder's CPU (readers + merge) as a share of one core at
 * the measured events per second. Real measurements only: CPU times come from the
 * threads' CLOCK_THREAD_CPUTIME_ID, counts from the events delivered. Each part skips
 * (exit 0) when not root or its workload is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "pgload.h"
#include "recorder.h"

static int count_batch(void *ctx, const struct sl_event *ev, size_t n)
{
	(void)ev;
	*(uint64_t *)ctx += n;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static pid_t spawn_hackbench(void *arg)
{
	pid_t pid = fork();

	(void)arg;
	if (pid == 0) {
		execl("/usr/bin/hackbench", "hackbench", "-g", "8", "-l", "3000", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static pid_t spawn_pgbench(void *arg)
{
	return pgload_run(arg, 5);
}

/* Records while the workload runs; fills *st and *wall. Returns 0 or 1. */
static int record(pid_t (*spawn)(void *), void *arg, struct sl_recorder_stats *st, double *wall)
{
	uint64_t delivered = 0;
	struct sl_recorder_opts opts = { .on_batch = count_batch, .ctx = &delivered };
	struct sl_recorder *rec;
	double t0;
	pid_t pid;
	int r, status;

	r = sl_recorder_open(&opts, &rec);
	if (r < 0) {
		fprintf(stderr, "bench-recorder: %s\n", sl_errmsg(r));
		return 1;
	}
	if ((r = sl_recorder_start(rec)) < 0) {
		fprintf(stderr, "bench-recorder: %s\n", sl_errmsg(r));
		sl_recorder_close(rec);
		return 1;
	}
	t0 = now_s();
	pid = spawn(arg);
	while (pid > 0 && waitpid(pid, &status, WNOHANG) != pid)
		sl_recorder_poll(rec, 50);
	*wall = now_s() - t0;
	sl_recorder_stop(rec);
	sl_recorder_get_stats(rec, st);
	sl_recorder_close(rec);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench-recorder: the workload failed\n");
		return 1;
	}
	return delivered == st->events_total + st->gaps ? 0 : 1;
}

static int bench_hackbench(void)
{
	struct sl_recorder_stats st;
	double wall, cpu;

	if (access("/usr/bin/hackbench", X_OK) != 0) {
		printf("bench-recorder: hackbench part skipped (no /usr/bin/hackbench)\n");
		return 0;
	}
	if (record(spawn_hackbench, NULL, &st, &wall))
		return 1;
	cpu = st.reader_cpu_s + st.merge_cpu_s;
	printf("bench-recorder: hackbench -g 8 -l 3000, %.2f s wall, %d CPUs, %d reader thread(s)\n",
	       wall, st.nr_cpus, st.nr_readers);
	printf("  events delivered   %llu (%.0f/s of wall time), lost %llu, late %llu, %llu pages\n",
	       (unsigned long long)st.events_total, st.events_total / wall,
	       (unsigned long long)st.lost, (unsigned long long)st.late,
	       (unsigned long long)st.pages);
	printf("  reader CPU         %.3f s -> %.2f M events per CPU-second (read+parse)\n",
	       st.reader_cpu_s, st.reader_cpu_s > 0 ? st.events_total / st.reader_cpu_s / 1e6 : 0);
	printf("  reader+merge CPU   %.3f s -> %.2f M events per CPU-second (read+parse+merge)\n",
	       cpu, cpu > 0 ? st.events_total / cpu / 1e6 : 0);
	printf("  recorder CPU share %.2f%% of one CPU at %.0f events/s\n", 100 * cpu / wall,
	       st.events_total / wall);
	return 0;
}

static int bench_pgbench(void)
{
	struct sl_recorder_stats st;
	struct pgload pg;
	double wall, cpu;
	int r;

	r = pgload_start(&pg);
	if (r == 2) {
		printf("bench-recorder: pgbench part skipped (needs PostgreSQL 15, make deps)\n");
		return 0;
	}
	if (r) {
		fprintf(stderr, "bench-recorder: cannot start a PostgreSQL cluster\n");
		return 1;
	}
	r = record(spawn_pgbench, &pg, &st, &wall);
	pgload_stop(&pg);
	if (r)
		return r;
	cpu = st.reader_cpu_s + st.merge_cpu_s;
	printf("bench-recorder: pgbench -S -c 8 -j 2 -T 5, %.2f s wall\n", wall);
	printf("  events delivered   %llu (%.0f/s of wall time), lost %llu\n",
	       (unsigned long long)st.events_total, st.events_total / wall,
	       (unsigned long long)st.lost);
	printf("  recorder CPU       readers %.3f s + merge %.3f s\n", st.reader_cpu_s,
	       st.merge_cpu_s);
	printf("  recorder CPU share %.2f%% of one core at %.0f events/s (pgbench rate); "
	       "%.2f%% per 100 k events/s\n",
	       100 * cpu / wall, st.events_total / wall,
	       st.events_total ? 100 * cpu / wall / (st.events_total / wall / 1e5) : 0);
	return 0;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* or forked children repeat what is buffered */
	if (geteuid() != 0) {
		printf("bench-recorder: skipped (needs root for tracefs)\n");
		return 0;
	}
	if (bench_hackbench())
		return 1;
	return bench_pgbench();
}
