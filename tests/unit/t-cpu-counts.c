// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the per-CPU, per-minute wakeup counts (lib/engine/cpu-counts.c, table cpu_counts):
 * the accumulator's minute boundaries, late records and the last minute's length; the
 * writer's rows (kept like windows: never refused for the per-event share of the queue,
 * chunked, aged with the windows); synthesized sessions whose counts agree with the
 * wakeups table per CPU and with the windows when no per-wakeup rows are stored; the
 * heatmap route reading them; and a schema-4 database migrating to 5 with its old run
 * still answered from its per-wakeup rows.
 */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-web.h"
#include "cpu-counts.h"
#include "error.h"
#include "fixture.h"
#include "store.h"
#include "../synth/synth-db.h"
#include "tap.h"

#define SEC 1000000000ull
#define MIN (60 * SEC)

struct capture {
	int n;
	struct sl_cpu_count_rec rows[64];
};

static void capture(void *ctx, const struct sl_cpu_count_rec *r)
{
	struct capture *c = ctx;

	if (c->n < 64)
		c->rows[c->n] = *r;
	c->n++;
}

static struct sl_wakeup_rec wk(uint64_t ts, int cpu, int state, int missed)
{
	return (struct sl_wakeup_rec){ .run_id = 7,
				       .ts_ns = ts,
				       .target_cpu = cpu,
				       .target_state = (uint8_t)state,
				       .missed_idle = (uint8_t)missed };
}

static bool row_is(const struct sl_cpu_count_rec *r, uint64_t start, uint64_t dur, int cpu,
		   uint32_t wakeups, uint32_t busy, uint32_t idle, uint32_t missed)
{
	bool same = r->run_id == 7 && r->start_ns == start && r->dur_ns == dur && r->cpu == cpu &&
		    r->wakeups == wakeups && r->busy == busy && r->idle == idle &&
		    r->missed_idle == missed;

	if (!same)
		diag("row: start %llu dur %llu cpu %d wakeups %u busy %u idle %u missed %u",
		     (unsigned long long)r->start_ns, (unsigned long long)r->dur_ns, r->cpu,
		     r->wakeups, r->busy, r->idle, r->missed_idle);
	return same;
}

static void test_minutes(void)
{
	const uint64_t o = 1000 * SEC, lag = 5 * SEC;
	struct capture c = { 0 };
	struct sl_cpu_counts *cc = sl_cpu_counts_new(7, lag, capture, &c);
	struct sl_wakeup_rec r;

	ok(cc, "accumulator created");
	if (!cc)
		return;
	r = wk(o, 0, SL_TS_BUSY, 0);
	sl_cpu_counts_add(cc, o, &r);
	r = wk(o + MIN - 1, 1, SL_TS_IDLE, 0);
	sl_cpu_counts_add(cc, o, &r);
	r = wk(o + MIN, 0, SL_TS_CLAIMED, 1);
	sl_cpu_counts_add(cc, o, &r);
	is_int(c.n, 0, "a wakeup at the minute's end does not close it (records may be late)");
	/* late: emitted after the newer one, still within the lag */
	r = wk(o + MIN - 2 * SEC, 1, SL_TS_UNKNOWN, 0);
	sl_cpu_counts_add(cc, o, &r);
	r = wk(o + MIN, -1, SL_TS_BUSY, 0);
	sl_cpu_counts_add(cc, o, &r);
	r = wk(o + MIN, SL_TOPO_MAX_CPUS, SL_TS_BUSY, 0);
	sl_cpu_counts_add(cc, o, &r);
	is_int(c.n, 0, "still open before the minute's end + lag");
	r = wk(o + MIN + lag, 37, SL_TS_BUSY, 1);
	sl_cpu_counts_add(cc, o, &r);
	is_int(c.n, 2, "a wakeup at the minute's end + lag emits minute 0: its 2 CPUs");
	ok(row_is(&c.rows[0], o, MIN, 0, 1, 1, 0, 0), "minute 0, CPU 0: 1 busy");
	ok(row_is(&c.rows[1], o, MIN, 1, 2, 0, 1, 0),
	   "minute 0, CPU 1: 2 wakeups (the late one included), 1 idle, 1 unknown state");
	/* a jump of minutes: minute 1 goes out, 2..4 got nothing and have no rows */
	r = wk(o + 5 * MIN + 10 * SEC, 1, SL_TS_IDLE, 0);
	sl_cpu_counts_add(cc, o, &r);
	is_int(c.n, 4, "minute 1 emitted when a wakeup passes its end + lag");
	ok(row_is(&c.rows[2], o + MIN, MIN, 0, 1, 1, 0, 1),
	   "minute 1, CPU 0: claimed, missed idle");
	ok(row_is(&c.rows[3], o + MIN, MIN, 37, 1, 1, 0, 1),
	   "minute 1, CPU 37 (arrays grow); unknown CPUs (-1, 4096) not counted");
	sl_cpu_counts_finish(cc, o + 5 * MIN + 30 * SEC);
	is_int(c.n, 5, "finish emits the open minute");
	ok(row_is(&c.rows[4], o + 5 * MIN, 30 * SEC, 1, 1, 0, 1, 0),
	   "the last minute ends at the stream's end (30 s)");
	is_int((int64_t)sl_cpu_counts_rows(cc), 5, "5 rows counted");
	sl_cpu_counts_free(cc);

	/* the last minute: end 0 = whole, an end before the last wakeup = just after it */
	c.n = 0;
	cc = sl_cpu_counts_new(7, 0, capture, &c);
	r = wk(o + 10 * SEC, 2, SL_TS_IDLE, 0);
	sl_cpu_counts_add(cc, o, &r);
	r = wk(o + MIN, 2, SL_TS_IDLE, 0);
	sl_cpu_counts_add(cc, o, &r);
	is_int(c.n, 1, "lag 0: a wakeup at the minute's end closes it");
	sl_cpu_counts_finish(cc, 0);
	ok(c.n == 2 && row_is(&c.rows[1], o + MIN, MIN, 2, 1, 0, 1, 0), "end 0: a whole minute");
	sl_cpu_counts_free(cc);
	c.n = 0;
	cc = sl_cpu_counts_new(7, 0, capture, &c);
	r = wk(o + 10 * SEC, 2, SL_TS_IDLE, 0);
	sl_cpu_counts_add(cc, o, &r);
	sl_cpu_counts_finish(cc, o + 5 * SEC);
	ok(c.n == 1 && row_is(&c.rows[0], o, 10 * SEC + 1, 2, 1, 0, 1, 0),
	   "an end before the last wakeup: the minute ends just after it");
	sl_cpu_counts_free(cc);
	sl_cpu_counts_free(NULL);
}

static struct sl_store *new_store(const char *name, const struct sl_store_opts *opts,
				  int64_t *ret_run)
{
	struct sl_cpu_row cpus[2] = { { .cpu = 0, .online = true, .node = -1 },
				      { .cpu = 1, .online = true, .core = 1, .node = -1 } };
	struct sl_host_info h = { .hostname = "kind",
				  .topo_hash = "0123456789abcdef",
				  .nr_cpus = 2,
				  .cpus = cpus,
				  .nr_cpu_rows = 2 };
	struct sl_run_meta m = { .kernel_release = "6.18", .start_ns = 1000 };

	return fixture_store(name, opts, &h, &m, ret_run);
}

static void test_writer(void)
{
	struct sl_store_opts so = { .flags = SL_STORE_CREATE };
	int64_t run;
	struct sl_store *st = new_store("writer.db", &so, &run);
	const char *path = sl_store_path(st);
	struct sl_writer_opts wo = { .capacity = 64, .start_paused = true };
	struct sl_writer *w = NULL;
	struct sl_writer_stats s;
	struct sl_retention p = { .event_keep_ns = 1 };
	struct sl_retention_stats rs;
	int accepted = 0;

	if (sl_writer_start(st, &wo, &w)) {
		diag("%s", sl_errmsg(-1));
		exit(1);
	}
	for (int i = 0; i < 64; i++) {
		struct sl_wakeup_rec r = wk(1000 + (uint64_t)i, 0, SL_TS_IDLE, 0);

		r.run_id = run;
		accepted += sl_writer_push_wakeup(w, &r);
	}
	is_int(accepted, 56, "per-event rows fill 7/8 of the queue");
	for (int i = 0; i < 4; i++) {
		struct sl_cpu_count_rec c = { .run_id = run,
					      .start_ns = 1000 + (uint64_t)i * MIN,
					      .dur_ns = MIN,
					      .cpu = i % 2,
					      .wakeups = 10 + (uint32_t)i,
					      .busy = 4,
					      .idle = 5,
					      .missed_idle = 1 };

		ok(sl_writer_push_cpu_count(w, &c), "CPU count %d accepted beyond the event share",
		   i);
	}
	sl_writer_resume(w);
	is_int(sl_writer_flush(w), 0, "flushed");
	sl_writer_get_stats(w, &s);
	is_int((int64_t)s.pushed[SL_ROW_CPU_COUNT], 4, "stats: 4 CPU counts pushed");
	is_int((int64_t)s.written[SL_ROW_CPU_COUNT], 4, "stats: 4 CPU counts written");
	is_int((int64_t)s.dropped[SL_ROW_CPU_COUNT], 0, "stats: none dropped");
	is_int(sl_writer_stop(w), 0, "writer stops");
	is_int(fixture_q_int(path, "SELECT count(*) FROM cpu_counts"), 4, "4 rows in cpu_counts");
	is_int(fixture_q_int(path,
			     "SELECT sum(wakeups) * 1000 + sum(busy) * 100 + sum(idle) * 10 + "
			     "sum(missed_idle) FROM cpu_counts WHERE start_ns = 1000 + 180e9 "
			     "AND dur_ns = 60e9 AND cpu = 1"),
	       13451, "every column as pushed");
	is_int(fixture_q_int(path, "SELECT rows FROM chunks WHERE tbl = 'cpu_counts'"), 4,
	       "a retention chunk of table cpu_counts");
	/* per-event retention of 1 ns and no window limit: the counts stay like windows */
	sqlite3_exec(sl_store_db(st), "UPDATE chunks SET closed_wall = 1", NULL, NULL, NULL);
	is_int(sl_store_retention(st, &p, 1000 * SEC, &rs), 0, "retention runs");
	is_int(fixture_q_int(path, "SELECT count(*) FROM wakeups"), 0, "wakeups expired");
	is_int(fixture_q_int(path, "SELECT count(*) FROM cpu_counts"), 4,
	       "cpu_counts kept with the windows' retention");
	p.window_keep_ns = 10 * SEC;
	is_int(sl_store_retention(st, &p, 1000 * SEC, &rs), 0, "retention with a window keep");
	is_int(fixture_q_int(path, "SELECT count(*) FROM cpu_counts"), 0,
	       "cpu_counts expire with window_keep_ns");
	sl_store_close(st);
}

/* One synthesized run of 150 s into a database; 0 on failure. */
static int64_t store_synth(const char *name, const struct sl_topo *topo, bool windows_only)
{
	struct synth_config cfg;
	struct synth_db_opts o = { .db_path = fixture_path(name), .windows_only = windows_only };
	int64_t id = 0;

	synth_config_default(&cfg, topo);
	cfg.seed = 3;
	cfg.clients = 2;
	cfg.backends = 2;
	cfg.client_ns = 2000000;
	cfg.start_ns = 5 * SEC + 123;
	cfg.duration_ns = 150 * SEC;
	if (synth_to_db(&cfg, &o, &id, NULL)) {
		diag("synth_to_db: %s", sl_errmsg(-1));
		return 0;
	}
	return id;
}

static void test_sessions(void)
{
	struct sl_topo *topo = fixture_topo("guest16");
	const char *all = fixture_path("all.db"), *win = fixture_path("windows-only.db");
	int64_t a = store_synth("all.db", topo, false),
		b = store_synth("windows-only.db", topo, true);
	int64_t n;

	ok(a && b, "two synthesized runs of 150 s stored (%lld, %lld)", (long long)a, (long long)b);
	n = fixture_q_int(all, "SELECT count(*) FROM wakeups");
	ok(n > 1000, "with per-wakeup rows: %lld wakeups", (long long)n);
	is_int(fixture_q_int(all, "SELECT sum(wakeups) FROM cpu_counts"), n,
	       "cpu_counts sum to the wakeup rows");
	is_int(fixture_q_int(all, "SELECT count(*) FROM (SELECT target_cpu AS cpu, count(*), "
				  "sum(target_state IN (1, 2)), sum(target_state = 0), "
				  "sum(missed_idle) FROM wakeups GROUP BY 1 EXCEPT SELECT cpu, "
				  "sum(wakeups), sum(busy), sum(idle), sum(missed_idle) "
				  "FROM cpu_counts GROUP BY cpu)"),
	       0, "per CPU: wakeups, busy, idle, missed_idle agree with the wakeup rows");
	is_int(fixture_q_int(all, "SELECT count(DISTINCT start_ns) FROM cpu_counts"), 3,
	       "150 s are 3 minutes");
	is_int(fixture_q_int(all, "SELECT count(*) FROM cpu_counts c, (SELECT min(start_ns) AS o "
				  "FROM windows) WHERE (c.start_ns - o) % 60000000000 != 0"),
	       0, "minutes start at the windows' origin + k * 60 s");
	is_int(fixture_q_int(all, "SELECT count(*) FROM (SELECT start_ns, cpu FROM cpu_counts "
				  "GROUP BY 1, 2 HAVING count(*) > 1)"),
	       0, "one row per minute and CPU");
	is_int(fixture_q_int(all,
			     "SELECT count(DISTINCT dur_ns) FROM cpu_counts WHERE dur_ns = "
			     "60000000000 OR start_ns = (SELECT max(start_ns) FROM cpu_counts)"),
	       2, "whole minutes, and a shorter last one");
	is_int(fixture_q_int(all, "SELECT max(start_ns + dur_ns) <= (SELECT end_ns FROM runs) "
				  "FROM cpu_counts"),
	       1, "the last minute ends by the run's end");

	is_int(fixture_q_int(win, "SELECT count(*) FROM wakeups"), 0,
	       "windows-only: no per-wakeup rows");
	n = fixture_q_int(win, "SELECT sum(wakeups) FROM windows WHERE grp = '*'");
	ok(n > 1000, "windows-only: %lld wakeups in the windows", (long long)n);
	is_int(fixture_q_int(win, "SELECT sum(wakeups) FROM cpu_counts"), n,
	       "windows-only: cpu_counts still count every wakeup");
	sl_topo_free(topo);
}

/* The heatmap route's total and CPU 1's wakeups, or -1. */
static int64_t api_total(struct sl_store *st, int64_t run, uint64_t from, uint64_t to,
			 int64_t *ret_cpu1)
{
	json_t *o = NULL;
	int64_t total = -1;

	if (sl_api_cpus(st, run, from, to, &o)) {
		diag("sl_api_cpus: %s", sl_errmsg(-1));
		return -1;
	}
	total = json_integer_value(json_object_get(o, "wakeups"));
	*ret_cpu1 = json_integer_value(
		json_object_get(json_array_get(json_object_get(o, "cpus"), 1), "wakeups"));
	json_decref(o);
	return total;
}

static void test_migration_and_api(void)
{
	struct sl_store_opts so = { .flags = SL_STORE_CREATE, .schema_version = 4 };
	int64_t old_run, new_run, cpu1;
	struct sl_store *st = new_store("schema4.db", &so, &old_run);
	char path[512];
	struct sl_writer *w = NULL;

	snprintf(path, sizeof(path), "%s", sl_store_path(st));

	is_int(sl_store_schema_version(st), 4, "a schema-4 file");
	is_int(fixture_q_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'cpu_counts'"),
	       0, "no cpu_counts yet");
	sqlite3_exec(sl_store_db(st),
		     "INSERT INTO wakeups (run_id, ts_ns, pid, kind, target_cpu, class_prev, "
		     "class_waker, target_state, llc_idle, missed_idle, missed_smt, policy_known, "
		     "policy_agree) VALUES (1, 2000, 5, 0, 1, 5, 5, 1, 0, 0, 0, 0, 0), "
		     "(1, 3000, 5, 0, 1, 5, 5, 0, 0, 0, 0, 0, 0), "
		     "(1, 4000, 5, 1, 0, 5, 5, 2, 1, 1, 0, 0, 0)",
		     NULL, NULL, NULL);
	sl_store_close(st);

	so.schema_version = 0;
	if (sl_store_open_opts(path, &so, &st)) {
		diag("%s", sl_errmsg(-1));
		exit(1);
	}
	is_int(sl_store_schema_version(st), sl_store_schema_latest(), "migrated to the latest");
	is_int(fixture_q_int(path, "PRAGMA user_version"), sl_store_schema_latest(),
	       "user_version on disk");
	is_int(fixture_q_int(path, "SELECT count(*) FROM wakeups"), 3, "the old rows are kept");
	is_int(api_total(st, old_run, 0, 0, &cpu1), 3,
	       "a run stored before schema 5: the heatmap counts its wakeup rows");
	is_int(cpu1, 2, "... 2 on CPU 1");
	is_int(api_total(st, old_run, 2500, 0, &cpu1), 2, "... from exact times (from = 2500)");

	/* a run written since: minutes from cpu_counts, selected by overlap with [from, to) */
	{
		struct sl_run_meta m = { .kernel_release = "6.18", .host_id = 1, .start_ns = 0 };

		if (sl_store_run_begin(st, &m, &new_run) || sl_writer_start(st, NULL, &w))
			exit(1);
	}
	for (int k = 0; k < 3; k++) {
		struct sl_cpu_count_rec c = { .run_id = new_run,
					      .start_ns = 1000 + (uint64_t)k * MIN,
					      .dur_ns = k < 2 ? MIN : 10 * SEC,
					      .cpu = 1,
					      .wakeups = 100u << k,
					      .busy = 1 };

		sl_writer_push_cpu_count(w, &c);
	}
	is_int(sl_writer_stop(w), 0, "3 minutes written");
	is_int(api_total(st, new_run, 0, 0, &cpu1), 700, "schema 5: the sum of the minutes");
	is_int(cpu1, 700, "... all on CPU 1");
	is_int(api_total(st, new_run, 1000 + MIN - 1, 1000 + MIN, &cpu1), 100,
	       "a range inside minute 0 counts minute 0 whole");
	is_int(api_total(st, new_run, 1000 + MIN - 1, 1000 + MIN + 1, &cpu1), 300,
	       "a range across a boundary counts both minutes");
	is_int(api_total(st, new_run, 1000 + 2 * MIN + 10 * SEC, 0, &cpu1), 0,
	       "a range after the last minute's end: none");
	sl_store_close(st);
}

int main(void)
{
	test_minutes();
	test_writer();
	test_sessions();
	test_migration_and_api();
	return done_testing();
}
