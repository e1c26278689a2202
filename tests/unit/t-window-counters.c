// SPDX-License-Identifier: GPL-2.0-only
/*
 * The docs follow the lists: schedlens/README.md's windows table is the one generated from
 * SL_WINDOW_COUNTERS (lib/common/window-counters.h), docs/metrics.md's metric table names every
 * metric of sl_metrics[] (lib/common/metrics.c) once, with its unit, polarity and family; the
 * counters' columns are the windows table's (a fresh store). `t-window-counters --write`
 * rewrites the README's table from the list instead (`make schema-doc`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "fixture.h"
#include "metrics.h"
#include "records.h"
#include "store.h"
#include "tap.h"

static const char *const head_rows = "| column | meaning |\n"
				     "|---|---|\n"
				     "| run_id | → runs.id |\n"
				     "| grp | the group, `*` for all tasks |\n"
				     "| start_ns, dur_ns | the window |\n";
static const char *const tail_rows =
	"| lat_count | wakeup latencies counted |\n"
	"| lat_p50_ns, lat_p99_ns | their median and 99th percentile (lower bound of the histogram "
	"bucket, at most 6.25% low), NULL if none |\n"
	"| lat_hist | the latency histogram, see below |\n";

/* The windows table as generated: consecutive counters with one sentence share a row. */
static char *windows_table(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fputs(head_rows, f);
	for (int i = 0; i < SL_WIN_NR; i++) {
		const char *doc = sl_window_counters[i].doc;

		fprintf(f, "| %s", sl_window_counters[i].column);
		while (i + 1 < SL_WIN_NR && !strcmp(sl_window_counters[i + 1].doc, doc))
			fprintf(f, ", %s", sl_window_counters[++i].column);
		fprintf(f, " | %s |\n", doc);
	}
	fputs(tail_rows, f);
	fclose(f);
	return buf;
}

/* The table under "### windows": from its header row to the first blank line. */
static int find_table(const char *text, size_t *ret_start, size_t *ret_end)
{
	const char *sec = strstr(text, "\n### windows\n"), *start, *end;

	if (!sec || !(start = strstr(sec, "\n| column | meaning |\n")))
		return -1;
	start++;
	end = strstr(start, "\n\n");
	if (!end)
		return -1;
	*ret_start = (size_t)(start - text);
	*ret_end = (size_t)(end - text) + 1;
	return 0;
}

static int write_readme(const char *path)
{
	char *text = fixture_slurp(path, NULL), *table = windows_table();
	size_t a, b;
	FILE *f;

	if (!text || find_table(text, &a, &b)) {
		fprintf(stderr, "cannot find the windows table in '%s'\n", path);
		return 1;
	}
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%.*s%s%s", (int)a, text, table, text + b);
	free(text);
	free(table);
	return fclose(f) ? 1 : 0;
}

static void check_readme(const char *path)
{
	char *text = fixture_slurp(path, NULL), *table = windows_table();
	size_t a = 0, b = 0;

	ok(text && !find_table(text, &a, &b), "schema/README.md has a windows table");
	if (text && b > a) {
		char *got = strndup(text + a, b - a);

		if (!is_str(got, table, "schema/README.md's windows table is SL_WINDOW_COUNTERS'"))
			diag("`make schema-doc` rewrites it from lib/common/window-counters.h");
		free(got);
	}
	free(text);
	free(table);
}

/* Every counter is a column of a fresh store's windows table, and the other way round. */
static void check_columns(void)
{
	char path[512], sql[128];
	struct sl_store *store = NULL;
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int n = 0, found = 0;

	snprintf(path, sizeof(path), "%s/w.db", tap_tmpdir());
	ok(!sl_store_open(path, SL_STORE_CREATE, &store), "fresh store");
	sl_store_close(store);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		return;
	snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('windows')");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(st, 0);

			n++;
			for (int i = 0; i < SL_WIN_NR; i++)
				found += !strcmp(c, sl_window_counters[i].column);
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	is_int(found, SL_WIN_NR, "every counter is a windows column");
	/* run_id, grp, start_ns, dur_ns and the 4 latency columns are not counters */
	is_int(n, SL_WIN_NR + 8, "every other windows column is a counter");
}

/* "prev_{same,smt}_share" -> its names, one per line, in out. */
static void expand(const char *name, size_t len, char *out, size_t size)
{
	const char *open = memchr(name, '{', len), *close = open ? memchr(open, '}', len) : NULL;
	size_t o = 0;

	if (!open || !close) {
		snprintf(out, size, "%.*s\n", (int)len, name);
		return;
	}
	for (const char *p = open + 1; p < close && o < size;) {
		size_t alt = strcspn(p, ",}");

		o += (size_t)snprintf(out + o, size - o, "%.*s%.*s%.*s\n", (int)(open - name), name,
				      (int)alt, p, (int)(name + len - close - 1), close + 1);
		p += alt + 1;
	}
}

static void check_metrics_md(const char *path)
{
	char *text = fixture_slurp(path, NULL), rowbuf[1024], names[1024];
	int seen[64] = { 0 }, unknown = 0, wrong = 0;

	ok(text != NULL, "docs/metrics.md read");
	for (const char *line = text; line && *line; line = strchr(line, '\n') + 1) {
		const char *e = strchr(line, '\n');

		if (!e)
			break;
		if (strncmp(line, "| `", 3) || (size_t)(e - line) >= sizeof(rowbuf))
			continue;
		snprintf(rowbuf, sizeof(rowbuf), "%.*s", (int)(e - line), line);
		/* | `name` | definition | unit | polarity | floor | family | */
		char *cells[8], *save = NULL;
		int nc = 0;

		for (char *c = strtok_r(rowbuf, "|", &save); c && nc < 8;
		     c = strtok_r(NULL, "|", &save))
			cells[nc++] = c;
		if (nc != 6 || !strchr(cells[0], '`'))
			continue;
		char *n0 = strchr(cells[0], '`') + 1, *n1 = strchr(n0, '`');

		if (!n1)
			continue;
		expand(n0, (size_t)(n1 - n0), names, sizeof(names));
		for (char *nm = strtok_r(names, "\n", &save); nm;
		     nm = strtok_r(NULL, "\n", &save)) {
			const struct sl_metric *m = sl_metric_find(nm);

			if (!m) {
				/* tables of other things (events, columns) start with a name too */
				unknown++;
				continue;
			}
			seen[m - sl_metrics]++;
			if (!strstr(cells[3], sl_polarity_name(m->polarity)) ||
			    (m->primary && !strstr(cells[5], "primary")) ||
			    (!m->primary && !strstr(cells[5], "secondary"))) {
				diag("docs/metrics.md: %s's polarity or family differs", nm);
				wrong++;
			}
		}
	}
	for (size_t i = 0; i < sl_nr_metrics; i++)
		if (!is_int(seen[i], 1, "docs/metrics.md lists %s once", sl_metrics[i].name))
			wrong++;
	is_int(wrong, 0, "docs/metrics.md's metric table follows sl_metrics[]");
	(void)unknown;
	free(text);
}

int main(int argc, char **argv)
{
	const char *src = getenv("SL_SRC");
	char readme[1024], metrics_md[1024];

	snprintf(readme, sizeof(readme), "%s/schema/README.md", src ? src : ".");
	snprintf(metrics_md, sizeof(metrics_md), "%s/docs/metrics.md", src ? src : ".");
	if (argc > 1 && !strcmp(argv[1], "--write"))
		return write_readme(readme);
	check_readme(readme);
	check_columns();
	check_metrics_md(metrics_md);
	return done_testing();
}
