// SPDX-License-Identifier: GPL-2.0-only
/*
 * Import benchmark beside perf. One hackbench workload is traced twice on this host: by a
 * tracefs instance, whose events are written both as ftrace text and, through
 * `trace-cmd extract`, as a trace.dat (tests/bench/mk-import-traces), and by
 * `perf sched record`. Then `schedlens import` (the library call, in this process) reads
 * the trace.dat and the text with per-event rows stored, with windows only, and without a
 * store, and `perf sched timehist -s` analyses perf.data. Each figure is events per
 * CPU-second: events the tool read over the CPU time it spent (import: the process's
 * CPU clock, the writer thread included, plus the libtracecmd child when a trace.dat needs
 * it (lib/import/import-dat.c; not this one); perf: the child's user + system time from wait4()),
 * the median of RUNS rounds; each round runs every configuration and perf once, and the ratios to perf
 * are the median of the per-round ratios, so that the load of a busy host (CPU-s grow
 * with it) weighs on both sides alike. perf's events are the samples in perf.data
 * (`perf script | wc -l`); the two recordings of the workload differ in size and perf
 * also records sched_stat_runtime, hence per CPU-second. Needs root, hackbench, perf and
 * trace-cmd; says what is missing otherwise. SL_BENCH_IMPORT_ARGS overrides the
 * hackbench arguments (default "-g 8 -l 3000").
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "import.h"
#include "topo.h"

#define RUNS 5

struct figure {
	const char *what;
	uint64_t events;
	double cpu_s[RUNS];
	char reader[16]; /* trace.dat: which reader read it (lib/import/import-dat.h) */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v)
{
	double s[RUNS];

	memcpy(s, v, sizeof(s));
	qsort(s, RUNS, sizeof(s[0]), cmp_double);
	return s[RUNS / 2];
}

static void print_figure(const struct figure *f)
{
	double cpu = median(f->cpu_s);

	printf("  %-40s %10llu events  %7.3f CPU-s  %6.2f M events/CPU-s\n", f->what,
	       (unsigned long long)f->events, cpu, cpu > 0 ? f->events / cpu / 1e6 : 0);
}

/* Import run r of one configuration into f->cpu_s[r]. */
static int import(const char *dir, const char *file, bool store, bool windows_only,
		  const struct sl_topo *topo, int r, struct figure *f)
{
	struct sl_import_opts o = { .topo = topo, .label = "bench-import" };
	struct sl_import_result res;
	char path[4096], db[4096];
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	snprintf(db, sizeof(db), "%s/run%d.db", dir, r);
	unlink(db);
	o.path = path;
	if (store)
		o.db_path = db;
	o.windows_only = windows_only;
	err = sl_import_run(&o, &res);
	if (err < 0 || res.session.writer.dropped[SL_ROW_SLICE] ||
	    res.session.writer.dropped[SL_ROW_FACT]) {
		printf("import: '%s' failed: %s\n", path,
		       err < 0 ? sl_errmsg(err) : "rows dropped");
		sl_import_result_free(&res);
		return -1;
	}
	f->events = res.events_total;
	snprintf(f->reader, sizeof(f->reader), "%s", res.dat_reader);
	f->cpu_s[r] = res.cpu_s;
	sl_import_result_free(&res);
	unlink(db);
	return 0;
}

/* perf's events: the samples in perf.data. */
static int perf_events(const char *dir, struct figure *f)
{
	char cmd[4200], line[64];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf script -i '%s/perf.data' 2>/dev/null | wc -l", dir);
	p = popen(cmd, "r");
	if (!p || !fgets(line, sizeof(line), p)) {
		if (p)
			pclose(p);
		return -1;
	}
	pclose(p);
	f->events = strtoull(line, NULL, 10);
	return 0;
}

/*
 * Run r of perf sched timehist -s over perf.data: the child's CPU time. posix_spawn, not
 * fork: a fork write-protects every page of this process, and the next import paid a
 * copy-on-write fault for each heap page it wrote again (about 0.1 CPU-s of the trace.dat
 * import's 0.26 here, the configuration that ran first after perf).
 */
static int perf_timehist(const char *dir, int r, struct figure *f)
{
	char data[4096];
	char *argv[] = { "perf", "sched", "timehist", "-s", "-i", data, NULL };
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	int status, err;
	pid_t pid;

	snprintf(data, sizeof(data), "%s/perf.data", dir);
	if (posix_spawn_file_actions_init(&fa))
		return -1;
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	err = posix_spawnp(&pid, "perf", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return -1;
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	f->cpu_s[r] = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		      ru.ru_stime.tv_usec / 1e6;
	return 0;
}

/* The median over the rounds of f's rate over perf's in the same round. */
static double ratio(const struct figure *f, const struct figure *perf)
{
	double v[RUNS];

	for (int r = 0; r < RUNS; r++)
		v[r] = f->cpu_s[r] > 0 && perf->cpu_s[r] > 0 ?
			       (f->events / f->cpu_s[r]) / (perf->events / perf->cpu_s[r]) :
			       0;
	return median(v);
}

int main(void)
{
	const char *src = getenv("SL_SRC"), *args = getenv("SL_BENCH_IMPORT_ARGS");
	const char *tools[] = { "/usr/bin/hackbench", "/usr/bin/perf", "/usr/bin/trace-cmd" };
	struct figure dat_store = { "trace.dat import (analysis + store)" };
	struct figure text_store = { "text import (analysis + store)" };
	struct figure dat_win = { "trace.dat import --windows-only" };
	struct figure text_win = { "text import --windows-only" };
	struct figure dat_none = { "trace.dat analysis only (no store)" };
	struct figure text_none = { "text analysis only (no store)" };
	struct figure perf = { "perf sched timehist -s (perf.data)" };
	struct sl_topo *topo = NULL;
	char dir[] = "/var/tmp/sl-bench-import-XXXXXX", cmd[8192];

	if (geteuid() != 0) {
		printf("import: skipped (needs root to trace the workload)\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (access(tools[i], X_OK)) {
			printf("import: skipped (needs %s)\n", tools[i]);
			return 0;
		}
	}
	if (!args)
		args = "-g 8 -l 3000";
	/* /var/tmp: the traces are hundreds of MB, too big for a tmpfs /tmp on small hosts */
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "'%s/tests/bench/mk-import-traces' '%s' %s", src ? src : ".",
		 dir, args);
	if (system(cmd)) {
		printf("import: mk-import-traces failed\n");
		goto fail;
	}
	if (sl_topo_read("/", &topo) < 0)
		topo = NULL;
	if (perf_events(dir, &perf)) {
		printf("import: perf script failed\n");
		goto fail;
	}
	/* rounds: every configuration and perf once each, so that a change in the host's load
	 * touches all of them alike; the ratios are taken within each round */
	for (int r = 0; r < RUNS; r++) {
		if (import(dir, "w.dat", true, false, topo, r, &dat_store) ||
		    import(dir, "w.txt", true, false, topo, r, &text_store) ||
		    import(dir, "w.dat", true, true, topo, r, &dat_win) ||
		    import(dir, "w.txt", true, true, topo, r, &text_win) ||
		    import(dir, "w.dat", false, false, topo, r, &dat_none) ||
		    import(dir, "w.txt", false, false, topo, r, &text_none))
			goto fail;
		if (perf_timehist(dir, r, &perf)) {
			printf("import: perf sched timehist -s failed\n");
			goto fail;
		}
	}
	printf("import: hackbench %s traced on this host; median of %d rounds; trace.dat read by "
	       "%s\n",
	       args, RUNS, dat_win.reader);
	print_figure(&dat_store);
	print_figure(&text_store);
	print_figure(&dat_win);
	print_figure(&text_win);
	print_figure(&dat_none);
	print_figure(&text_none);
	print_figure(&perf);
	printf("  vs perf (target 2x; median of the per-round ratios): trace.dat+store %.2fx, "
	       "text+store %.2fx, trace.dat windows-only %.2fx, text windows-only %.2fx\n",
	       ratio(&dat_store, &perf), ratio(&text_store, &perf), ratio(&dat_win, &perf),
	       ratio(&text_win, &perf));
	sl_topo_free(topo);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? 1 : 0;
fail:
	sl_topo_free(topo);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 1;
	return 1;
}
