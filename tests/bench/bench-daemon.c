// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's cost while it records pgbench -S (DESIGN.md budget: under 3% of one core at
 * 200k events/s): schedlensd runs with its defaults on a temporary database, pgbench runs
 * 10 s, and we print the daemon's CPU time (all its threads, /proc/<pid>/stat) over the wall
 * time, the event rate it saw (its own /api/v1/status), the share scaled to 200k events/s,
 * and lost events. Real measurements only; skips (exit 0) without root or PostgreSQL 15.
 */
#include <arpa/inet.h>
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* utime + stime of every thread of pid, in seconds. */
static double cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
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

int main(void)
{
	const char *build = getenv("SL_BUILD") ? getenv("SL_BUILD") : "build";
	char bin[512], db[] = "/tmp/sl-bench-daemon.XXXXXX", dbfile[600], listen[32];
	struct pgload pg;
	double t0, t1, c0, c1, e0, e1, lost;
	pid_t d, load;
	int r, status;

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
	d = fork();
	if (d == 0) {
		execl(bin, "schedlensd", "--db", dbfile, "--listen", listen, "--log-level",
		      "warning", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 50 && status_field("events") < 0; i++)
		usleep(100000);
	sleep(2);
	load = pgload_run(&pg, 12);
	sleep(1); /* pgbench connects */
	t0 = now_s();
	c0 = cpu_s(d);
	e0 = status_field("events");
	sleep(10);
	t1 = now_s();
	c1 = cpu_s(d);
	e1 = status_field("events");
	lost = status_field("lost_events");
	waitpid(load, &status, 0);
	kill(d, SIGTERM);
	waitpid(d, &status, 0);
	pgload_stop(&pg);
	snprintf(bin, sizeof(bin), "rm -rf '%s'", db);
	if (system(bin) != 0)
		fprintf(stderr, "bench-daemon: cannot remove '%s'\n", db);
	if (c0 < 0 || c1 < 0 || e0 < 0 || e1 < 0) {
		fprintf(stderr, "bench-daemon: could not measure (daemon not answering?)\n");
		return 1;
	}
	{
		double wall = t1 - t0, share = (c1 - c0) / wall, rate = (e1 - e0) / wall;

		printf("bench-daemon: schedlensd (defaults) recording pgbench -S -c 8 -j 2 for %.1f s: "
		       "%.0f events/s, CPU %.2f s = %.2f%% of one core, %.2f%% per 200k events/s "
		       "(budget 3%%), lost %.0f, exit %d\n",
		       wall, rate, c1 - c0, 100 * share, rate > 0 ? 100 * share * 200000 / rate : 0,
		       lost, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	return 0;
}
