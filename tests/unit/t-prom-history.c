// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /metrics history of a database (prom-history.h): two runs of synthetic windows
 * become OpenMetrics samples that all carry a timestamp and end with "# EOF"; every
 * series only grows, and its last value is the sum over the database's windows (the
 * wakeups and window seconds of all tasks, the lock-holder cost of postgres in seconds);
 * the host label is the run's host name or --host's; an empty database is -ENOENT; and
 * promtool accepts the file for backfilling (when installed).
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../synth/synth-windows.h"
#include "prom-history.h"
#include "store.h"
#include "tap.h"

/* The last value of the sample line starting with prefix, and whether values only grew. */
static double last_value(const char *text, const char *prefix, bool *ret_grows, int *ret_n)
{
	double last = NAN;
	const char *p = text;

	*ret_grows = true;
	*ret_n = 0;
	while ((p = strstr(p, prefix))) {
		double v;

		if (p != text && p[-1] != '\n') {
			p++;
			continue;
		}
		v = strtod(p + strlen(prefix), NULL);
		if (!isnan(last) && v < last)
			*ret_grows = false;
		last = v;
		(*ret_n)++;
		p++;
	}
	return last;
}

static double db_sum(struct sl_store *st, const char *sql)
{
	sqlite3_stmt *q;
	double v = NAN;

	if (sqlite3_prepare_v2(sl_store_db(st), sql, -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_double(q, 0);
	sqlite3_finalize(q);
	return v;
}

static char *history(struct sl_store *st, const char *host, int *ret_err, size_t *ret_instants)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	*ret_err = sl_prom_history_write(st, host, f, ret_instants);
	fclose(f);
	return text;
}

int main(void)
{
	char db[512], path[600], cmd[1400], hostname[128] = "";
	struct synth_win_config cfg;
	struct sl_store *st;
	size_t instants = 0, bad = 0, lines = 0;
	int64_t id;
	int err, n;
	bool grows;
	char *text, *line, *save = NULL, *copy;
	double v;
	FILE *f;

	snprintf(db, sizeof(db), "%s/hist.db", tap_tmpdir());
	if (sl_store_open(db, SL_STORE_CREATE, &st)) {
		ok(0, "open %s", db);
		return done_testing();
	}
	text = history(st, NULL, &err, &instants);
	is_int(err, -ENOENT, "a database without windows: -ENOENT");
	free(text);
	for (int r = 0; r < 2; r++) {
		synth_win_default(&cfg);
		cfg.kernel_release = "6.1";
		cfg.seed = 21 + r;
		if (synth_win_to_store(st, &cfg, &id))
			return done_testing();
	}
	{
		sqlite3_stmt *q;

		if (sqlite3_prepare_v2(sl_store_db(st), "SELECT hostname FROM hosts LIMIT 1", -1,
				       &q, NULL) == SQLITE_OK &&
		    sqlite3_step(q) == SQLITE_ROW)
			snprintf(hostname, sizeof(hostname), "%s", sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
	}
	text = history(st, NULL, &err, &instants);
	is_int(err, 0, "history of two runs written (%zu instants)", instants);
	if (err)
		return done_testing();
	n = (int)strlen(text);
	ok(n > 6 && !strcmp(text + n - 6, "# EOF\n"), "ends with # EOF");
	copy = strdup(text);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		char want[200];

		if (!strcmp(line, "# EOF"))
			continue;
		lines++;
		snprintf(want, sizeof(want), "{host=\"%s\",kernel=\"6.1\",group=", hostname);
		if (!sp || !strchr(sp, '.') || strlen(strchr(sp, '.')) != 4 || !strstr(line, want))
			bad++;
	}
	free(copy);
	ok(lines > 100 && !bad, "%zu samples, each with host \"%s\", kernel and a ms timestamp",
	   lines, hostname);
	ok(instants > 1, "one instant per window end: %zu", instants);

	{
		char pre[256];
		double want;

		snprintf(pre, sizeof(pre),
			 "schedlens_window_seconds_total{host=\"%s\",kernel=\"6.1\",group=\"*\"} ",
			 hostname);
		v = last_value(text, pre, &grows, &n);
		want = db_sum(st, "SELECT sum(dur_ns) / 1e9 FROM windows WHERE grp = '*'");
		ok(grows && fabs(v - want) < 1e-6,
		   "last window seconds of all tasks = the windows' sum (%g = %g)", v, want);
		snprintf(
			pre, sizeof(pre),
			"schedlens_wakeups_total{host=\"%s\",kernel=\"6.1\",group=\"*\",class=\"same\"} ",
			hostname);
		v = last_value(text, pre, &grows, &n);
		want = db_sum(st, "SELECT sum(prev_same) FROM windows WHERE grp = '*'");
		ok(grows && v == want,
		   "last wakeups{class=same} of all tasks = the windows' sum (%g)", want);
		snprintf(pre, sizeof(pre),
			 "schedlens_lhp_cost_seconds_total{host=\"%s\",kernel=\"6.1\","
			 "group=\"postgres\"} ",
			 hostname);
		v = last_value(text, pre, &grows, &n);
		want = db_sum(st,
			      "SELECT sum(lhp_cost_ns) / 1e9 FROM windows WHERE grp = 'postgres'");
		ok(grows && n > 1 && fabs(v - want) < 1e-6,
		   "last LHP cost of postgres in seconds = the windows' sum (%g s)", want);
	}
	free(text);

	text = history(st, "fleet-7", &err, &instants);
	ok(!err && strstr(text, "{host=\"fleet-7\",kernel=\"6.1\"") &&
		   !strstr(text, hostname[0] ? hostname : "\x01"),
	   "--host replaces the host label");
	snprintf(path, sizeof(path), "%s/h.om", tap_tmpdir());
	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		skip("promtool not installed");
	} else if ((f = fopen(path, "w"))) {
		fputs(text, f);
		fclose(f);
		snprintf(cmd, sizeof(cmd),
			 "promtool tsdb create-blocks-from openmetrics '%s' '%s/tsdb' >'%s.out' "
			 "2>&1",
			 path, tap_tmpdir(), path);
		ok(system(cmd) == 0, "promtool tsdb create-blocks-from openmetrics accepts it");
	}
	free(text);
	sl_store_close(st);
	return done_testing();
}
