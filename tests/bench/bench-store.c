// SPDX-License-Identifier: GPL-2.0-only
/*
 * Store benchmark: wakeup rows per second through the writer (push to commit, WAL,
 * synchronous=NORMAL, a real file under $TMPDIR), bytes per wakeup row and per window row
 * as measured by SQLite's dbstat. Then bytes per source event of every table, its indexes
 * included (B/event, pages, bytes), and of the whole file, for a database holding one run: a synthesized pgbench
 * (slsynth's llc-scan on the guest16 shape, stored through a session as a recording is; no
 * root needed), and a real recording: `schedlens record -o DB -- pgbench -S ...` on a
 * PostgreSQL 15 cluster of our own (tests/bench/pg-cluster). Bytes are dbstat's whole
 * pages (free space in them included) divided by runs.events; dbstat is in Debian's
 * SQLite (SQLITE_ENABLE_DBSTAT_VTAB); without it only the file total is printed. The
 * recording is skipped, and said so, without root or PostgreSQL.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../synth/synth-db.h"
#include "error.h"
#include "pgload.h"
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

static int fail(int err);

/*
 * Bytes per event of every table of the database at path (one run, of events source
 * events), indexes counted with their table, largest first; then the total of dbstat's
 * pages and the file's (page_count x page_size: the free list and the WAL-less header
 * page too). "store: bytes/event <what>:" starts every line, for grep.
 */
static int bytes_per_event(const char *path, const char *what, const char *desc)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int64_t events, file, sum = 0;
	int rc;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "bench-store: cannot open '%s'\n", path);
		sqlite3_close(h);
		return 1;
	}
	events = q_int(h, "SELECT sum(events) FROM runs");
	file = q_int(h, "SELECT page_count * page_size FROM pragma_page_count, "
			"pragma_page_size");
	printf("store: bytes/event %s: %s: %lld events in %lld run(s), file %.1f MB\n", what, desc,
	       (long long)events, (long long)q_int(h, "SELECT count(*) FROM runs"), file / 1e6);
	if (events <= 0) {
		sqlite3_close(h);
		return 1;
	}
	/* indexes (and the autoindexes of UNIQUE and PRIMARY KEY) belong to their table */
	rc = sqlite3_prepare_v2(h,
				"SELECT coalesce(m.tbl_name, d.name) AS t, sum(d.pgsize), "
				"sum(d.pgsize) FILTER (WHERE m.type = 'index'), count(*) "
				"FROM dbstat AS d LEFT JOIN sqlite_schema AS m ON m.name = d.name "
				"GROUP BY t ORDER BY 2 DESC, t",
				-1, &st, NULL);
	if (rc != SQLITE_OK) {
		printf("store: bytes/event %s: no dbstat in this SQLite (%s): total only: "
		       "%.2f B/event\n",
		       what, sqlite3_errmsg(h), (double)file / events);
		sqlite3_close(h);
		return 0;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 1), ib = sqlite3_column_int64(st, 2);

		sum += b;
		if (b == 0)
			continue;
		printf("store: bytes/event %s:   %-20s %8.3f B/event  (%lld pages, %lld B, of "
		       "them indexes %lld B)\n",
		       what, (const char *)sqlite3_column_text(st, 0), (double)b / events,
		       (long long)sqlite3_column_int64(st, 3), (long long)b, (long long)ib);
	}
	sqlite3_finalize(st);
	printf("store: bytes/event %s:   %-20s %8.3f B/event  (dbstat pages %lld B; whole "
	       "file %.3f B/event)\n",
	       what, "TOTAL", (double)sum / events, (long long)sum, (double)file / events);
	sqlite3_close(h);
	return 0;
}

/* A synthesized pgbench on the guest16 shape, every row stored, into dir/synth.db. */
static int synth_bytes_per_event(const char *dir)
{
	const char *src = getenv("SL_SRC");
	struct synth_db_opts o = { 0 };
	struct synth_config cfg;
	struct synth_truth truth;
	struct sl_topo *topo = NULL;
	char sysfs[600], db[600], cmd[2048];
	int err;

	snprintf(sysfs, sizeof(sysfs), "%s/sysfs", dir);
	snprintf(db, sizeof(db), "%s/synth.db", dir);
	snprintf(cmd, sizeof(cmd), "'%s/tests/fixtures/mksysfs' guest16 '%s'", src ? src : ".",
		 sysfs);
	if (system(cmd) != 0 || sl_topo_read(sysfs, &topo) < 0) {
		fprintf(stderr, "bench-store: cannot generate the guest16 sysfs (SL_SRC?)\n");
		return 1;
	}
	synth_config_default(&cfg, topo);
	cfg.policy = SYNTH_LLC_SCAN;
	cfg.duration_ns = 5000000000ull;
	o.db_path = db;
	err = synth_to_db(&cfg, &o, NULL, &truth);
	sl_topo_free(topo);
	if (err)
		return fail(err);
	synth_truth_free(&truth);
	err = bytes_per_event(db, "synth",
			      "slsynth llc-scan on guest16, 5 s simulated, every row stored");
	unlink(db);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sysfs);
	return system(cmd) ? 1 : err;
}

static int fail(int err)
{
	fprintf(stderr, "bench-store: %s\n", sl_errmsg(err));
	return 1;
}

/* Records pgbench with `schedlens record -o`, then measures the run's windows. */
static int windows_per_event(void)
{
	const char *build = getenv("SL_BUILD") ? getenv("SL_BUILD") : "build";
	char cli[512], db[512], sock[300];
	struct pgload pg;
	sqlite3 *h;
	int64_t events, rows, bytes, ibytes, runs;
	int r, status;
	pid_t pid;

	snprintf(cli, sizeof(cli), "%s/schedlens", build);
	if (geteuid() != 0 || access(cli, X_OK) != 0) {
		printf("store: windows bytes/event skipped (needs root and %s)\n", cli);
		return 0;
	}
	r = pgload_start(&pg);
	if (r == 2) {
		printf("store: windows bytes/event skipped (needs PostgreSQL 15, make deps)\n");
		return 0;
	}
	if (r) {
		fprintf(stderr, "bench-store: cannot start a PostgreSQL cluster\n");
		return 1;
	}
	snprintf(db, sizeof(db), "%s/run.db", pg.dir);
	snprintf(sock, sizeof(sock), "%s/sock", pg.dir);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		execl(cli, "schedlens", "record", "-d", "10", "-l", "bench-store", "-o", db, "--",
		      "runuser", "-u", "postgres", "--", "/usr/lib/postgresql/15/bin/pgbench", "-h",
		      sock, "-p", PGLOAD_PORT, "-U", "postgres", "-S", "-c", "8", "-j", "2", "-T",
		      "8", "postgres", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "bench-store: schedlens record failed\n");
		pgload_stop(&pg);
		return 1;
	}
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "bench-store: cannot open '%s'\n", db);
		pgload_stop(&pg);
		return 1;
	}
	runs = q_int(h, "SELECT count(*) FROM runs");
	events = q_int(h, "SELECT events FROM runs ORDER BY id DESC LIMIT 1");
	rows = q_int(h, "SELECT count(*) FROM windows");
	bytes = q_int(h, "SELECT sum(pgsize) FROM dbstat WHERE name = 'windows'");
	ibytes = q_int(h, "SELECT sum(pgsize) FROM dbstat WHERE name = 'windows_by_run'");
	printf("store: a real recording (schedlens record -o, pgbench -S -c 8 -j 2 -T 8; "
	       "%lld run): %lld source events, %lld window rows (%.1f per second of recording)\n",
	       (long long)runs, (long long)events, (long long)rows,
	       rows / (double)q_int(h, "SELECT max(1, (end_ns - start_ns) / 1000000000) FROM "
				       "runs ORDER BY id DESC LIMIT 1"));
	printf("store: windows bytes/event: %.3f (table %lld B + index %lld B, dbstat page "
	       "bytes, over runs.events; table alone %.3f; average row %.0f B)\n",
	       events > 0 ? (double)(bytes + ibytes) / events : 0, (long long)bytes,
	       (long long)ibytes, events > 0 ? (double)bytes / events : 0,
	       rows > 0 ? (double)bytes / rows : 0);
	sqlite3_close(h);
	r = bytes_per_event(db, "pgbench", "schedlens record -o of pgbench -S -c 8 -j 2 -T 8");
	pgload_stop(&pg); /* removes the cluster's dir, db with it */
	return r;
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

	setvbuf(stdout, NULL, _IOLBF, 0); /* or forked children repeat what is buffered */
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

	bytes = q_int(sl_store_db(st), "SELECT sum(pgsize) FROM dbstat WHERE name IN "
				       "('wakeups_seg', 'wakeups_seg_run')");
	printf("store: wakeups (segments and index) %.1f MB: %.1f bytes per wakeup row\n",
	       (double)bytes / 1e6, (double)bytes / ROWS);
	bytes = q_int(sl_store_db(st), "SELECT sum(pgsize) FROM dbstat WHERE name IN "
				       "('windows', 'windows_by_run')");
	printf("store: windows table + index: %.0f bytes per window row (histogram of 90 k "
	       "values included: %lld bytes average blob)\n",
	       (double)bytes / WINDOWS,
	       (long long)q_int(sl_store_db(st), "SELECT avg(length(lat_hist)) FROM windows"));
	sl_store_close(st);
	unlink(path);
	err = synth_bytes_per_event(dir);
	rmdir(dir);
	return err ? err : windows_per_event();
}
