// SPDX-License-Identifier: GPL-2.0-only
/*
 * Schema 13's migration (schema/0013-segments.sql): the rows of the row tables
 * sched_slices, wakeups, preemptions and sched_facts, encoded into segments of their
 * <table>_seg in rowid order (one run and one retention chunk per segment, SL_SEG_ROWS rows
 * at most), their chunks moved to the segments' ids; then each row table is dropped and
 * made again as a virtual table over its segments (store-segments.c). One pass over each
 * table, one segment in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "segment.h"
#include "store-local.h"

struct fill_chunk {
	int64_t id, first_rowid, last_rowid;
	int64_t first_seg, last_seg; /* 0: no segment yet */
};

struct fill {
	sqlite3 *db;
	int kind;
	struct sl_seg_buf buf;
	int chunk; /* of the rows in buf: index in chunks, -1 for none */
	struct fill_chunk *chunks;
	size_t nr_chunks;
	sqlite3_stmt *ins;
};

static int load_chunks(struct fill *f, const char *old)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc = sqlite3_prepare_v2(f->db,
				    "SELECT id, first_rowid, last_rowid FROM chunks WHERE tbl = ?1 "
				    "ORDER BY first_rowid",
				    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, old, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (f->nr_chunks == alloc) {
			struct fill_chunk *n =
				realloc(f->chunks, (alloc = alloc ? alloc * 2 : 64) * sizeof(*n));

			if (!n) {
				rc = SQLITE_NOMEM;
				break;
			}
			f->chunks = n;
		}
		f->chunks[f->nr_chunks++] = (struct fill_chunk){
			.id = sqlite3_column_int64(st, 0),
			.first_rowid = sqlite3_column_int64(st, 1),
			.last_rowid = sqlite3_column_int64(st, 2),
		};
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int flush(struct fill *f)
{
	struct sl_seg_buf *b = &f->buf;
	int64_t id;
	int rc;

	if (!b->rows)
		return SQLITE_OK;
	rc = sl_store_seg_insert(f->ins, b);
	if (rc != SQLITE_OK)
		return rc;
	id = sqlite3_last_insert_rowid(f->db);
	if (f->chunk >= 0) {
		struct fill_chunk *c = &f->chunks[f->chunk];

		if (!c->first_seg)
			c->first_seg = id;
		c->last_seg = id;
	}
	sl_seg_reset(b);
	return SQLITE_OK;
}

/* The chunk rowid is in, or -1; *at walks the chunks (sorted) along with the rowids. */
static int chunk_of(struct fill *f, size_t *at, int64_t rowid)
{
	while (*at < f->nr_chunks && f->chunks[*at].last_rowid < rowid)
		(*at)++;
	if (*at < f->nr_chunks && f->chunks[*at].first_rowid <= rowid)
		return (int)*at;
	return -1;
}

/* Encodes every row of the row table into segments. */
static int encode_rows(struct fill *f, const char *old)
{
	const struct sl_seg_table *t = &sl_seg_tables[f->kind];
	char sql[1024];
	size_t n, at = 0;
	sqlite3_stmt *st;
	int rc;

	n = (size_t)snprintf(sql, sizeof(sql), "SELECT rowid, run_id");
	for (int c = 0; c < t->ncols; c++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", %s", t->cols[c].name);
	snprintf(sql + n, sizeof(sql) - n, "%s FROM %s ORDER BY rowid",
		 f->kind == SL_SEG_FACT ? ", txt" : "", old);
	rc = sqlite3_prepare_v2(f->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t vals[SL_SEG_MAX_COLS], run_id = sqlite3_column_int64(st, 1);
		int chunk = chunk_of(f, &at, sqlite3_column_int64(st, 0));
		const char *txt = NULL;

		for (int c = 0; c < t->ncols; c++) {
			if (sqlite3_column_type(st, c + 2) == SQLITE_NULL)
				vals[c] = SL_SEG_NULL;
			else if (t->cols[c].text)
				vals[c] = sl_seg_text_code(
					(const char *)sqlite3_column_text(st, c + 2));
			else
				vals[c] = sqlite3_column_int64(st, c + 2);
		}
		if (f->kind == SL_SEG_FACT)
			txt = (const char *)sqlite3_column_text(st, t->ncols + 2);
		if (f->buf.rows &&
		    (f->buf.run_id != run_id || f->chunk != chunk || f->buf.rows >= SL_SEG_ROWS)) {
			rc = flush(f);
			if (rc != SQLITE_OK)
				break;
		}
		f->buf.run_id = run_id;
		f->chunk = chunk;
		if (sl_seg_append(&f->buf, f->kind, vals, txt)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc;
	return flush(f);
}

/* The chunks of the row table now range over segment ids; those left empty go. */
static int move_chunks(struct fill *f)
{
	sqlite3_stmt *set, *del;
	int rc = sqlite3_prepare_v2(f->db,
				    "UPDATE chunks SET tbl = ?1, first_rowid = ?2, last_rowid = ?3 "
				    "WHERE id = ?4",
				    -1, &set, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_prepare_v2(f->db, "DELETE FROM chunks WHERE id = ?1", -1, &del, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < f->nr_chunks; i++) {
		const struct fill_chunk *c = &f->chunks[i];
		sqlite3_stmt *st = c->first_seg ? set : del;

		if (c->first_seg) {
			sqlite3_bind_text(st, 1, sl_seg_tables[f->kind].store, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, c->first_seg);
			sqlite3_bind_int64(st, 3, c->last_seg);
			sqlite3_bind_int64(st, 4, c->id);
		} else {
			sqlite3_bind_int64(st, 1, c->id);
		}
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_finalize(set);
	sqlite3_finalize(del);
	return rc;
}

static int fill_kind(sqlite3 *db, int kind)
{
	const struct sl_seg_table *t = &sl_seg_tables[kind];
	struct fill f = { .db = db, .kind = kind, .chunk = -1 };
	char sql[256];
	int rc;

	sl_seg_reset(&f.buf);
	rc = sl_store_seg_prepare(db, kind, &f.ins);
	if (rc == SQLITE_OK)
		rc = load_chunks(&f, t->name);
	if (rc == SQLITE_OK)
		rc = encode_rows(&f, t->name);
	if (rc == SQLITE_OK)
		rc = move_chunks(&f);
	sqlite3_finalize(f.ins);
	sl_seg_free(&f.buf);
	free(f.chunks);
	if (rc != SQLITE_OK)
		return rc;
	snprintf(sql, sizeof(sql),
		 "DROP TABLE %s; CREATE VIRTUAL TABLE %s USING schedlens_segments(%s)", t->name,
		 t->name, t->name);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int sl_segments_fill_all(sqlite3 *db)
{
	int rc = SQLITE_OK;

	for (int k = 0; k < SL_SEG_KINDS && rc == SQLITE_OK; k++)
		rc = fill_kind(db, k);
	return rc;
}
