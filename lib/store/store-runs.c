// SPDX-License-Identifier: GPL-2.0-only
/* Updates of a run's row after it was recorded or imported (store.h). */
#include <sqlite3.h>

#include "error.h"
#include "store.h"

int sl_store_run_set_facts(struct sl_store *store, int64_t run_id)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *q;
	int rc;

	rc = sqlite3_prepare_v2(db, "UPDATE runs SET facts = 1 WHERE id = ?", -1, &q, NULL);
	if (rc != SQLITE_OK)
		return sl_error(-SL_EDB, "cannot mark run %lld: %s", (long long)run_id,
				sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, run_id);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return sl_error(-SL_EDB, "cannot mark run %lld: %s", (long long)run_id,
				sqlite3_errmsg(db));
	return 0;
}

int sl_store_run_set_import(struct sl_store *store, int64_t run_id, const struct sl_run_import *imp)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *q = NULL;
	int err;

	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (sqlite3_prepare_v2(db,
			       "UPDATE runs SET complete = ?, waker_from_wakeup = ?, import_path = "
			       "?, import_error = ?, skipped_lines = ? WHERE id = ?",
			       -1, &q, NULL) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_int(q, 1, imp->complete);
	sqlite3_bind_int(q, 2, imp->waker_from_wakeup);
	sqlite3_bind_text(q, 3, imp->path, -1, SQLITE_TRANSIENT);
	if (imp->error)
		sqlite3_bind_text(q, 4, imp->error, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 5, (int64_t)imp->skipped_lines);
	sqlite3_bind_int64(q, 6, run_id);
	if (sqlite3_step(q) != SQLITE_DONE)
		goto db_fail;
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto db_fail;
	return 0;
db_fail:
	err = sl_error(-SL_EDB, "'%s': cannot mark run %lld: %s", sl_store_path(store),
		       (long long)run_id, sqlite3_errmsg(db));
	sqlite3_finalize(q);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}
