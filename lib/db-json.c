// SPDX-License-Identifier: GPL-2.0-only
/* SQLite rows as JSON (see db-json.h). */
#include <errno.h>

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
