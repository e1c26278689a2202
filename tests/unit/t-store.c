// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of lib/store/store.c on real SQLite files: creating, migrating from empty and from
 * every earlier schema version, refusing newer files and files that are not ours, the
 * error for each kind of bad file (corrupt, read-only, locked, full), hosts and runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fixture.h"
#include "schema-sql.h"
#include "store-local.h"
#include "store.h"
#include "tap.h"
#include "topo.h"

_Static_assert((int)SL_REL_SAME == SL_RREL_SAME && (int)SL_REL_SMT == SL_RREL_SMT &&
		       (int)SL_REL_LLC == SL_RREL_LLC && (int)SL_REL_PACKAGE == SL_RREL_PACKAGE &&
		       (int)SL_REL_REMOTE == SL_RREL_REMOTE &&
		       (int)SL_REL_UNKNOWN == SL_RREL_UNKNOWN,
	       "records.h relation codes follow topo.h");

static int raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	int rc;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

static bool has_table(const char *path, const char *name)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM sqlite_master WHERE name = '%s'", name);
	return fixture_q_int(path, sql) == 1;
}

static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		perror(path);
	close(fd);
}

static int64_t add_host_and_run(struct sl_store *st, const char *kernel)
{
	struct sl_cpu_row cpus[2] = { { 0, true, 0, 0, 0, 0 }, { 1, true, 1, 0, 0, 0 } };
	struct sl_host_info h = { .hostname = "kind",
				  .machine_id = "abc",
				  .topo_hash = "0123456789abcdef",
				  .topo_json = "{}",
				  .nr_cpus = 2,
				  .cpus = cpus,
				  .nr_cpu_rows = 2 };
	struct sl_run_meta m = { .kernel_release = kernel, .workload = "pgbench", .nr_cpus = 2 };
	int64_t host = 0, run = 0;

	if (sl_store_host_upsert(st, &h, &host))
		return -1;
	m.host_id = host;
	if (sl_store_run_begin(st, &m, &run))
		return -1;
	return run;
}

static void test_create(void)
{
	const char *path = fixture_path("new.db");
	struct sl_store *st = NULL;
	int err;

	err = sl_store_open(path, 0, &st);
	is_int(err, -ENOENT, "missing file without SL_STORE_CREATE: -ENOENT");
	ok(strstr(sl_errmsg(err), path) != NULL, "message names the file: %s", sl_errmsg(err));

	err = sl_store_open(path, SL_STORE_CREATE, &st);
	is_int(err, 0, "create: %s", err ? sl_errmsg(err) : "ok");
	if (err)
		return;
	is_int(sl_store_schema_version(st), SL_SCHEMA_VERSION, "created at the latest schema");
	ok(SL_SCHEMA_VERSION >= 2, "more than one migration ships (%d)", SL_SCHEMA_VERSION);
	sl_store_close(st);
	is_int(fixture_q_int(path, "PRAGMA user_version"), SL_SCHEMA_VERSION,
	       "user_version on disk");
	is_int(fixture_q_int(path, "PRAGMA application_id"), SL_STORE_APP_ID,
	       "application_id on disk");
	is_int(fixture_q_int(path,
			     "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"),
	       1, "WAL mode persists");
	const char *tables[] = {
		"hosts",       "cpus",	  "runs",   "tasks",	   "sched_slices",    "wakeups",
		"preemptions", "windows", "chunks", "comparisons", "comparison_runs", "findings"
	};
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		ok(has_table(path, tables[i]), "table %s exists", tables[i]);
	is_int(fixture_q_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
				   "tbl_name IN ('sched_slices', 'wakeups', 'preemptions')"),
	       0, "no secondary index on the per-event tables");
	const char *views[] = { "wakeups_v",	 "preemptions_v", "run_summary",
				"placement_mix", "lhp_by_group",  "flagged_findings" };
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		char sql[128];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", views[i]);
		is_int(fixture_q_int(path, sql), 0, "view %s works (empty)", views[i]);
	}

	err = sl_store_open(path, 0, &st);
	is_int(err, 0, "reopen without CREATE");
	sl_store_close(st);
	is_int(fixture_q_int(path, "PRAGMA page_size"), 4096, "SQLite's default page size");
}

/* A bulk writer's file gets its page size when created, and only then. */
static void test_page_size(void)
{
	const char *path = fixture_path("pages.db");
	struct sl_store_opts opts = { .flags = SL_STORE_CREATE, .page_size = 16384 };
	struct sl_store *st = NULL;
	int64_t run;
	int err;

	err = sl_store_open_opts(path, &opts, &st);
	is_int(err, 0, "create with 16 KiB pages: %s", err ? sl_errmsg(err) : "ok");
	if (err)
		return;
	is_int(sl_store_run_begin(st, &(struct sl_run_meta){ .kernel_release = "6.1" }, &run), 0,
	       "a run stored");
	sl_store_close(st);
	is_int(fixture_q_int(path, "PRAGMA page_size"), 16384, "the new file has 16 KiB pages");
	opts.page_size = 4096;
	err = sl_store_open_opts(path, &opts, &st);
	is_int(err, 0, "reopen asking for 4 KiB pages");
	sl_store_close(st);
	is_int(fixture_q_int(path, "PRAGMA page_size"), 16384, "an existing file keeps its pages");
	is_int(fixture_q_int(path, "SELECT count(*) FROM runs"), 1, "and its run");

	opts.page_size = 3000;
	err = sl_store_open_opts(fixture_path("bad-pages.db"), &opts, &st);
	is_int(err, -EINVAL, "a page size that is no power of two: -EINVAL");
	ok(strstr(sl_errmsg(err), "3000") != NULL, "message: %s", sl_errmsg(err));
	ok(access(fixture_path("bad-pages.db"), F_OK) != 0, "and no file is created");
}

/* From empty (0-byte file, empty SQLite file) and from every earlier version. */
static void test_migrations(void)
{
	char name[64];
	int err;

	{
		const char *path = fixture_path("empty.db");
		struct sl_store *st = NULL;

		write_file(path, "", 0);
		err = sl_store_open(path, 0, &st);
		is_int(err, 0, "0-byte file migrates from empty: %s", err ? sl_errmsg(err) : "");
		if (!err)
			is_int(sl_store_schema_version(st), SL_SCHEMA_VERSION, "... to latest");
		sl_store_close(st);
	}
	for (int from = 1; from < SL_SCHEMA_VERSION; from++) {
		struct sl_store_opts opts = { .flags = SL_STORE_CREATE, .schema_version = from };
		struct sl_store *st = NULL;
		int64_t run;
		const char *path;

		snprintf(name, sizeof(name), "from-v%d.db", from);
		path = fixture_path(name);
		err = sl_store_open_opts(path, &opts, &st);
		is_int(err, 0, "create at schema %d", from);
		if (err)
			continue;
		is_int(sl_store_schema_version(st), from, "file is at schema %d", from);
		run = add_host_and_run(st, "6.1.0-old");
		ok(run > 0, "schema %d holds a run", from);
		sl_store_close(st);
		is_int(fixture_q_int(path, "PRAGMA user_version"), from, "user_version %d on disk",
		       from);
		is_int(has_table(path, "findings"), from >= 2,
		       "schema %d has a findings table only from schema 2", from);

		err = sl_store_open(path, 0, &st);
		is_int(err, 0, "schema %d migrates to %d: %s", from, SL_SCHEMA_VERSION,
		       err ? sl_errmsg(err) : "ok");
		if (err)
			continue;
		is_int(sl_store_schema_version(st), SL_SCHEMA_VERSION, "now latest");
		sl_store_close(st);
		is_int(fixture_q_int(path, "PRAGMA user_version"), SL_SCHEMA_VERSION,
		       "user_version updated");
		ok(has_table(path, "findings"), "findings table added");
		is_int(fixture_q_int(path,
				     "SELECT count(*) FROM runs WHERE kernel_release = '6.1.0-old'"),
		       1, "the run stored at schema %d survived", from);
		is_int(fixture_q_int(path, "SELECT count(*) FROM pragma_integrity_check WHERE "
					   "integrity_check = 'ok'"),
		       1, "integrity_check ok after migrating from %d", from);
	}
}

static void test_migration_atomic(void)
{
	const char *path = fixture_path("atomic.db");
	const struct sl_store_step steps[] = {
		{ "good", "CREATE TABLE a (x INTEGER);" },
		{ "bad", "CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);" },
	};
	sqlite3 *db;
	int err;

	err = sl_store_connect(path, SL_STORE_CREATE, 0, 0, &db);
	is_int(err, 0, "raw connection");
	if (err)
		return;
	err = sl_store_migrate(db, path, steps, 2, 2, NULL);
	is_int(err, -SL_EDB, "a failing migration fails");
	ok(strstr(sl_errmsg(err), "0002-bad.sql") && strstr(sl_errmsg(err), path),
	   "message names the migration and the file: %s", sl_errmsg(err));
	sqlite3_close(db);
	is_int(fixture_q_int(path, "PRAGMA user_version"), 0, "user_version unchanged");
	ok(!has_table(path, "a"), "the first step was rolled back too: one transaction");
}

static void test_newer(void)
{
	const char *path = fixture_path("newer.db");
	struct sl_store *st = NULL;
	char sql[64];
	int err;

	err = sl_store_open(path, SL_STORE_CREATE, &st);
	sl_store_close(st);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", SL_SCHEMA_VERSION + 1);
	is_int(raw_exec(path, sql), SQLITE_OK, "bump user_version beyond this binary");
	err = sl_store_open(path, 0, &st);
	is_int(err, -SL_ESCHEMA, "newer-than-binary file refused");
	ok(strstr(sl_errmsg(err), path) && strstr(sl_errmsg(err), "newer") &&
		   strstr(sl_errmsg(err), "upgrade"),
	   "message names the file and what to do: %s", sl_errmsg(err));
	err = sl_store_open(path, SL_STORE_RDONLY, &st);
	is_int(err, -SL_ESCHEMA, "refused read-only too");
	is_int(fixture_q_int(path, "PRAGMA user_version"), SL_SCHEMA_VERSION + 1,
	       "file left alone");

	/* an older file opened read-only cannot be migrated */
	{
		struct sl_store_opts opts = { .flags = SL_STORE_CREATE, .schema_version = 1 };
		const char *old = fixture_path("older-ro.db");

		err = sl_store_open_opts(old, &opts, &st);
		sl_store_close(st);
		err = sl_store_open(old, SL_STORE_RDONLY, &st);
		is_int(err, -SL_ESCHEMA, "older file read-only: refused, not migrated");
		ok(strstr(sl_errmsg(err), "read-write"), "says how to migrate: %s", sl_errmsg(err));
		is_int(fixture_q_int(old, "PRAGMA user_version"), 1, "still schema 1");
	}
}

static void test_bad_files(void)
{
	struct sl_store *st = NULL;
	int err;

	{
		const char *path = fixture_path("text.db");
		char junk[8192];

		memset(junk, 'x', sizeof(junk));
		write_file(path, junk, sizeof(junk));
		err = sl_store_open(path, 0, &st);
		is_int(err, -SL_EFORMAT, "not a database: -SL_EFORMAT");
		ok(strstr(sl_errmsg(err), path) && strstr(sl_errmsg(err), "not an SQLite"),
		   "message: %s", sl_errmsg(err));
		{
			struct stat sb;

			ok(stat(path, &sb) == 0 && sb.st_size == sizeof(junk) &&
				   access(fixture_path("text.db-wal"), F_OK) != 0,
			   "the file is left untouched, no -wal created");
		}
	}
	{
		const char *path = fixture_path("foreign.db");

		raw_exec(path, "CREATE TABLE recipes (name TEXT)");
		err = sl_store_open(path, 0, &st);
		is_int(err, -SL_EFORMAT, "someone else's SQLite database refused");
		ok(strstr(sl_errmsg(err), "not a schedlens"), "message: %s", sl_errmsg(err));
		is_int(fixture_q_int(path, "SELECT count(*) FROM sqlite_master"), 1,
		       "and left unchanged");
	}
	{
		const char *path = fixture_path("corrupt.db");
		char junk[3000];
		int fd;

		err = sl_store_open(path, SL_STORE_CREATE, &st);
		sl_store_close(st); /* the last close checkpoints the WAL into the file */
		memset(junk, 0x5a, sizeof(junk));
		fd = open(path, O_WRONLY);
		/* page 1 after the 100-byte header: the schema's B-tree */
		ok(fd >= 0 && pwrite(fd, junk, sizeof(junk), 100) == sizeof(junk), "corrupt it");
		close(fd);
		err = sl_store_open(path, 0, &st);
		is_int(err, -SL_EDB, "corrupt file: -SL_EDB");
		ok(strstr(sl_errmsg(err), "corrupt") && strstr(sl_errmsg(err), ".recover"),
		   "message says corrupt and how to recover: %s", sl_errmsg(err));
		if (!err)
			sl_store_close(st);
	}
	{
		const char *path = fixture_path("ro.db");
		struct sl_writer *w = NULL;
		int64_t run;

		err = sl_store_open(path, SL_STORE_CREATE, &st);
		sl_store_close(st);
		err = sl_store_open(path, SL_STORE_RDONLY, &st);
		is_int(err, 0, "open read-only");
		if (!err) {
			run = add_host_and_run(st, "6.12");
			is_int(run, -1, "writing through a read-only store fails");
			ok(strstr(sl_errmsg(-EROFS), "read-only"), "message: %s",
			   sl_errmsg(-EROFS));
			err = sl_writer_start(st, NULL, &w);
			is_int(err, -EROFS, "no writer on a read-only store");
			sl_store_close(st);
		}
	}
	{
		const char *path = fixture_path("locked.db");
		struct sl_store_opts opts = { .busy_ms = 100 };
		sqlite3 *db;

		err = sl_store_open(path, SL_STORE_CREATE, &st);
		sl_store_close(st);
		sqlite3_open(path, &db);
		is_int(sqlite3_exec(db,
				    "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; "
				    "INSERT INTO relation VALUES (99, 'x')",
				    NULL, NULL, NULL),
		       SQLITE_OK, "another process locks the file");
		err = sl_store_open_opts(path, &opts, &st);
		is_int(err, -EBUSY, "locked: -EBUSY after the busy timeout");
		ok(strstr(sl_errmsg(err), path) && strstr(sl_errmsg(err), "locked"), "message: %s",
		   sl_errmsg(err));
		if (!err)
			sl_store_close(st);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(db);
		err = sl_store_open(path, 0, &st);
		is_int(err, 0, "opens once the lock is gone");
		sl_store_close(st);
	}
	{
		const char *path = fixture_path("full.db");
		struct sl_store_opts opts = { .flags = SL_STORE_CREATE };
		char big[20000];
		int64_t pages, good = 0;
		struct sl_run_meta m = { .kernel_release = "6.1", .cmdline = big };

		err = sl_store_open_opts(path, &opts, &st);
		sl_store_close(st);
		pages = fixture_q_int(path, "PRAGMA page_count");
		memset(big, 'c', sizeof(big) - 1);
		big[sizeof(big) - 1] = 0;
		opts.max_page_count = pages + 40;
		err = sl_store_open_opts(path, &opts, &st);
		is_int(err, 0, "open with a size limit");
		if (err)
			return;
		for (int i = 0; i < 100; i++) {
			int64_t run;

			err = sl_store_run_begin(st, &m, &run);
			if (err)
				break;
			good++;
		}
		is_int(err, -ENOSPC, "a full disk gives -ENOSPC");
		ok(strstr(sl_errmsg(err), path) && strstr(sl_errmsg(err), "full") &&
			   strstr(sl_errmsg(err), "committed"),
		   "message: %s", sl_errmsg(err));
		ok(good > 0, "%lld runs fitted before", (long long)good);
		sl_store_close(st);
		is_int(fixture_q_int(path, "SELECT count(*) FROM runs"), good,
		       "every committed run is there");
		is_int(fixture_q_int(path, "SELECT count(*) FROM pragma_integrity_check WHERE "
					   "integrity_check = 'ok'"),
		       1, "integrity_check ok");
	}
}

static void test_hosts_runs(void)
{
	const char *path = fixture_path("runs.db");
	struct sl_store *st = NULL;
	struct sl_cpu_row cpus[3] = { { 0, true, 0, 0, 0, 0 },
				      { 1, false, 0, 0, 0, -1 },
				      { 2, true, 1, 0, 0, -1 } };
	struct sl_host_info h = { .hostname = "kind",
				  .topo_hash = "00000000deadbeef",
				  .nr_cpus = 3,
				  .cpus = cpus,
				  .nr_cpu_rows = 3 };
	struct sl_run_meta m = { .kernel_release = "6.18.0",
				 .kernel_version = "#1 SMP PREEMPT_DYNAMIC",
				 .cmdline = "quiet",
				 .boot_id = "b00t",
				 .preempt_mode = "lazy",
				 .sched_features = "GENTLE_FAIR_SLEEPERS",
				 .sched_sysctls = "sched_rr_timeslice_ms=100",
				 .workload = "pgbench -S",
				 .trace_clock = "mono",
				 .nr_cpus = 3,
				 .start_ns = 1000 };
	struct sl_run_totals t = {
		.end_ns = 2500001000ull, .events = 1234, .lost_events = 5, .gaps = true
	};
	int64_t h1 = 0, h2 = 0, h3 = 0, run = 0;
	int err;

	if (sl_store_open(path, SL_STORE_CREATE, &st))
		return;
	is_int(sl_store_host_upsert(st, &h, &h1), 0, "host inserted");
	is_int(sl_store_host_upsert(st, &h, &h2), 0, "same host again");
	is_int(h2, h1, "same id");
	h.topo_hash = "00000000deadbee0";
	is_int(sl_store_host_upsert(st, &h, &h3), 0, "host with a changed topology");
	ok(h3 != h1, "is a new hosts row");
	m.host_id = h1;
	is_int(sl_store_run_begin(st, &m, &run), 0, "run begins");
	is_int(sl_store_run_end(st, run, &t), 0, "run ends");
	err = sl_store_run_end(st, run + 100, &t);
	is_int(err, -ENOENT, "ending an unknown run: -ENOENT");
	sl_store_close(st);

	is_int(fixture_q_int(path, "SELECT count(*) FROM cpus"), 6, "3 cpus rows per host row");
	is_int(fixture_q_int(path, "SELECT count(*) FROM cpus WHERE online = 0 AND core IS NULL"),
	       2, "offline CPUs stored without topology");
	is_int(fixture_q_int(path, "SELECT count(*) FROM cpus WHERE node IS NULL"), 4,
	       "unknown node is NULL");
	is_int(fixture_q_int(path, "SELECT events + lost_events + has_gaps FROM runs"), 1240,
	       "totals");
	is_int(fixture_q_int(path, "SELECT end_ns - start_ns FROM runs"), 2500000000ll,
	       "start and end");
	is_int(fixture_q_int(
		       path,
		       "SELECT count(*) FROM runs WHERE preempt_mode = 'lazy' AND "
		       "boot_id = 'b00t' AND sched_sysctls LIKE 'sched_rr%' AND "
		       "recorder_version <> '' AND end_wall >= start_wall AND source = 'live'"),
	       1, "metadata stored");
	is_int(fixture_q_int(path, "SELECT count(*) FROM run_summary WHERE hostname = 'kind' AND "
				   "seconds = 2.5"),
	       1, "run_summary view");
}

int main(void)
{
	test_create();
	test_page_size();
	test_migrations();
	test_migration_atomic();
	test_newer();
	test_bad_files();
	test_hosts_runs();
	return done_testing();
}
