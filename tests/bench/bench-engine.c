// SPDX-License-Identifier: GPL-2.0-only
/*
 * Engine benchmark on a real stream: records pgbench -S -c 8 -j 2 -T 5 (a PostgreSQL 15
 * cluster of our own) with the live recorder into memory, then replays the stream from
 * memory through a fresh engine several times (topology of this host, default config,
 * a sink that only counts records: no store I/O) and prints events per CPU-second of the
 * replay (CLOCK_PROCESS_CPUTIME_ID; the process runs nothing else meanwhile), peak RSS
 * (ru_maxrss, with the recorded stream's own size to subtract) and the engine's peaks.
 * Falls back to hackbench when PostgreSQL is missing; skips without root.
 *
 * For profiling the replay alone: SL_BENCH_STREAM_SAVE=FILE also writes the stream (and
 * the tgids) to FILE; SL_BENCH_STREAM=FILE replays FILE instead of recording, without
 * root, e.g. under `valgrind --tool=callgrind`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "error.h"
#include "pgload.h"
#include "recorder.h"
#include "topo.h"

#define PASSES 5
#define PID_TABLE (1 << 22) /* pid_max's ceiling */

struct stream {
	struct sl_event *ev;
	size_t n, cap;
};

static int append(void *ctx, const struct sl_event *ev, size_t n)
{
	struct stream *s = ctx;

	if (s->n + n > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1 << 16;
		struct sl_event *p;

		while (cap < s->n + n)
			cap *= 2;
		p = realloc(s->ev, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->ev = p;
		s->cap = cap;
	}
	memcpy(s->ev + s->n, ev, n * sizeof(*ev));
	s->n += n;
	return 0;
}

struct counts {
	uint64_t slices, wakeups, preempts, tasks, windows;
};

static void c_slice(void *ctx, const struct sl_slice_rec *r)
{
	((struct counts *)ctx)->slices++;
}
static void c_wakeup(void *ctx, const struct sl_wakeup_rec *r)
{
	((struct counts *)ctx)->wakeups++;
}
static void c_preempt(void *ctx, const struct sl_preempt_rec *r)
{
	((struct counts *)ctx)->preempts++;
}
static void c_task(void *ctx, const struct sl_task_rec *r)
{
	((struct counts *)ctx)->tasks++;
}
static void c_window(void *ctx, const struct sl_window_rec *r)
{
	((struct counts *)ctx)->windows++;
}

/* tgids saved by the recorder (record-tgid) for the pids of the stream, by pid */
static int32_t *tgids;

static int32_t tgid_of(void *ctx, int32_t pid)
{
	return pid >= 0 && pid < PID_TABLE && tgids[pid] ? tgids[pid] : -1;
}

static void note_tgid(struct sl_recorder *rec, int32_t pid)
{
	if (pid > 0 && pid < PID_TABLE && !tgids[pid])
		tgids[pid] = sl_recorder_tgid(rec, pid);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static pid_t spawn_hackbench(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execl("/usr/bin/hackbench", "hackbench", "-g", "8", "-l", "1000", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Records the workload into s. Returns 0 or 1. */
static int record(struct stream *s, const char **ret_what)
{
	struct sl_recorder_opts opts = { .on_batch = append, .ctx = s };
	struct sl_recorder *rec = NULL;
	struct pgload pg;
	int r, status, pgr;
	pid_t pid;

	pgr = pgload_start(&pg);
	if (pgr == 1) {
		fprintf(stderr, "bench-engine: cannot start a PostgreSQL cluster\n");
		return 1;
	}
	*ret_what = pgr ? "hackbench -g 8 -l 1000 (no PostgreSQL 15)" : "pgbench -S -c 8 -j 2 -T 5";
	if ((r = sl_recorder_open(&opts, &rec)) < 0 || (r = sl_recorder_start(rec)) < 0) {
		fprintf(stderr, "bench-engine: %s\n", sl_errmsg(r));
		sl_recorder_close(rec);
		pgload_stop(&pg);
		return 1;
	}
	pid = pgr ? spawn_hackbench() : pgload_run(&pg, 5);
	while (pid > 0 && waitpid(pid, &status, WNOHANG) != pid)
		if ((r = sl_recorder_poll(rec, 50)) < 0)
			break;
	sl_recorder_stop(rec);
	for (size_t i = 0; i < s->n; i++) {
		note_tgid(rec, s->ev[i].common_pid);
		if (s->ev[i].type == SL_EV_SWITCH) {
			note_tgid(rec, s->ev[i].sw.prev_pid);
			note_tgid(rec, s->ev[i].sw.next_pid);
		} else if (s->ev[i].type <= SL_EV_WAKEUP_NEW) {
			note_tgid(rec, s->ev[i].wake.pid);
		}
	}
	sl_recorder_close(rec);
	pgload_stop(&pg);
	if (r < 0 || pid < 0) {
		fprintf(stderr, "bench-engine: recording failed: %s\n", sl_errmsg(r));
		return 1;
	}
	return 0;
}

/* The stream file: event count, events, then (pid, tgid) pairs of the known tgids. */
static int save_stream(const struct stream *s, const char *path)
{
	FILE *f = fopen(path, "w");
	uint64_t n = s->n;
	int ok;

	if (!f)
		return 1;
	ok = fwrite(&n, sizeof(n), 1, f) == 1 && fwrite(s->ev, sizeof(*s->ev), n, f) == n;
	for (int32_t pid = 1; ok && pid < PID_TABLE; pid++)
		if (tgids[pid])
			ok = fwrite(&pid, 4, 1, f) == 1 && fwrite(&tgids[pid], 4, 1, f) == 1;
	return fclose(f) || !ok;
}

static int load_stream(struct stream *s, const char *path)
{
	FILE *f = fopen(path, "r");
	int32_t pt[2];
	uint64_t n;

	if (!f || fread(&n, sizeof(n), 1, f) != 1 || !(s->ev = malloc(n * sizeof(*s->ev))) ||
	    fread(s->ev, sizeof(*s->ev), n, f) != n) {
		if (f)
			fclose(f);
		return 1;
	}
	s->n = s->cap = n;
	while (fread(pt, 4, 2, f) == 2)
		if (pt[0] > 0 && pt[0] < PID_TABLE)
			tgids[pt[0]] = pt[1];
	fclose(f);
	return 0;
}

int main(void)
{
	struct stream s = { 0 };
	struct sl_engine_stats es = { 0 };
	struct counts cnt = { 0 };
	struct sl_topo *topo = NULL;
	const char *what = "";
	double t0, t, best = 0, total = 0;
	long rss0;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tgids = calloc(PID_TABLE, sizeof(*tgids));
	if (!tgids)
		return 1;
	if (getenv("SL_BENCH_STREAM")) {
		what = getenv("SL_BENCH_STREAM");
		if (load_stream(&s, what)) {
			fprintf(stderr, "bench-engine: cannot read '%s'\n", what);
			return 1;
		}
	} else if (geteuid() != 0) {
		printf("bench-engine: skipped (needs root to record a stream)\n");
		return 0;
	} else if (record(&s, &what)) {
		return 1;
	}
	if (getenv("SL_BENCH_STREAM_SAVE") && save_stream(&s, getenv("SL_BENCH_STREAM_SAVE"))) {
		fprintf(stderr, "bench-engine: cannot write '%s'\n",
			getenv("SL_BENCH_STREAM_SAVE"));
		return 1;
	}
	if ((r = sl_topo_read(NULL, &topo)) < 0) {
		fprintf(stderr, "bench-engine: %s\n", sl_errmsg(r));
		return 1;
	}
	rss0 = maxrss_kb();
	for (int p = 0; p < PASSES; p++) {
		struct sl_engine_sink sink = { .ctx = &cnt,
					       .slice = c_slice,
					       .wakeup = c_wakeup,
					       .preempt = c_preempt,
					       .task = c_task,
					       .window = c_window };
		struct sl_engine_config cfg;
		struct sl_engine *e;

		sl_engine_config_default(&cfg);
		cfg.topo = topo;
		cfg.tgid_of = tgid_of;
		memset(&cnt, 0, sizeof(cnt));
		t0 = cpu_s();
		if ((r = sl_engine_new(&cfg, &sink, &e)) < 0) {
			fprintf(stderr, "bench-engine: %s\n", sl_errmsg(r));
			return 1;
		}
		/* in the recorder's batch size, as a live session is fed */
		for (size_t i = 0; i < s.n; i += 4096)
			sl_engine_feed(e, s.ev + i, s.n - i < 4096 ? s.n - i : 4096);
		sl_engine_finish(e, 0);
		sl_engine_get_stats(e, &es);
		sl_engine_free(e);
		t = cpu_s() - t0;
		total += t;
		if (!best || t < best)
			best = t;
	}
	printf("bench-engine: %s recorded into memory: %zu events (%.1f MB), this host's "
	       "topology\n",
	       what, s.n, s.n * sizeof(*s.ev) / 1e6);
	printf("  replay x%d from memory, counting sink: %.2f M events per CPU-second "
	       "(mean; best pass %.2f M)\n",
	       PASSES, PASSES * s.n / total / 1e6, s.n / best / 1e6);
	printf("  records per pass: %llu wakeups, %llu preemptions (%llu lhp), %llu slices, "
	       "%llu tasks, %llu windows\n",
	       (unsigned long long)cnt.wakeups, (unsigned long long)cnt.preempts,
	       (unsigned long long)es.lhp, (unsigned long long)cnt.slices,
	       (unsigned long long)cnt.tasks, (unsigned long long)cnt.windows);
	printf("  peak RSS %.1f MB (%.1f MB before the replays, the stream included); "
	       "engine peaks: %zu tasks, %zu open preemptions; switch_mismatch %llu\n",
	       maxrss_kb() / 1024.0, rss0 / 1024.0, es.tasks_peak, es.open_preempts_peak,
	       (unsigned long long)es.switch_mismatch);
	sl_topo_free(topo);
	free(s.ev);
	free(tgids);
	return 0;
}
