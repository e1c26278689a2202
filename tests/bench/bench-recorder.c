// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark of the live recorder under hackbench: events read, parsed and merged per
 * CPU-second of the recorder's own threads (readers + merge), and the recorder's share
 * of one CPU over the run. Real measurements only: CPU times come from the threads'
 * CLOCK_THREAD_CPUTIME_ID, counts from the events delivered. Skips (exit 0) when not root
 * or hackbench is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
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

int main(void)
{
	uint64_t delivered = 0;
	struct sl_recorder_opts opts = { .on_batch = count_batch, .ctx = &delivered };
	struct sl_recorder_stats st;
	struct sl_recorder *rec;
	double t0, wall, cpu;
	pid_t pid;
	int r, status;

	if (geteuid() != 0 || access("/usr/bin/hackbench", X_OK) != 0) {
		printf("bench-recorder: skipped (needs root and hackbench)\n");
		return 0;
	}
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
	pid = fork();
	if (pid == 0) {
		execl("/usr/bin/hackbench", "hackbench", "-g", "8", "-l", "3000", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) != pid)
		sl_recorder_poll(rec, 50);
	wall = now_s() - t0;
	sl_recorder_stop(rec);
	sl_recorder_get_stats(rec, &st);
	sl_recorder_close(rec);

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
	return delivered == st.events_total + st.gaps ? 0 : 1;
}
