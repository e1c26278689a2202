/* SPDX-License-Identifier: GPL-2.0-only */
/* SQLite rows as JSON, for the API and the stored comparisons. */
#ifndef SL_DB_JSON_H
#define SL_DB_JSON_H

#include <jansson.h>
#include <sqlite3.h>

/* sl_error(-SL_EDB, "<what>: <SQLite's message>"): the error code, with the message set. */
int sl_db_error(sqlite3 *db, const char *what);

/* A column of the current row: integer, real or string; NULL (and BLOB) as null. */
json_t *sl_db_column_json(sqlite3_stmt *st, int i);

/* The current row as an object keyed by column name, BLOB columns left out; NULL when out
 * of memory. */
json_t *sl_db_row_json(sqlite3_stmt *st);

/* Steps st to its end, appending each row to arr as an object. 0, -ENOMEM, or
 * sl_db_error(db, what). */
int sl_db_rows_into(sqlite3 *db, sqlite3_stmt *st, json_t *arr, const char *what);

#endif
