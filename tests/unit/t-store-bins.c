// SPDX-License-Identifier: GPL-2.0-only
/*
 * window_bins (schema 12, lib/store/store-bins.c) on a real SQLite file: a run of 4,000
 * 1 s windows in three groups (7 bins of 10 minutes, the first and last partial). Every
 * read that goes through the bins answers exactly what the windows alone give (the same
 * JSON text with the bins deleted), for the whole run and for ranges with ragged ends; the
 * bins are really read (a window changed behind them shows only where the windows are
 * read); a window added after the bins, and retention's loss of windows, send reads back to
 * the windows.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../synth/synth-windows.h"
#include "db-json.h"
#include "error.h"
#include "fixture.h"
#include "hist.h"
#include "store-query.h"
#include "store.h"
#include "tap.h"

static const char *const metrics[] = { "wakeups", "missed_idle", "lat_count", "lat_p99_ns", NULL };

/* Every answer that may come from the bins, as one text, for the range [from, to). */
static char *answers(struct sl_store *st, int64_t run, int64_t from, int64_t to)
{
	json_t *all = json_object(), *rows;
	struct sl_hist *h = calloc(1, sizeof(*h));
	char *text, buf[65536];
	struct sl_window_select sel = {
		.grp = "postgres",
		.metrics = metrics,
		.from = from,
		.to = to,
		.step = 1200 * 1000000000ll,
		.limit = 1000,
	};
	struct sl_db_stream *s;
	ssize_t n;
	size_t len = 0;

	if (!sl_query_run_rows(st, run, &rows))
		json_object_set_new(all, "run", rows);
	if (!sl_query_run_groups_rows(st, run, &rows))
		json_object_set_new(all, "groups", rows);
	if (!sl_query_run_placement_rows(st, run, &rows))
		json_object_set_new(all, "placement", rows);
	if (!sl_query_run_preemption_rows(st, run, from, to, &rows))
		json_object_set_new(all, "preemptions", rows);
	if (h && !sl_query_run_latency(st, run, "postgres", from, to, h)) {
		json_object_set_new(all, "lat_total", json_integer((json_int_t)h->total));
		json_object_set_new(all, "lat_p99",
				    json_integer((json_int_t)sl_hist_quantile_ns(h, 0.99)));
	}
	free(h);
	if (!sl_query_windows_stream(st, run, &sel, json_object(), &s)) {
		while ((n = sl_db_stream_read(s, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)n;
		buf[len] = 0;
		json_object_set_new(all, "step", json_string(buf));
		sl_db_stream_free(s);
	}
	text = json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(all);
	return text;
}

/* answers() through the bins, then with the bins gone: equal. The bins are put back. */
static void same_as_windows(struct sl_store *st, int64_t run, int64_t from, int64_t to,
			    const char *what)
{
	char *a = answers(st, run, from, to), *b;

	sqlite3_exec(sl_store_db(st), "DELETE FROM window_bins", NULL, NULL, NULL);
	b = answers(st, run, from, to);
	ok(a && b && !strcmp(a, b) && strstr(a, "\"placement\"") && strstr(a, "\"step\""),
	   "%s: the bins' answers are the windows' (%zu bytes)", what, a ? strlen(a) : 0);
	if (a && b && strcmp(a, b))
		diag("bins:    %.400s\nwindows: %.400s", a, b);
	is_int(sl_store_run_bins(st, run), 0, "... bins summed again");
	free(a);
	free(b);
}

static int64_t placement_wakeups(struct sl_store *st, int64_t run, const char *grp)
{
	json_t *rows;
	int64_t v = -1;

	if (sl_query_run_placement_rows(st, run, &rows))
		return -1;
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *r = json_array_get(rows, i);

		if (!strcmp(json_string_value(json_object_get(r, "name")), grp))
			v = json_integer_value(json_object_get(r, "wakeups"));
	}
	json_decref(rows);
	return v;
}

int main(void)
{
	struct synth_win_config cfg;
	struct sl_store *st;
	int64_t run = -1, start, total;
	char sql[512];
	sqlite3 *db;

	if (sl_store_open(fixture_path("bins.db"), SL_STORE_CREATE, &st)) {
		printf("Bail out! store: %s\n", sl_errmsg(-1));
		return 1;
	}
	db = sl_store_db(st);
	synth_win_default(&cfg);
	cfg.kernel_release = "6.1.0";
	cfg.windows = 4000;
	cfg.small_group = 0.2;
	if (synth_win_to_store(st, &cfg, &run)) {
		printf("Bail out! synth: %s\n", sl_errmsg(-1));
		return 1;
	}
	start = fixture_q_int_db(db, "SELECT MIN(start_ns) FROM windows");
	is_int(fixture_q_int_db(db, "SELECT COUNT(*) FROM windows"), 12000,
	       "3 groups x 4000 windows");
	is_int(fixture_q_int_db(db, "SELECT SUM(windows) FROM window_bins"), 12000,
	       "the run's end summed them all into bins");
	is_int(fixture_q_int_db(db, "SELECT COUNT(*) FROM window_bins WHERE grp = 'postgres'"),
	       (start + 4000000000000ll - 1) / 600000000000ll - start / 600000000000ll + 1,
	       "one bin per 10 minutes the windows touch");

	same_as_windows(st, run, 0, INT64_MAX, "whole run");
	same_as_windows(st, run, start + 123500000000ll, start + 3001000000000ll,
			"a range with ragged ends");
	same_as_windows(st, run, start + 10000000000ll, start + 20000000000ll,
			"a range inside one bin");
	same_as_windows(st, run, start - start % 600000000000ll + 1200000000000ll,
			start - start % 600000000000ll + 2400000000000ll, "a range of whole bins");

	/* a window changed behind the bins' back: seen only where windows are read */
	total = placement_wakeups(st, run, "postgres");
	snprintf(sql, sizeof(sql),
		 "UPDATE windows SET wakeups = wakeups + 1000 WHERE grp = 'postgres' AND "
		 "start_ns = %lld",
		 (long long)(start + 2000000000000ll));
	is_int(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "one window changed by hand");
	is_int(placement_wakeups(st, run, "postgres"), total,
	       "whole-run placement reads the bins (the change is not seen)");
	is_int(sl_store_run_bins(st, run), 0, "bins summed again");
	is_int(placement_wakeups(st, run, "postgres"), total + 1000, "... now it is");

	/* a window after the bins' last: the bins no longer describe the run */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO windows SELECT * FROM windows WHERE grp = '*' AND start_ns = %lld; "
		 "UPDATE windows SET start_ns = start_ns + 100000000000000 WHERE rowid = "
		 "(SELECT MAX(rowid) FROM windows); "
		 "INSERT INTO windows SELECT * FROM windows WHERE grp = 'postgres' AND "
		 "start_ns = %lld; UPDATE windows SET start_ns = start_ns + 100000000000000, "
		 "wakeups = 7 WHERE rowid = (SELECT MAX(rowid) FROM windows)",
		 (long long)start, (long long)start);
	is_int(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "a later window added by hand");
	is_int(placement_wakeups(st, run, "postgres"), total + 1000 + 7,
	       "stale bins are not read: the windows are");
	is_int(sl_store_run_bins(st, run), 0, "bins summed again");
	same_as_windows(st, run, 0, INT64_MAX, "whole run, after");

	/* retention deletes the bins of a run that loses windows */
	is_int(sqlite3_exec(
		       db,
		       "INSERT INTO chunks (tbl, first_rowid, last_rowid, rows, min_ns, max_ns, "
		       "opened_wall, closed_wall) SELECT 'windows', MIN(rowid), MIN(rowid) + 9, "
		       "10, 0, 0, 1, 1 FROM windows",
		       NULL, NULL, NULL),
	       SQLITE_OK, "a closed chunk of 10 windows, as old as can be");
	{
		struct sl_retention r;
		struct sl_retention_stats rs;

		sl_retention_default(&r);
		r.window_keep_ns = 1;
		is_int(sl_store_retention(st, &r, 0, &rs), 0, "retention runs");
	}
	is_int(fixture_q_int_db(db, "SELECT COUNT(*) FROM window_bins"), 0,
	       "... and the run's bins are gone with its windows");
	ok(fixture_q_int_db(db, "SELECT COUNT(*) FROM windows") < 12002, "... which are gone");
	sl_store_close(st);
	return done_testing();
}
