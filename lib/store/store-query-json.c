// SPDX-License-Identifier: GPL-2.0-only
/* SQLite rows as JSON (see db-json.h): the query layer's answers that are JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db-json.h"
#include "error.h"

int sl_db_error(sqlite3 *db, const char *what)
{
	return sl_error(-SL_EDB, "%s: %s", what, sqlite3_errmsg(db));
}

json_t *sl_db_column_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return json_stringn((const char *)sqlite3_column_text(st, i),
				    sqlite3_column_bytes(st, i));
	default:
		return json_null();
	}
}

json_t *sl_db_row_json(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int n = sqlite3_column_count(st);

	for (int i = 0; o && i < n; i++)
		if (sqlite3_column_type(st, i) != SQLITE_BLOB)
			json_object_set_new(o, sqlite3_column_name(st, i),
					    sl_db_column_json(st, i));
	return o;
}

int sl_db_rows_into(sqlite3 *db, sqlite3_stmt *st, json_t *arr, const char *what)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (json_array_append_new(arr, sl_db_row_json(st)))
			return -ENOMEM;
	return rc == SQLITE_DONE ? 0 : sl_db_error(db, what);
}

void sl_db_rows_bool(json_t *rows, const char *key)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		json_t *v = json_object_get(row, key);

		if (v)
			json_object_set_new(row, key, json_boolean(json_integer_value(v) != 0));
	}
}

struct sl_db_stream {
	sqlite3_stmt *st;
	size_t limit, rows;
	enum { S_ROWS, S_TAIL, S_END } state;
	char *pend; /* text not yet handed out */
	size_t pend_len, pend_off;
};

int sl_db_stream_new(sqlite3_stmt *st, json_t *head, const char *key, size_t limit,
		     struct sl_db_stream **ret)
{
	struct sl_db_stream *s = calloc(1, sizeof(*s));
	char *text = head ? json_dumps(head, JSON_COMPACT) : NULL;
	size_t n = text ? strlen(text) : 0;

	json_decref(head);
	/* "{...}" without its closing brace, then the array's opening */
	if (!s || !text || n < 2 || !(s->pend = malloc(n + strlen(key) + 8))) {
		free(text);
		free(s);
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	s->pend_len = (size_t)sprintf(s->pend, "%.*s%s\"%s\":[", (int)(n - 1), text,
				      n > 2 ? "," : "", key);
	free(text);
	s->st = st;
	s->limit = limit;
	*ret = s;
	return 0;
}

/* The next piece of text into s->pend: a row (comma first but for the first), or the tail. */
static int stream_next(struct sl_db_stream *s)
{
	json_t *row;
	char *text;
	size_t n;
	int rc;

	free(s->pend);
	s->pend = NULL;
	s->pend_len = s->pend_off = 0;
	if (s->state == S_TAIL) {
		bool truncated = false;

		if (s->rows == s->limit)
			truncated = (rc = sqlite3_step(s->st)) == SQLITE_ROW;
		if (!(s->pend = strdup(truncated ? "],\"truncated\":true}" :
						   "],\"truncated\":false}")))
			return -ENOMEM;
		s->pend_len = strlen(s->pend);
		s->state = S_END;
		return 0;
	}
	if (s->rows == s->limit || (rc = sqlite3_step(s->st)) == SQLITE_DONE) {
		s->state = S_TAIL;
		return stream_next(s);
	}
	if (rc != SQLITE_ROW)
		return sl_db_error(sqlite3_db_handle(s->st), "cannot read rows");
	row = sl_db_row_json(s->st);
	text = row ? json_dumps(row, JSON_COMPACT) : NULL;
	json_decref(row);
	if (!text)
		return -ENOMEM;
	n = strlen(text);
	if (s->rows++) {
		/* a comma before every row but the first */
		char *t = realloc(text, n + 2);

		if (!t) {
			free(text);
			return -ENOMEM;
		}
		memmove(t + 1, t, n + 1);
		t[0] = ',';
		text = t;
		n++;
	}
	s->pend = text;
	s->pend_len = n;
	return 0;
}

ssize_t sl_db_stream_read(struct sl_db_stream *s, char *buf, size_t max)
{
	size_t out = 0;
	int err;

	while (out < max) {
		size_t n = s->pend_len - s->pend_off;

		if (n) {
			if (n > max - out)
				n = max - out;
			memcpy(buf + out, s->pend + s->pend_off, n);
			s->pend_off += n;
			out += n;
			continue;
		}
		if (s->state == S_END)
			break;
		if ((err = stream_next(s)) < 0)
			return out ? (ssize_t)out : err;
	}
	return (ssize_t)out;
}

void sl_db_stream_free(struct sl_db_stream *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->st);
	free(s->pend);
	free(s);
}

int sl_db_stmt_rows(sqlite3 *db, sqlite3_stmt *st, const char *what, json_t **ret)
{
	json_t *arr = json_array();
	int err = arr ? sl_db_rows_into(db, st, arr, what) : -ENOMEM;

	sqlite3_finalize(st);
	if (err) {
		json_decref(arr);
		return err;
	}
	*ret = arr;
	return 0;
}

int sl_db_query_rows(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t from, int64_t to,
		     const char *what, json_t **ret)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot prepare query");
	if (sqlite3_bind_parameter_count(st) >= 1)
		sqlite3_bind_int64(st, 1, a);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, from);
	if (sqlite3_bind_parameter_count(st) >= 4)
		sqlite3_bind_int64(st, 4, to);
	return sl_db_stmt_rows(db, st, what, ret);
}
