// SPDX-License-Identifier: GPL-2.0-only
/*
 * What recording costs the workload (issue 19 item 2): pgbench -S -c 8 -j 2 on a
 * PostgreSQL 15 cluster of our own, for $SL_BENCH_LIVE_SECONDS (15) each, with nothing
 * recording, under `perf sched record`, under `schedlens record -o DB` and under
 * `schedlensd` with its defaults (recording into a database, serving on a free loopback
 * port), and with only the tracepoints schedlens uses enabled and nothing reading them (the
 * floor any tracefs recorder of those events pays). $SL_BENCH_LIVE_ROUNDS rounds (3), each
 * an unrecorded run between every two recorded ones (U A U B U C U D U, A..D rotated by
 * one a round): the host's speed drifts by more than the recorders differ (unrecorded
 * tps 27-35 k in one benchmark here), so a configuration's cost in a round is 1 - its tps
 * / the mean of the unrecorded runs either side. The figure is the median over rounds of
 * each recorder's cost over perf's (target: at most 0.5). Beside it, each recorder process's
 * own CPU time (all its threads, from wait4) per second of pgbench and its median ratio to
 * perf's: a measure the drift moves far less, though without the tracepoints' cost in the
 * workload's own context. That total includes each recorder's start and first 2 s: 130-138
 * ms for perf here and 45-51 ms for schedlens, which over 15 s flatters schedlens. So it
 * also prints each one's CPU from pgbench's start to its exit (the total less what its
 * threads had run when pgbench started, from their schedstat): the cost of recording the
 * workload, whenever it is paid. perf spends little while it records (the kernel fills
 * its buffers) and reads its whole file at exit; schedlens analyses and stores as it
 * goes, and under this load catches up after pgbench ends. tps is pgbench's own "tps = ...
 * (without initial connection time)". Each recorder gets 2 s to start before pgbench and
 * is stopped with SIGINT after it. Skips (exit 0) when not root or PostgreSQL or perf is
 * missing; exit 1 when a run fails or the target is missed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loopback.h"
#include "pgload.h"
#include "sched-fields.h" /* the events the recorder enables */

enum { NONE, FLOOR, PERF, RECORD, DAEMON, NR_CONF };
static const char *const conf_name[NR_CONF] = { "nothing", "tracepoints alone", "perf sched record",
						"schedlens record -o", "schedlensd (defaults)" };
#define MAX_ROUNDS 15

static char build[512], dir[256];

/*
 * The floor (on: made, else removed): schedlens' events enabled in a tracefs instance of
 * our own that nothing reads, whose ring buffer overwrites itself: what the tracepoints
 * cost the workload without any recorder. Named like schedlens' own instances
 * (schedlens.<pid>), so a later schedlens removes it if this process dies first.
 */
static int tracepoints_alone(bool on)
{
	char inst[128], path[300];
	int err = 0;

	snprintf(inst, sizeof(inst), "/sys/kernel/tracing/instances/schedlens.%d", (int)getpid());
	if (!on)
		return rmdir(inst) ? -1 : 0;
	if (mkdir(inst, 0755))
		return -1;
	for (int k = 0; k < SL_SE_COUNT && !err; k++) {
		int fd;

		snprintf(path, sizeof(path), "%s/events/%s/%s/enable", inst,
			 sl_sched_event_system((enum sl_sched_event_kind)k),
			 sl_sched_event_name((enum sl_sched_event_kind)k));
		fd = open(path, O_WRONLY | O_CLOEXEC);
		err = fd < 0 || write(fd, "1", 1) != 1;
		if (fd >= 0)
			close(fd);
	}
	if (err)
		rmdir(inst);
	return err ? -1 : 0;
}

/* Starts configuration c's recorder (its output into dir/c.log); its pid, 0 for none. */
static pid_t start_recorder(int c, int round)
{
	char exe[600], out[300], log[300], listen[64];
	pid_t pid;

	if (c == NONE)
		return 0;
	if (c == FLOOR)
		return tracepoints_alone(true) ? -1 : 0;
	snprintf(out, sizeof(out), "%s/%d-%d.out", dir, c, round);
	snprintf(log, sizeof(log), "%s/%d.log", dir, c);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", free_port());
	pid = fork();
	if (pid)
		return pid;
	if (!freopen(log, "a", stdout) || !freopen(log, "a", stderr))
		_exit(126);
	if (c == PERF) {
		execlp("perf", "perf", "sched", "record", "-o", out, (char *)NULL);
	} else if (c == RECORD) {
		snprintf(exe, sizeof(exe), "%s/schedlens", build);
		execl(exe, exe, "record", "-o", out, "-l", "livecost", (char *)NULL);
	} else {
		snprintf(exe, sizeof(exe), "%s/schedlensd", build);
		execl(exe, exe, "--db", out, "--listen", listen, "--label", "livecost",
		      (char *)NULL);
	}
	_exit(127);
}

/*
 * Stops a recorder with SIGINT: 0 when it exited 0 or 130, or died of the SIGINT (perf
 * writes its file, then raises it again). *cpu_s: the CPU time it used, all its threads.
 */
static int stop_recorder(pid_t pid, double *cpu_s)
{
	struct rusage ru;
	int status;

	*cpu_s = 0;
	if (pid == 0)
		return 0;
	if (pid < 0)
		return -1;
	kill(pid, SIGINT);
	if (wait4(pid, &status, 0, &ru) != pid)
		return -1;
	*cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGINT ? 0 : 128 + WTERMSIG(status);
	return WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 130 ? 0 : WEXITSTATUS(status);
}

/*
 * CPU time in ns that process pid's threads have run so far (the first field of each
 * /proc/PID/task/TID/schedstat: ns, where /proc/PID/stat counts 10 ms ticks); 0 for no
 * process.
 */
static double task_cpu_ns(pid_t pid)
{
	char path[300];
	double sum = 0;
	struct dirent *de;
	DIR *d;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned long long ns;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)pid, de->d_name);
		f = fopen(path, "re");
		if (f && fscanf(f, "%llu", &ns) == 1)
			sum += (double)ns;
		if (f)
			fclose(f);
	}
	closedir(d);
	return sum;
}

/* One pgbench run of secs seconds; its tps, or a negative number when it failed. */
static double pgbench_tps(const struct pgload *pg, int secs)
{
	char sock[300], t[16], out[300], line[512];
	double tps = -1;
	int status;
	pid_t pid;
	FILE *f;

	snprintf(sock, sizeof(sock), "%s/sock", pg->dir);
	snprintf(t, sizeof(t), "%d", secs);
	snprintf(out, sizeof(out), "%s/pgbench.out", dir);
	pid = fork();
	if (pid == 0) {
		if (!freopen(out, "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		execlp("runuser", "runuser", "-u", "postgres", "--",
		       "/usr/lib/postgresql/15/bin/pgbench", "-h", sock, "-p", PGLOAD_PORT, "-U",
		       "postgres", "-S", "-c", "8", "-j", "2", "-T", t, "postgres", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || !(f = fopen(out, "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "without initial connection time"))
			sscanf(line, "tps = %lf", &tps);
	fclose(f);
	return tps;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * One pgbench run under configuration c; its tps, or -1 when anything failed. *cpu_s: the
 * recorder's own CPU time in all (0 without a recorder process); *since_s: the part of it
 * from pgbench's start on.
 */
static double run_conf(const struct pgload *pg, int c, int round, int secs, double *cpu_s,
		       double *since_s)
{
	pid_t pid = start_recorder(c, round);
	double tps, ns0;

	*cpu_s = *since_s = 0;
	sleep(c == NONE ? 0 : 2);
	ns0 = task_cpu_ns(pid);
	tps = pgbench_tps(pg, secs);
	if ((c == FLOOR ? tracepoints_alone(false) : stop_recorder(pid, cpu_s)) || tps <= 0) {
		fprintf(stderr, "bench-livecost: %s failed in round %d (log: %s/%d.log)\n",
			conf_name[c], round + 1, dir, c);
		return -1;
	}
	*since_s = *cpu_s - ns0 / 1e9;
	return tps;
}

int main(void)
{
	const char *b = getenv("SL_BUILD") ? getenv("SL_BUILD") : "build";
	int rounds = getenv("SL_BENCH_LIVE_ROUNDS") ? atoi(getenv("SL_BENCH_LIVE_ROUNDS")) : 3;
	int secs = getenv("SL_BENCH_LIVE_SECONDS") ? atoi(getenv("SL_BENCH_LIVE_SECONDS")) : 15;
	double ratio[NR_CONF][MAX_ROUNDS], cost[NR_CONF][MAX_ROUNDS];
	double cpu[NR_CONF][MAX_ROUNDS], cpu_ratio[NR_CONF][MAX_ROUNDS];
	double since[NR_CONF][MAX_ROUNDS], since_ratio[NR_CONF][MAX_ROUNDS];
	struct pgload pg;
	int r, fail = 0;
	char rm[300];

	setvbuf(stdout, NULL, _IOLBF, 0); /* nothing buffered for the forked children to repeat */
	snprintf(build, sizeof(build), "%s", b);
	if (rounds < 1 || rounds > MAX_ROUNDS || secs < 1) {
		fprintf(stderr,
			"bench-livecost: SL_BENCH_LIVE_ROUNDS 1..%d, SL_BENCH_LIVE_SECONDS >= 1\n",
			MAX_ROUNDS);
		return 1;
	}
	if (system("perf --version >/dev/null 2>&1") != 0) {
		printf("bench-livecost: skipped (no perf)\n");
		return 0;
	}
	r = pgload_start(&pg);
	if (r == 2) {
		printf("bench-livecost: skipped (needs root and PostgreSQL 15, make deps)\n");
		return 0;
	}
	if (r) {
		fprintf(stderr, "bench-livecost: cannot start a PostgreSQL cluster\n");
		return 1;
	}
	snprintf(dir, sizeof(dir), "/tmp/sl-livecost.XXXXXX");
	if (!mkdtemp(dir)) {
		pgload_stop(&pg);
		return 1;
	}
	printf("bench-livecost: pgbench -S -c 8 -j 2 -T %d, %d rounds; tps, and in brackets the "
	       "cost against the unrecorded runs either side\n",
	       secs, rounds);
	printf("  round %10s %18s %18s %18s %18s\n", "unrecorded", "tracepoints", "perf",
	       "record -o", "schedlensd");
	for (int i = 0; i < rounds && !fail; i++) {
		double none[NR_CONF], tps[NR_CONF], mean = 0, no_cpu, no_since;

		/* unrecorded, A, unrecorded, B, ... unrecorded: A.. rotated by one a round */
		if ((none[0] = run_conf(&pg, NONE, i, secs, &no_cpu, &no_since)) < 0)
			fail = 1;
		for (int k = 0; k < NR_CONF - 1 && !fail; k++) {
			int c = FLOOR + (k + i) % (NR_CONF - 1);

			if ((tps[c] = run_conf(&pg, c, i, secs, &cpu[c][i], &since[c][i])) < 0 ||
			    (none[k + 1] = run_conf(&pg, NONE, i, secs, &no_cpu, &no_since)) < 0)
				fail = 1;
			else
				cost[c][i] = 1 - tps[c] / ((none[k] + none[k + 1]) / 2);
		}
		if (fail)
			break;
		for (int k = 0; k < NR_CONF; k++)
			mean += none[k] / NR_CONF;
		printf("  %5d %10.0f", i + 1, mean);
		for (int c = FLOOR; c < NR_CONF; c++)
			printf(" %9.0f (%5.1f%%)", tps[c], 100 * cost[c][i]);
		printf("\n");
		for (int c = RECORD; c < NR_CONF; c++) {
			ratio[c][i] = cost[PERF][i] > 0 ? cost[c][i] / cost[PERF][i] : 99;
			cpu_ratio[c][i] = cpu[PERF][i] > 0 ? cpu[c][i] / cpu[PERF][i] : 99;
			since_ratio[c][i] = since[PERF][i] > 0 ? since[c][i] / since[PERF][i] : 99;
		}
		printf("  %5s %10s %18s", "", "CPU ms/s", "");
		for (int c = PERF; c < NR_CONF; c++)
			printf(" %18.1f", 1000 * cpu[c][i] / secs);
		printf("\n  %5s %10s %18s", "", "of which", "from pgbench on");
		for (int c = PERF; c < NR_CONF; c++)
			printf(" %18.1f", 1000 * since[c][i] / secs);
		printf("\n");
	}
	pgload_stop(&pg);
	if (!fail) {
		printf("  cost (1 - tps / unrecorded tps either side), median of %d rounds:\n",
		       rounds);
		for (int c = FLOOR; c < NR_CONF; c++)
			printf("    %-24s %5.1f%%\n", conf_name[c], 100 * median(cost[c], rounds));
		for (int c = RECORD; c < NR_CONF; c++) {
			double m = median(ratio[c], rounds);

			printf("  %-24s cost / perf's cost %.2f (median of per-round ratios; target "
			       "<= 0.5): %s\n",
			       conf_name[c], m, m <= 0.5 ? "met" : "MISSED");
			fail |= m > 0.5;
		}
		/*
		 * Not the target's measure, but ones the host's drift does not move much: what
		 * the recorder process itself spent (its threads, from wait4), which on this
		 * 2-CPU machine the workload loses, and the part of it from pgbench's start
		 * on, without the recorder's own start. The tracepoints' cost in the
		 * workload's own context is in neither (the "tracepoints alone" column is that,
		 * for schedlens).
		 */
		for (int c = RECORD; c < NR_CONF; c++)
			printf("  %-24s own CPU / perf's own CPU %.2f in all, %.2f from pgbench's "
			       "start on (medians of per-round ratios)\n",
			       conf_name[c], median(cpu_ratio[c], rounds),
			       median(since_ratio[c], rounds));
	}
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (fail)
		printf("bench-livecost: the recorders' logs are kept in %s\n", dir);
	else if (system(rm) != 0)
		fprintf(stderr, "bench-livecost: cannot remove %s\n", dir);
	return fail;
}
