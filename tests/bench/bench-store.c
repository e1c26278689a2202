// SPDX-License-Identifier: GPL-2.0-only
/*
 * Store benchmark: wakeup rows per second through the writer (push to commit, WAL,
 * synchronous=NORMAL, a real file under $TMPDIR), bytes per wakeup row and per window row
 * as measured by SQLite's dbstat. Bytes per source event for windows needs a real
 * recording analysed by the engine, which does not exist yet: it says so rather than
 * guess.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "store.h"

#define ROWS 2000000
#define WINDOWS 2000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int fail(int err)
{
	fprintf(stderr, "bench-store: %s\n", sl_errmsg(err));
	return 1;
}

int main(void)
{
	struct sl_writer_opts o = { .capacity = 1 << 18 };
	struct sl_run_meta m = { .kernel_release = "bench" };
	struct sl_writer_stats s;
	struct sl_store *st;
	struct sl_writer *w;
	char path[512];
	uint64_t waits = 0;
	double t0, t1;
	int64_t run, bytes;
	int err;

	char dir[256];

	snprintf(dir, sizeof(dir), "%s/sl-bench.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/bench.db", dir);
	err = sl_store_open(path, SL_STORE_CREATE, &st);
	if (!err)
		err = sl_store_run_begin(st, &m, &run);
	if (!err)
		err = sl_writer_start(st, &o, &w);
	if (err)
		return fail(err);

	/* realistic values: pids, CPUs and latencies of a busy 2..64-CPU machine */
	t0 = now_s();
	for (uint64_t i = 0; i < ROWS; i++) {
		struct sl_wakeup_rec r = { .run_id = run,
					   .ts_ns = 1000000000000ull + i * 5537,
					   .latency_ns = 2000 + (i * 7919) % 90000,
					   .pid = (int32_t)(1000 + i % 300),
					   .waker_pid = (int32_t)(1000 + (i * 13) % 300),
					   .waker_cpu = (int32_t)(i % 64),
					   .prev_cpu = (int32_t)((i * 3) % 64),
					   .target_cpu = (int32_t)((i * 5) % 64),
					   .run_cpu = (int32_t)((i * 5) % 64),
					   .llc_idle = (uint16_t)(i % 4),
					   .class_prev = (uint8_t)(i % 5),
					   .class_waker = (uint8_t)((i / 3) % 5),
					   .target_state = (uint8_t)(i % 3),
					   .missed_idle = (uint8_t)(i % 7 == 0),
					   .policy_known = 0x1f,
					   .policy_agree = (uint8_t)(i % 32) };

		while (!sl_writer_push_wakeup(w, &r)) {
			waits++;
			usleep(50);
		}
	}
	err = sl_writer_flush(w);
	t1 = now_s();
	if (err)
		return fail(err);
	sl_writer_get_stats(w, &s);
	printf("store: writer inserted %llu wakeup rows in %.3f s: %.2f M rows/s "
	       "(producer waited for room %llu times, %llu commits)\n",
	       (unsigned long long)s.written[SL_ROW_WAKEUP], t1 - t0,
	       (double)s.written[SL_ROW_WAKEUP] / (t1 - t0) / 1e6, (unsigned long long)waits,
	       (unsigned long long)s.commits);

	for (int i = 0; i < WINDOWS; i++) {
		struct sl_window_rec win = { .run_id = run,
					     .start_ns = (uint64_t)i * 1000000000ull,
					     .dur_ns = 1000000000ull };

		snprintf(win.grp, sizeof(win.grp), "%s", i % 2 ? "postgres" : SL_GROUP_ALL);
		win.events = 180000;
		win.wakeups = 90000;
		for (int k = 0; k < SL_RREL_COUNT; k++) {
			win.class_prev[k] = 15000 + (uint64_t)(i * k) % 97;
			win.class_waker[k] = 15000 + (uint64_t)(i + k) % 89;
		}
		win.missed_idle = 1800 + (uint64_t)i % 50;
		win.preempt_wakeup = 2200;
		win.switches = 90000;
		/* a latency spread like pgbench's: 2 us .. 2 ms */
		for (uint64_t v = 0; v < 90000; v++)
			sl_hist_add(&win.latency, 2000 + (v * v * 7919 + (uint64_t)i) % 2000000);
		while (!sl_writer_push_window(w, &win))
			usleep(50);
	}
	err = sl_writer_stop(w);
	if (err)
		return fail(err);

	bytes = q_int(sl_store_db(st), "SELECT sum(pgsize) FROM dbstat WHERE name = 'wakeups'");
	printf("store: wakeups table %.1f MB: %.1f bytes per wakeup row\n", (double)bytes / 1e6,
	       (double)bytes / ROWS);
	bytes = q_int(sl_store_db(st), "SELECT sum(pgsize) FROM dbstat WHERE name IN "
				       "('windows', 'windows_by_run')");
	printf("store: windows table + index: %.0f bytes per window row (histogram of 90 k "
	       "values included: %lld bytes average blob)\n",
	       (double)bytes / WINDOWS,
	       (long long)q_int(sl_store_db(st), "SELECT avg(length(lat_hist)) FROM windows"));
	printf("store: windows bytes/event: needs a recording (engine not built yet)\n");
	sl_store_close(st);
	unlink(path);
	rmdir(dir);
	return 0;
}
