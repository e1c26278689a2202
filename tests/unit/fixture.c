// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fixtures for unit tests (fixture.h): topologies generated with tests/fixtures/mksysfs
 * ($SL_SRC is the repository root; make check sets it), scratch paths, one-value queries.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "fixture.h"
#include "store.h"
#include "tap.h"

char *fixture_slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (ret_len)
		*ret_len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = calloc(1, (size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf && ret_len)
		*ret_len = (size_t)n;
	return buf;
}

struct sl_topo *fixture_topo(const char *shape)
{
	const char *src = getenv("SL_SRC");
	char cmd[4096], root[1024];
	struct sl_topo *topo;
	int err;

	snprintf(root, sizeof(root), "%s/fixture-%s", tap_tmpdir(), shape);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && '%s/tests/fixtures/mksysfs' %s '%s'", root,
		 src ? src : ".", shape, root);
	if (system(cmd) != 0) {
		printf("Bail out! cannot run: %s\n", cmd);
		exit(1);
	}
	err = sl_topo_read(root, &topo);
	if (err) {
		printf("Bail out! %s\n", sl_errmsg(err));
		exit(1);
	}
	return topo;
}

char *fixture_path(const char *name)
{
	static char buf[8][512];
	static int n;
	char *p = buf[n++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", tap_tmpdir(), name);
	return p;
}

int64_t fixture_q_int_db(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -999;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	} else {
		diag("q_int: %s: %s", sql, sqlite3_errmsg(db));
	}
	return v;
}

int64_t fixture_q_int(const char *path, const char *sql)
{
	sqlite3 *db;
	int64_t v;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sl_store_register_segments(db) != SQLITE_OK) {
		sqlite3_close(db);
		return -998;
	}
	v = fixture_q_int_db(db, sql);
	sqlite3_close(db);
	return v;
}

struct sl_store *fixture_store(const char *name, const struct sl_store_opts *opts,
			       const struct sl_host_info *h, struct sl_run_meta *m,
			       int64_t *ret_run)
{
	const struct sl_store_opts create = { .flags = SL_STORE_CREATE };
	struct sl_store *st = NULL;
	int64_t host;
	int err;

	if ((err = sl_store_open_opts(fixture_path(name), opts ? opts : &create, &st)) ||
	    (err = sl_store_host_upsert(st, h, &host))) {
		printf("Bail out! cannot set up the store %s: %s\n", name, sl_errmsg(err));
		exit(1);
	}
	m->host_id = host;
	if ((err = sl_store_run_begin(st, m, ret_run))) {
		printf("Bail out! cannot begin a run in %s: %s\n", name, sl_errmsg(err));
		exit(1);
	}
	return st;
}
