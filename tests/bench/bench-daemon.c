// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's cost while it records pgbench -S (docs/architecture.md: under 3% of one core at
 * 200k events/s): schedlensd runs with its defaults on a temporary database (plus the flags
 * in $SL_BENCH_ARGS, split on spaces), pgbench runs, and over each of $SL_BENCH_REPS (3)
 * intervals of 10 s we print the daemon's CPU time (every thread's schedstat under
 * /proc/<pid>/task) over the wall time, split by thread (sl-reader threads; the main thread,
 * which merges and runs the engine; sl-writer; the rest: HTTP), the event rate it saw (its
 * own /api/v1/status), the share scaled to 200k events/s, and lost events; then the median
 * and the spread, as the host is shared and noisy. Real measurements only; skips (exit 0)
 * without root or PostgreSQL 15.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgload.h"

#define PORT 19391
#define MAX_REPS 10
#define MAX_ARGS 32

enum { T_READER, T_MAIN, T_WRITER, T_OTHER, T_CLASSES };
static const char *const class_names[T_CLASSES] = { "readers", "main (merge+engine)", "writer",
						    "http+other" };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * CPU time of a thread in seconds, from its schedstat (ns) or, failing that, its stat
 * (clock ticks, too coarse for 10 s at a few percent); -1 if gone.
 */
static double stat_cpu_s(const char *dir)
{
	char path[320], buf[1024], *p;
	unsigned long long ut, st, ns;
	FILE *f;

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	if ((f = fopen(path, "r"))) {
		int n = fscanf(f, "%llu", &ns);

		fclose(f);
		if (n == 1)
			return ns / 1e9;
	}
	snprintf(path, sizeof(path), "%s/stat", dir);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/*
 * CPU seconds of pid's threads by class, into cls[]; returns the process total (exited
 * threads included) or -1. Threads are told apart by the names the library gives them.
 */
static double cpu_s(pid_t pid, double cls[T_CLASSES])
{
	char path[300], comm[64];
	struct dirent *de;
	double t;
	DIR *dir;

	memset(cls, 0, sizeof(double) * T_CLASSES);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(dir = opendir(path)))
		return -1;
	while ((de = readdir(dir))) {
		FILE *f;
		int c;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s", pid, de->d_name);
		if ((t = stat_cpu_s(path)) < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, de->d_name);
		comm[0] = '\0';
		if ((f = fopen(path, "r"))) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		c = atoi(de->d_name) == pid	   ? T_MAIN :
		    !strncmp(comm, "sl-reader", 9) ? T_READER :
		    !strncmp(comm, "sl-writer", 9) ? T_WRITER :
						     T_OTHER;
		cls[c] += t;
	}
	closedir(dir);
	t = 0;
	for (int c = 0; c < T_CLASSES; c++)
		t += cls[c];
	return t;
}

/* A number field of GET /api/v1/status, or -1. */
static double status_field(const char *field)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	char buf[8192], key[64], *p;
	size_t len = 0;
	ssize_t r;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	const char req[] = "GET /api/v1/status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (len < sizeof(buf) - 1 && (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += r;
	close(fd);
	buf[len] = '\0';
	snprintf(key, sizeof(key), "\"%s\":", field);
	p = strstr(buf, key);
	return p ? strtod(p + strlen(key), NULL) : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	const char *build = getenv("SL_BUILD") ? getenv("SL_BUILD") : "build";
	const char *extra = getenv("SL_BENCH_ARGS") ? getenv("SL_BENCH_ARGS") : "";
	char bin[512], db[] = "/tmp/sl-bench-daemon.XXXXXX", dbfile[600], listen[32], args[512];
	char *argv[MAX_ARGS + 10];
	int reps = getenv("SL_BENCH_REPS") ? atoi(getenv("SL_BENCH_REPS")) : 3, nr_ok = 0;
	double per200k[MAX_REPS], cls0[T_CLASSES], cls1[T_CLASSES];
	struct pgload pg;
	pid_t d, load;
	int r, status, argc = 0;

	if (reps < 1 || reps > MAX_REPS)
		reps = 3;
	if (geteuid() != 0) {
		printf("bench-daemon: skipped (needs root)\n");
		return 0;
	}
	r = pgload_start(&pg);
	if (r) {
		printf("bench-daemon: skipped (PostgreSQL 15 cluster: %s)\n",
		       r == 2 ? "missing" : "failed");
		return r == 2 ? 0 : 1;
	}
	if (!mkdtemp(db)) {
		pgload_stop(&pg);
		return 1;
	}
	snprintf(bin, sizeof(bin), "%s/schedlensd", build);
	snprintf(dbfile, sizeof(dbfile), "%s/sl.db", db);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", PORT);
	snprintf(args, sizeof(args), "%s", extra);
	argv[argc++] = "schedlensd";
	argv[argc++] = "--db";
	argv[argc++] = dbfile;
	argv[argc++] = "--listen";
	argv[argc++] = listen;
	argv[argc++] = "--log-level";
	argv[argc++] = "warning";
	for (char *save, *a = strtok_r(args, " ", &save); a && argc < MAX_ARGS;
	     a = strtok_r(NULL, " ", &save))
		argv[argc++] = a;
	argv[argc] = NULL;
	d = fork();
	if (d == 0) {
		execv(bin, argv);
		_exit(127);
	}
	for (int i = 0; i < 50 && status_field("events") < 0; i++)
		usleep(100000);
	sleep(2);
	load = pgload_run(&pg, 10 * reps + 2);
	sleep(1); /* pgbench connects */
	printf("bench-daemon: schedlensd (defaults%s%s) recording pgbench -S -c 8 -j 2, "
	       "%d x 10 s\n",
	       extra[0] ? ", " : "", extra, reps);
	for (int i = 0; i < reps; i++) {
		double t0, t1, c0, c1, e0, e1, lost, wall, share, rate;

		t0 = now_s();
		c0 = cpu_s(d, cls0);
		e0 = status_field("events");
		sleep(10);
		t1 = now_s();
		c1 = cpu_s(d, cls1);
		e1 = status_field("events");
		lost = status_field("lost_events");
		if (c0 < 0 || c1 < 0 || e0 < 0 || e1 < 0) {
			fprintf(stderr,
				"bench-daemon: could not measure (daemon not answering?)\n");
			break;
		}
		wall = t1 - t0;
		share = (c1 - c0) / wall;
		rate = (e1 - e0) / wall;
		per200k[nr_ok++] = rate > 0 ? 100 * share * 200000 / rate : 0;
		printf("  %.1f s: %.0f events/s, CPU %.2f s = %.2f%% of one core, %.2f%% per 200k "
		       "events/s (budget 3%%), lost %.0f; by thread (%% of one core):",
		       wall, rate, c1 - c0, 100 * share, per200k[nr_ok - 1], lost);
		for (int c = 0; c < T_CLASSES; c++)
			printf(" %s %.2f", class_names[c], 100 * (cls1[c] - cls0[c]) / wall);
		printf("\n");
	}
	waitpid(load, &status, 0);
	kill(d, SIGTERM);
	waitpid(d, &status, 0);
	pgload_stop(&pg);
	snprintf(bin, sizeof(bin), "rm -rf '%s'", db);
	if (system(bin) != 0)
		fprintf(stderr, "bench-daemon: cannot remove '%s'\n", db);
	if (!nr_ok)
		return 1;
	qsort(per200k, nr_ok, sizeof(per200k[0]), cmp_double);
	printf("bench-daemon: %.2f%% of one core per 200k events/s (median of %d; min %.2f, max "
	       "%.2f; budget 3%%), daemon exit %d\n",
	       per200k[nr_ok / 2], nr_ok, per200k[0], per200k[nr_ok - 1],
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
