/* SPDX-License-Identifier: GPL-2.0-only */
/* SQLite rows as JSON, for the API and the stored comparisons. */
#ifndef SL_DB_JSON_H
#define SL_DB_JSON_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

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

/* Each row's member key, a SQL truth value (integer 0 or 1), as a JSON boolean. */
void sl_db_rows_bool(json_t *rows, const char *key);

/* The rows of the prepared st as a new array in *ret; st is finalized either way. 0,
 * -ENOMEM, or sl_db_error(db, what). */
int sl_db_stmt_rows(sqlite3 *db, sqlite3_stmt *st, const char *what, json_t **ret);

/*
 * The rows of sql as a new array in *ret (for store*.c): ?1 = a, ?2 = b, ?3 = from, ?4 = to,
 * those the statement has (a statement may skip one: SQLite numbers parameters by their
 * ?NNN). 0, -ENOMEM or -SL_EDB ("cannot prepare query" / what).
 */
int sl_db_query_rows(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t from, int64_t to,
		     const char *what, json_t **ret);

/*
 * A JSON document streamed from a statement, row by row, so a large answer never sits in
 * memory: the members of head, then "<key>":[row, ...] with at most limit rows, then
 * "truncated" (true when st had a row beyond limit: let st yield limit + 1). The statement
 * (and so its read transaction) lives until sl_db_stream_free(); it must be stepped on the
 * thread that owns its connection.
 */
struct sl_db_stream;

/* Takes over st and head (both released by sl_db_stream_free(), also on error). 0 or
 * -ENOMEM. */
int sl_db_stream_new(sqlite3_stmt *st, json_t *head, const char *key, size_t limit,
		     struct sl_db_stream **ret);

/* Up to max bytes of the document into buf: their number, 0 at its end, or -SL_EDB (a
 * database error mid-document) / -ENOMEM; the message is set. */
ssize_t sl_db_stream_read(struct sl_db_stream *s, char *buf, size_t max);

/* Finalizes the statement and frees (NULL is fine). */
void sl_db_stream_free(struct sl_db_stream *s);

#endif
