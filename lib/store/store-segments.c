// SPDX-License-Identifier: GPL-2.0-only
/*
 * The row tables over the event segments: module `schedlens_segments`, whose virtual
 * tables sched_slices, wakeups, preemptions and sched_facts (schema/0013-segments.sql)
 * read their segment tables (sched_slices_seg, ...) and decode them row by row
 * (segment.h), with the columns the row tables of schemas 1-12 had. So the documented
 * SQL keeps working on every connection that has the module: schedlens registers it on
 * each of its own, and the `sqlite3` shell or another program loads it from the
 * schedlens-sql extension (ext/schedlens-sql.c). Read only.
 *
 * A query's run_id = ? and bounds on the time column (start_ns for sched_slices, ts_ns
 * for the others) pick the segments through their (run_id, min_ns) index and their
 * min/max; SQLite checks every constraint again on the rows, so the pick need only be
 * wide enough. A row's rowid is its segment's id times 65536 plus its index there: the
 * order it was written in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-local.h"
#include "segment.h"

#define SEG_ROWID_SHIFT 16 /* a row's index in its segment fits below bit 16 */
_Static_assert(SL_SEG_ROWS <= 1 << SEG_ROWID_SHIFT, "rowids of two segments would overlap");

/*
 * xBestIndex's plan: which of run_id = ?, time >= ?, time <= ? xFilter's argv holds, in
 * that order; PLAN_EQ: a time equality, whose one argument is both bounds.
 */
enum { PLAN_RUN = 1, PLAN_LO = 2, PLAN_HI = 4, PLAN_EQ = 8 };

struct seg_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	int kind;
};

struct seg_cursor {
	sqlite3_vtab_cursor base;
	/* the cursor's own (a self-join has two cursors at once), prepared for plan */
	sqlite3_stmt *segs; /* on the current segment: its blob stays valid while it is */
	int plan;
	struct sl_seg_reader rd;
	bool eof;
	int64_t seg_id, run_id, idx;
	int64_t lo, hi; /* rows outside are skipped (SQLite checks again anyway) */
	int64_t vals[SL_SEG_MAX_COLS];
	char txt[SL_SEG_TEXT_MAX + 1];
};

static int kind_of(const char *name)
{
	for (int k = 0; k < SL_SEG_KINDS; k++)
		if (strcmp(sl_seg_tables[k].name, name) == 0)
			return k;
	return -1;
}

/* CREATE VIRTUAL TABLE x USING schedlens_segments(kind): kind names the row table. */
static int seg_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		       sqlite3_vtab **ret, char **err)
{
	const struct sl_seg_table *t;
	struct seg_vtab *v;
	char decl[2048];
	int kind = argc == 4 ? kind_of(argv[3]) : -1;
	size_t n;
	int rc;

	(void)aux;
	if (kind < 0) {
		*err = sqlite3_mprintf("schedlens_segments: want one argument, sched_slices, "
				       "wakeups, preemptions or sched_facts");
		return SQLITE_ERROR;
	}
	t = &sl_seg_tables[kind];
	n = (size_t)snprintf(decl, sizeof(decl), "CREATE TABLE x(run_id INTEGER NOT NULL");
	for (int c = 0; c < t->ncols; c++)
		n += (size_t)snprintf(decl + n, sizeof(decl) - n, ", %s %s", t->cols[c].name,
				      t->cols[c].decl);
	snprintf(decl + n, sizeof(decl) - n, "%s)", kind == SL_SEG_FACT ? ", txt TEXT" : "");
	rc = sqlite3_declare_vtab(db, decl);
	if (rc != SQLITE_OK)
		return rc;
	v = sqlite3_malloc(sizeof(*v));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = db;
	v->kind = kind;
	*ret = &v->base;
	return SQLITE_OK;
}

static int seg_disconnect(sqlite3_vtab *base)
{
	sqlite3_free(base);
	return SQLITE_OK;
}

static int seg_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	struct seg_vtab *v = (struct seg_vtab *)base;
	int time_col = sl_seg_tables[v->kind].time_col + 1; /* run_id is column 0 */
	int slot[3] = { -1, -1, -1 }, plan = 0, argv = 0;
	double cost = 1e7;
	bool time_eq;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (!c->usable)
			continue;
		if (c->iColumn == 0 && c->op == SQLITE_INDEX_CONSTRAINT_EQ)
			slot[0] = i;
		else if (c->iColumn == time_col && (c->op == SQLITE_INDEX_CONSTRAINT_GE ||
						    c->op == SQLITE_INDEX_CONSTRAINT_GT ||
						    c->op == SQLITE_INDEX_CONSTRAINT_EQ))
			slot[1] = i;
		else if (c->iColumn == time_col && (c->op == SQLITE_INDEX_CONSTRAINT_LE ||
						    c->op == SQLITE_INDEX_CONSTRAINT_LT))
			slot[2] = i;
	}
	/* an equality on the time is both bounds, from one argument */
	time_eq = slot[1] >= 0 && info->aConstraint[slot[1]].op == SQLITE_INDEX_CONSTRAINT_EQ;
	if (time_eq)
		slot[2] = -1;
	for (int s = 0; s < 3; s++) {
		if (slot[s] < 0)
			continue;
		plan |= 1 << s;
		info->aConstraintUsage[slot[s]].argvIndex = ++argv;
		cost /= s == 0 ? 20 : 10;
	}
	if (time_eq) {
		plan |= PLAN_HI | PLAN_EQ;
		cost /= 10;
	}
	info->idxNum = plan;
	info->estimatedCost = cost;
	info->estimatedRows = (sqlite3_int64)(cost / 10) + 1;
	return SQLITE_OK;
}

static int seg_open(sqlite3_vtab *base, sqlite3_vtab_cursor **ret)
{
	struct seg_cursor *cur = sqlite3_malloc(sizeof(*cur));

	(void)base;
	if (!cur)
		return SQLITE_NOMEM;
	memset(cur, 0, sizeof(*cur));
	cur->eof = true;
	*ret = &cur->base;
	return SQLITE_OK;
}

static int seg_close(sqlite3_vtab_cursor *base)
{
	struct seg_cursor *cur = (struct seg_cursor *)base;

	sqlite3_finalize(cur->segs);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int set_error(struct seg_cursor *cur, const char *what)
{
	struct seg_vtab *v = (struct seg_vtab *)cur->base.pVtab;

	sqlite3_free(v->base.zErrMsg);
	v->base.zErrMsg = sqlite3_mprintf("%s: %s", sl_seg_tables[v->kind].store, what);
	return SQLITE_CORRUPT_VTAB;
}

/* Moves to the next row of the picked segments within [lo, hi], or to the end. */
static int seg_next(sqlite3_vtab_cursor *base)
{
	struct seg_cursor *cur = (struct seg_cursor *)base;
	struct seg_vtab *v = (struct seg_vtab *)cur->base.pVtab;
	int time_col = sl_seg_tables[v->kind].time_col;

	for (;;) {
		int r = cur->segs && cur->seg_id ? sl_seg_next(&cur->rd, cur->vals, cur->txt) : 0;

		if (r < 0)
			return set_error(cur, "a damaged segment");
		if (r > 0) {
			int64_t ts = cur->vals[time_col];

			cur->idx++;
			if (ts < cur->lo || ts > cur->hi)
				continue;
			return SQLITE_OK;
		}
		r = cur->segs ? sqlite3_step(cur->segs) : SQLITE_DONE;
		if (r == SQLITE_DONE) {
			cur->eof = true;
			return SQLITE_OK;
		}
		if (r != SQLITE_ROW)
			return r;
		cur->seg_id = sqlite3_column_int64(cur->segs, 0);
		cur->run_id = sqlite3_column_int64(cur->segs, 1);
		cur->idx = -1;
		sl_seg_reader_init(&cur->rd, v->kind, sqlite3_column_blob(cur->segs, 2),
				   (size_t)sqlite3_column_bytes(cur->segs, 2));
	}
}

static int seg_filter(sqlite3_vtab_cursor *base, int plan, const char *idx_str, int argc,
		      sqlite3_value **argv)
{
	struct seg_cursor *cur = (struct seg_cursor *)base;
	struct seg_vtab *v = (struct seg_vtab *)cur->base.pVtab;
	sqlite3_value *time_arg = NULL;
	int a = 0, p = 0;

	(void)idx_str;
	(void)argc;
	if (cur->segs && cur->plan != plan) {
		sqlite3_finalize(cur->segs);
		cur->segs = NULL;
	}
	if (cur->segs) {
		sqlite3_reset(cur->segs);
	} else {
		char sql[256];
		int rc;

		snprintf(sql, sizeof(sql),
			 "SELECT id, run_id, data FROM %s WHERE 1%s%s%s ORDER BY id",
			 sl_seg_tables[v->kind].store, plan & PLAN_RUN ? " AND run_id = ?" : "",
			 plan & PLAN_LO ? " AND max_ns >= ?" : "",
			 plan & PLAN_HI ? " AND min_ns <= ?" : "");
		rc = sqlite3_prepare_v3(v->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &cur->segs,
					NULL);
		if (rc != SQLITE_OK) {
			sqlite3_free(v->base.zErrMsg);
			v->base.zErrMsg = sqlite3_mprintf("%s", sqlite3_errmsg(v->db));
			return rc;
		}
		cur->plan = plan;
	}
	cur->seg_id = 0;
	cur->eof = false;
	cur->lo = INT64_MIN;
	cur->hi = INT64_MAX;
	if (plan & PLAN_RUN)
		sqlite3_bind_value(cur->segs, ++p, argv[a++]);
	/* a bound that is not an integer (text, real, NULL) narrows nothing here */
	for (int b = PLAN_LO; b <= PLAN_HI; b <<= 1) {
		sqlite3_value *val;
		int64_t t = b == PLAN_LO ? INT64_MIN : INT64_MAX;

		if (!(plan & b))
			continue;
		val = b == PLAN_HI && (plan & PLAN_EQ) ? time_arg : argv[a++];
		time_arg = val;
		if (sqlite3_value_numeric_type(val) == SQLITE_INTEGER) {
			t = sqlite3_value_int64(val);
			if (b == PLAN_LO)
				cur->lo = t;
			else
				cur->hi = t;
		}
		sqlite3_bind_int64(cur->segs, ++p, t);
	}
	return seg_next(base);
}

static int seg_eof(sqlite3_vtab_cursor *base)
{
	return ((struct seg_cursor *)base)->eof;
}

static int seg_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col)
{
	struct seg_cursor *cur = (struct seg_cursor *)base;
	struct seg_vtab *v = (struct seg_vtab *)cur->base.pVtab;
	const struct sl_seg_table *t = &sl_seg_tables[v->kind];
	int64_t val;

	if (col == 0) {
		sqlite3_result_int64(ctx, cur->run_id);
		return SQLITE_OK;
	}
	if (col > t->ncols) { /* sched_facts.txt */
		if (cur->txt[0])
			sqlite3_result_text(ctx, cur->txt, -1, SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	val = cur->vals[col - 1];
	if (val == SL_SEG_NULL)
		return SQLITE_OK;
	if (t->cols[col - 1].text) {
		char s[3];

		sl_seg_text_decode(val, s);
		sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_result_int64(ctx, val);
	}
	return SQLITE_OK;
}

static int seg_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *ret)
{
	struct seg_cursor *cur = (struct seg_cursor *)base;

	*ret = cur->seg_id << SEG_ROWID_SHIFT | cur->idx;
	return SQLITE_OK;
}

static const sqlite3_module seg_module = {
	.iVersion = 0,
	.xCreate = seg_connect,
	.xConnect = seg_connect,
	.xBestIndex = seg_best_index,
	.xDisconnect = seg_disconnect,
	.xDestroy = seg_disconnect,
	.xOpen = seg_open,
	.xClose = seg_close,
	.xFilter = seg_filter,
	.xNext = seg_next,
	.xEof = seg_eof,
	.xColumn = seg_column,
	.xRowid = seg_rowid,
};

int sl_store_register_segments(sqlite3 *db)
{
	return sqlite3_create_module_v2(db, "schedlens_segments", &seg_module, NULL, NULL);
}

int sl_store_seg_prepare(sqlite3 *db, int kind, sqlite3_stmt **ret)
{
	char sql[128];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO %s (run_id, min_ns, max_ns, rows, data) VALUES (?, ?, ?, ?, ?)",
		 sl_seg_tables[kind].store);
	return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL);
}

int sl_store_seg_insert(sqlite3_stmt *ins, const struct sl_seg_buf *b)
{
	int rc;

	sqlite3_bind_int64(ins, 1, b->run_id);
	sqlite3_bind_int64(ins, 2, b->min_ns);
	sqlite3_bind_int64(ins, 3, b->max_ns);
	sqlite3_bind_int64(ins, 4, b->rows);
	sqlite3_bind_blob(ins, 5, b->data, (int)b->len, SQLITE_STATIC);
	rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}
