/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/store*.c: the store handle, connection setup, SQLite error mapping,
 * migrations and the retention core that both the store's and the writer's connections
 * run.
 */
#ifndef SL_STORE_LOCAL_H
#define SL_STORE_LOCAL_H

#include <sqlite3.h>

#include "store.h"

/* PRAGMA application_id of schedlens files: "Slns". */
#define SL_STORE_APP_ID 0x536c6e73

struct sl_store {
	sqlite3 *db;
	char *path;
	unsigned int flags;
	unsigned int busy_ms;
	int version;
};

/* sl_store_connect() flag beside enum sl_store_flags: the connection stays in one thread. */
#define SL_STORE_ONE_THREAD (1u << 16)

/* One migration: schema/NNNN-<name>.sql, then fill (if not NULL) in its transaction. */
struct sl_store_step {
	const char *name;
	const char *sql;
	int (*fill)(sqlite3 *db); /* SQLITE_OK or an SQLite code */
};

/*
 * Turns a failed SQLite call (rc, with db's message if db is set) into our code and a
 * message "<doing> '<path>': <sqlite message>: <what to do>". Returns the code.
 */
int sl_store_dberr(const char *path, sqlite3 *db, int rc, const char *doing);

/* store-segments.c: the insert of a segment of kind (enum sl_seg_kind), and its writing */
struct sl_seg_buf;
int sl_store_seg_prepare(sqlite3 *db, int kind, sqlite3_stmt **ret);
int sl_store_seg_insert(sqlite3_stmt *ins, const struct sl_seg_buf *b);
/* store-segments-fill.c: schema 13's migration of the row tables' rows into segments */
int sl_segments_fill_all(sqlite3 *db);

/* Runs sql (no rows expected); errors through sl_store_dberr. */
int sl_store_exec(sqlite3 *db, const char *path, const char *sql, const char *doing);

/*
 * Opens a connection with our pragmas (WAL, synchronous=NORMAL, secure_delete=OFF unless
 * read-only); reads the header so a non-database fails here. *ret_db is closed by the
 * caller with sqlite3_close().
 */
int sl_store_connect(const char *path, unsigned int flags, unsigned int busy_ms,
		     int64_t max_page_count, sqlite3 **ret_db);

/*
 * Migrates db from its user_version up to target with steps[0..nr) (step i is version
 * i + 1), all in one transaction: on failure nothing changes. An empty file (version 0)
 * gets from_empty instead of the steps when it is not NULL: the SQL of schema target in
 * one step. Returns 0 or a code.
 */
int sl_store_migrate(sqlite3 *db, const char *path, const struct sl_store_step *steps, int nr,
		     int target, const char *from_empty);

/* Unix time in ns. */
uint64_t sl_store_now_wall(void);

/* Table names of the chunked tables, by enum sl_row_type (NULL for tasks). */
extern const char *const sl_store_chunk_table[SL_ROW_TYPES];

/* sl_store_retention() on any connection (the writer's included). */
int sl_store_retention_db(sqlite3 *db, const char *path, const struct sl_retention *policy,
			  uint64_t now_wall_ns, struct sl_retention_stats *stats);

#endif
