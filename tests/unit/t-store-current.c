// SPDX-License-Identifier: GPL-2.0-only
/*
 * schema/current.sql is what the migrations leave an empty file: a new file gets it in one
 * step (lib/store/store.c, create_current). This test builds a file through every
 * migration, dumps its schema and the rows of its lookup tables the way current.sql is
 * written, and fails while the file differs; `t-store-current --write` (`make
 * schema-current`) rewrites it. Then a file created the default way must dump the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "error.h"
#include "fixture.h"
#include "store.h"
#include "tap.h"

#define BAIL_OUT(...) (printf("Bail out! " __VA_ARGS__), putchar('\n'), exit(1))

struct text {
	char *s;
	size_t len, cap;
};

static void add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			BAIL_OUT("out of memory");
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = 0;
}

static void adds(struct text *t, const char *s)
{
	add(t, s, strlen(s));
}

/* A value as an SQL literal: the lookup tables hold integers, text and NULLs only. */
static int add_value(struct text *t, sqlite3_stmt *st, int col)
{
	char num[32];

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		snprintf(num, sizeof(num), "%lld", (long long)sqlite3_column_int64(st, col));
		adds(t, num);
		return 0;
	case SQLITE_NULL:
		adds(t, "NULL");
		return 0;
	case SQLITE_TEXT:
		adds(t, "'");
		for (const char *p = (const char *)sqlite3_column_text(st, col); *p; p++) {
			if (*p == '\'')
				adds(t, "'"); /* doubled */
			add(t, p, 1);
		}
		adds(t, "'");
		return 0;
	default:
		return -1;
	}
}

/* Every table's rows (a new file's are the lookup tables'), as INSERT statements. */
static int dump_rows(sqlite3 *db, const char *table, struct text *t)
{
	char sql[160];
	sqlite3_stmt *st;
	int rc, err = 0;

	/* in the table's own order: its rowid, or its key WITHOUT ROWID */
	snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\"", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		diag("%s: %s", table, sqlite3_errmsg(db));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !err) {
		adds(t, "INSERT INTO ");
		adds(t, table);
		adds(t, " VALUES(");
		for (int c = 0; c < sqlite3_column_count(st) && !err; c++) {
			if (c)
				adds(t, ",");
			err = add_value(t, st, c);
		}
		adds(t, ");\n");
	}
	sqlite3_finalize(st);
	if (err)
		diag("table %s holds a value that is no integer, text or NULL", table);
	return err || rc != SQLITE_DONE ? -1 : 0;
}

/*
 * The file's schema as SQL that creates it again: sqlite_master's statements in the order
 * they were made (SQLite's own objects, which it makes itself, left out), then the rows.
 */
static char *dump(const char *path, int64_t version)
{
	struct text t = { 0 };
	struct sl_store *st;
	sqlite3_stmt *q;
	char head[160];
	int err;

	err = sl_store_open(path, SL_STORE_RDONLY, &st);
	if (err) {
		diag("%s", sl_errmsg(err));
		return NULL;
	}
	snprintf(head, sizeof(head),
		 "-- schedlens schema %lld, as the migrations leave an empty file: a new file\n"
		 "-- gets it in one step. Written by `make schema-current`: do not edit.\n",
		 (long long)version);
	adds(&t, head);
	sqlite3_prepare_v2(sl_store_db(st),
			   "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE "
			   "'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
			   -1, &q, NULL);
	while (sqlite3_step(q) == SQLITE_ROW) {
		adds(&t, (const char *)sqlite3_column_text(q, 0));
		adds(&t, ";\n");
	}
	sqlite3_finalize(q);
	sqlite3_prepare_v2(sl_store_db(st),
			   "SELECT name FROM sqlite_master WHERE type = 'table' AND rootpage > 0 "
			   "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
			   -1, &q, NULL);
	while (!err && sqlite3_step(q) == SQLITE_ROW)
		err = dump_rows(sl_store_db(st), (const char *)sqlite3_column_text(q, 0), &t);
	sqlite3_finalize(q);
	sl_store_close(st);
	if (err) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

static char *create(const char *name, unsigned int flags)
{
	const char *path = fixture_path(name);
	struct sl_store_opts opts = { .flags = SL_STORE_CREATE | flags };
	struct sl_store *st;
	int err = sl_store_open_opts(path, &opts, &st);

	if (err)
		BAIL_OUT("creating %s: %s", path, sl_errmsg(err));
	is_int(sl_store_schema_version(st), sl_store_schema_latest(), "%s is at schema %d", name,
	       sl_store_schema_latest());
	sl_store_close(st);
	return dump(path, sl_store_schema_latest());
}

/* The first line that differs, for the diagnostics. */
static void show_difference(const char *a, const char *b)
{
	int line = 1;

	while (*a && *a == *b) {
		line += *a == '\n';
		a++, b++;
	}
	diag("first difference at line %d:\n#   have: %.100s\n#   want: %.100s", line, a, b);
}

int main(int argc, char **argv)
{
	const char *src = getenv("SL_SRC");
	char file[1024], *migrated, *current, *created;
	FILE *f;

	snprintf(file, sizeof(file), "%s/schema/current.sql", src ? src : ".");
	migrated = create("migrated.db", SL_STORE_BY_MIGRATIONS);
	if (!migrated)
		BAIL_OUT("cannot dump the migrated file");
	if (argc > 1 && !strcmp(argv[1], "--write")) {
		f = fopen(file, "w");
		if (!f || fputs(migrated, f) < 0 || fclose(f))
			BAIL_OUT("cannot write %s: %s", file, strerror(errno));
		printf("# wrote %s\n", file);
		return done_testing();
	}
	current = fixture_slurp(file, NULL);
	if (!current)
		BAIL_OUT("cannot read %s", file);
	if (!is_int(strcmp(current, migrated) == 0, 1,
		    "schema/current.sql is what the migrations leave an empty file")) {
		show_difference(current, migrated);
		diag("`make schema-current` rewrites it");
	}
	created = create("created.db", 0);
	ok(created && !strcmp(created, migrated),
	   "a file created from it dumps as the migrated one does");
	if (created && strcmp(created, migrated))
		show_difference(created, migrated);
	is_int(fixture_q_int(fixture_path("created.db"), "PRAGMA application_id"),
	       fixture_q_int(fixture_path("migrated.db"), "PRAGMA application_id"),
	       "the same application_id");
	free(migrated);
	free(current);
	free(created);
	return done_testing();
}
