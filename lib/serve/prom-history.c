// SPDX-License-Identifier: GPL-2.0-only
/*
 * The history of /metrics from a database (prom-history.h): the windows of every run are
 * replayed, in the order their wall-clock ends fall, through the same counter table the
 * daemon exports (metrics-prom.c), one table per host, and each table is written out,
 * stamped, after each window of its host.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "metrics-prom.h"
#include "prom-history.h"
#include "window-counters.h"

#define MAX_HOSTS 64

/*
 * A window's wall-clock end: the run's start_wall plus its offset on the trace clock. The
 * run's values come from subqueries: runs has columns of the counters' names too.
 */
#define RUN_OF_W "FROM runs r WHERE r.id = windows.run_id"
#define HIST_SQL                                                                            \
	"SELECT (SELECT h.hostname FROM runs r JOIN hosts h ON h.id = r.host_id "           \
	"WHERE r.id = windows.run_id), "                                                    \
	"(SELECT r.kernel_release " RUN_OF_W "), grp, "                                     \
	"(SELECT r.start_wall - coalesce(r.start_ns, 0) " RUN_OF_W ") + start_ns + dur_ns " \
	"AS end_wall, dur_ns" SL_WINDOW_COLUMNS ", lat_hist FROM windows WHERE dur_ns > 0 " \
	"ORDER BY end_wall, 1"

struct host_tab {
	char name[128];
	struct sl_prom *p;
};

static struct sl_prom *host_table(struct host_tab *t, int *nr, const char *name)
{
	for (int i = 0; i < *nr; i++)
		if (!strcmp(t[i].name, name))
			return t[i].p;
	if (*nr == MAX_HOSTS)
		return NULL;
	snprintf(t[*nr].name, sizeof(t[*nr].name), "%s", name);
	if (!(t[*nr].p = sl_prom_new(name)))
		return NULL;
	return t[(*nr)++].p;
}

int sl_prom_history_write(struct sl_store *store, const char *host, FILE *out, size_t *ret_instants)
{
	sqlite3 *db = sl_store_db(store);
	struct host_tab *tabs = calloc(MAX_HOSTS, sizeof(*tabs));
	struct sl_window_rec *w = malloc(sizeof(*w));
	struct sl_prom *pending = NULL;
	uint64_t pending_wall = 0;
	sqlite3_stmt *st = NULL;
	size_t instants = 0;
	int nr = 0, rc, err = 0;

	if (!tabs || !w) {
		err = -ENOMEM;
		goto out;
	}
	if (sqlite3_prepare_v2(db, HIST_SQL, -1, &st, NULL) != SQLITE_OK) {
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *h = host ? host : (const char *)sqlite3_column_text(st, 0);
		const char *kernel = (const char *)sqlite3_column_text(st, 1);
		const char *grp = (const char *)sqlite3_column_text(st, 2);
		uint64_t wall = (uint64_t)sqlite3_column_int64(st, 3);
		struct sl_prom *p;
		int c = 4;

		if (!h || !kernel || !grp)
			continue;
		if (!(p = host_table(tabs, &nr, h))) {
			err = sl_error(-ENOMEM, "more than %d hosts, or out of memory", MAX_HOSTS);
			goto out;
		}
		/* a host's instant is written once all its windows ending then are counted */
		if (pending && (pending != p || pending_wall / 1000000 != wall / 1000000)) {
			sl_prom_render_history(pending, out, pending_wall);
			instants++;
		}
		memset(w, 0, sizeof(*w));
		snprintf(w->grp, sizeof(w->grp), "%s", grp);
		w->dur_ns = (uint64_t)sqlite3_column_int64(st, c++);
		for (int i = 0; i < SL_WIN_NR; i++)
			SL_WIN_VALUE(w, i) = (uint64_t)sqlite3_column_int64(st, c++);
		if ((err = sl_hist_decode(sqlite3_column_blob(st, c),
					  (size_t)sqlite3_column_bytes(st, c), &w->latency)))
			goto out;
		sl_prom_add_window(p, kernel, w);
		pending = p;
		pending_wall = wall;
	}
	if (rc != SQLITE_DONE) {
		err = sl_error(-SL_EDB, "cannot read windows: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (!pending) {
		err = sl_error(-ENOENT, "no windows to export");
		goto out;
	}
	sl_prom_render_history(pending, out, pending_wall);
	instants++;
	fputs("# EOF\n", out);
	if (fflush(out) || ferror(out)) {
		err = sl_error(-EIO, "cannot write the history: %s", strerror(errno));
		goto out;
	}
	if (ret_instants)
		*ret_instants = instants;
out:
	sqlite3_finalize(st);
	for (int i = 0; i < nr; i++)
		sl_prom_free(tabs[i].p);
	free(tabs);
	free(w);
	return err;
}
