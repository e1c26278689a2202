// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlens-sql: a loadable SQLite extension with the module of schedlens's per-event
 * virtual tables (lib/store/store-segments.c), for the sqlite3 shell and other programs:
 *
 *     sqlite3 -cmd '.load /usr/lib/schedlens/schedlens-sql' schedlens.db 'SELECT ... FROM wakeups'
 *
 * schedlens registers the module on its own connections; this is the same code built
 * against the extension API (sqlite3ext.h routes every sqlite3_* call through the loading
 * program's SQLite).
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "../lib/store/segment.c"
#include "../lib/store/store-segments.c"

/* the entry point SQLite derives from the file name schedlens-sql.so */
int sqlite3_schedlenssql_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
	(void)err;
	SQLITE_EXTENSION_INIT2(api);
	return sl_store_register_segments(db);
}
