/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pgbench workload for benchmarks: a throwaway PostgreSQL 15 cluster (tests/bench/
 * pg-cluster) and `pgbench -S -c 8 -j 2 -T <secs>` against it, as the acceptance test
 * tests/integration/30-record-pgbench.t runs it. Header-only: each benchmark is one
 * program.
 */
#ifndef SL_BENCH_PGLOAD_H
#define SL_BENCH_PGLOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define PGLOAD_PORT "54339"

struct pgload {
	char dir[256];
	char script[512];
};

/* Starts the cluster (the script is found through $SL_SRC, else from the current
 * directory). Returns 0, 2 if PostgreSQL 15 or root is missing, else 1. */
static inline int pgload_start(struct pgload *pg)
{
	const char *src = getenv("SL_SRC") ? getenv("SL_SRC") : ".";
	char cmd[1024];
	int r;

	snprintf(pg->dir, sizeof(pg->dir), "/tmp/sl-pgbench.XXXXXX");
	if (!mkdtemp(pg->dir))
		return 1;
	snprintf(pg->script, sizeof(pg->script), "%s/tests/bench/pg-cluster", src);
	snprintf(cmd, sizeof(cmd), "PGPORT=%s '%s' start '%s'", PGLOAD_PORT, pg->script, pg->dir);
	r = system(cmd);
	if (r == -1 || !WIFEXITED(r) || WEXITSTATUS(r)) {
		/* the script removes nothing it did not make: the empty directory is ours */
		rmdir(pg->dir);
		pg->dir[0] = '\0';
		return WIFEXITED(r) && WEXITSTATUS(r) == 2 ? 2 : 1;
	}
	return 0;
}

/* Forks pgbench -S for secs seconds, its output to /dev/null; returns its pid or -1. */
static inline pid_t pgload_run(const struct pgload *pg, int secs)
{
	char sock[300], t[16];
	pid_t pid;

	snprintf(sock, sizeof(sock), "%s/sock", pg->dir);
	snprintf(t, sizeof(t), "%d", secs);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		execlp("runuser", "runuser", "-u", "postgres", "--",
		       "/usr/lib/postgresql/15/bin/pgbench", "-h", sock, "-p", PGLOAD_PORT, "-U",
		       "postgres", "-S", "-c", "8", "-j", "2", "-T", t, "postgres", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static inline void pgload_stop(struct pgload *pg)
{
	char cmd[1024];

	if (!pg->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "PGPORT=%s '%s' stop '%s'", PGLOAD_PORT, pg->script, pg->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "pg-cluster stop '%s' failed\n", pg->dir);
	pg->dir[0] = '\0';
}

#endif
