// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparisons in the database (tables comparisons, comparison_runs, findings of
 * schema/0002-findings.sql): written in one transaction, read back as JSON
 * (store-query.h). compare-store.c turns a comparison into these rows and back.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db-json.h"
#include "error.h"
#include "store-query.h"

/* the q column of findings (store-query.h): of one comparison (?1), of
 * the newest ?1 comparisons */
#define FQ_ONE SL_SQL_FINDINGS_Q("comparison_id = ?1")
#define FQ_RECENT \
	SL_SQL_FINDINGS_Q("comparison_id IN (SELECT id FROM comparisons ORDER BY id DESC LIMIT ?1)")

static void bind_num(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v) || isinf(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

int sl_store_comparison_insert(struct sl_store *store, const struct sl_comparison_row *c,
			       int64_t *ret_id)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st = NULL;
	struct timespec now;
	int64_t id;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot store the comparison");
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO comparisons (created_wall, baseline, candidate, params, "
			       "verdict, summary) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
			       -1, &st, NULL) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_int64(st, 1, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	sqlite3_bind_text(st, 2, c->baseline, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, c->candidate, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, c->params, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, c->verdict, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, c->summary, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto db_fail;
	id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db,
			       "INSERT OR IGNORE INTO comparison_runs (comparison_id, run_id, side) "
			       "VALUES (?1, ?2, ?3)",
			       -1, &st, NULL) != SQLITE_OK)
		goto db_fail;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < c->nr_runs[s]; i++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int64(st, 2, c->runs[s][i]);
			sqlite3_bind_text(st, 3, s ? "candidate" : "baseline", -1, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_DONE)
				goto db_fail;
		}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(
		    db,
		    "INSERT INTO findings (comparison_id, metric, grp, polarity, "
		    "baseline_value, candidate_value, delta, rel_change, ci_low, ci_high, "
		    "p_value, p_adjusted, verdict, explanation, family, df, margin, severity, "
		    "runs_needed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
		    "?13, ?14, ?15, ?16, ?17, ?18, ?19)",
		    -1, &st, NULL) != SQLITE_OK)
		goto db_fail;
	for (size_t i = 0; i < c->nr_findings; i++) {
		const struct sl_finding_row *f = &c->findings[i];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, f->metric, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, f->grp, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, f->polarity, -1, SQLITE_STATIC);
		bind_num(st, 5, f->base);
		bind_num(st, 6, f->cand);
		bind_num(st, 7, f->delta);
		bind_num(st, 8, f->rel);
		bind_num(st, 9, f->ci_lo);
		bind_num(st, 10, f->ci_hi);
		bind_num(st, 11, f->p);
		bind_num(st, 12, f->p_adj);
		sqlite3_bind_text(st, 13, f->verdict, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 14, f->explanation, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 15, f->family, -1, SQLITE_STATIC);
		bind_num(st, 16, f->df);
		bind_num(st, 17, f->margin);
		bind_num(st, 18, f->severity);
		if (f->runs_needed >= 0)
			sqlite3_bind_int(st, 19, f->runs_needed);
		else
			sqlite3_bind_null(st, 19);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto db_fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto db_fail;
	*ret_id = id;
	return 0;
db_fail:
	err = sl_db_error(db, "cannot store the comparison");
	sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

int sl_query_comparison_owed(struct sl_store *store, int64_t run_id, char *buf, size_t size,
			     bool *ret_owed)
{
	/* one side of a comparison holds a run of kernel ?k, with label ?2 and topology ?3 */
#define SIDE_HAS(side, k)                                                                      \
	"EXISTS (SELECT 1 FROM comparison_runs x JOIN runs xr ON xr.id = x.run_id "            \
	"JOIN hosts xh ON xh.id = xr.host_id WHERE x.comparison_id = k.id AND x.side = '" side \
	"' AND xr.kernel_release = " k " AND xr.workload = ?2 AND xh.topo_hash = ?3)"
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st = NULL;
	char cand[128], label[256], topo[64];
	int rc;

	*ret_owed = false;
	if (sqlite3_prepare_v2(
		    db,
		    "SELECT p.kernel_release, c.kernel_release, c.workload, hc.topo_hash "
		    "FROM runs c JOIN hosts hc ON hc.id = c.host_id, runs p "
		    "JOIN hosts hp ON hp.id = p.host_id WHERE c.id = ?1 AND p.id < c.id "
		    "AND p.kernel_release <> c.kernel_release AND p.workload = c.workload "
		    "AND hp.topo_hash = hc.topo_hash ORDER BY p.id DESC LIMIT 1",
		    -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(cand, sizeof(cand), "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(label, sizeof(label), "%s", (const char *)sqlite3_column_text(st, 2));
		snprintf(topo, sizeof(topo), "%s", (const char *)sqlite3_column_text(st, 3));
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0; /* no earlier kernel: nothing to compare with */
	if (rc != SQLITE_ROW)
		return sl_db_error(db, "cannot read runs");
	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM comparisons k WHERE " SIDE_HAS(
				       "baseline", "?1") " AND " SIDE_HAS("candidate",
									  "?4") " LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read comparisons");
	sqlite3_bind_text(st, 1, buf, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, topo, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, cand, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sl_db_error(db, "cannot read comparisons");
	*ret_owed = rc == SQLITE_DONE;
	return 0;
#undef SIDE_HAS
}

int sl_query_comparison(struct sl_store *store, int64_t id, bool flagged_only, json_t **ret)
{
	sqlite3 *db = sl_store_db(store);
	sqlite3_stmt *st;
	json_t *arr = json_array(), *o, *fs = json_array(),
	       *runs[2] = { json_array(), json_array() };
	int err;

	if (sqlite3_prepare_v2(
		    db,
		    "SELECT id, created_wall, baseline, candidate, params, verdict, summary "
		    "FROM comparisons WHERE id = ?1",
		    -1, &st, NULL) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_int64(st, 1, id);
	err = sl_db_rows_into(db, st, arr, "cannot read comparisons");
	sqlite3_finalize(st);
	if (err || !json_array_size(arr)) {
		err = err ? err : sl_error(-ENOENT, "no comparison %lld", (long long)id);
		goto fail;
	}
	o = json_incref(json_array_get(arr, 0));
	json_decref(arr);
	arr = o;
	/* params were stored as JSON text: give them back as an object */
	o = json_loads(json_string_value(json_object_get(arr, "params")), 0, NULL);
	json_object_set_new(arr, "params", o ? o : json_null());
	if (sqlite3_prepare_v2(db,
			       "SELECT run_id, side FROM comparison_runs WHERE comparison_id = ?1 "
			       "ORDER BY run_id",
			       -1, &st, NULL) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(
			runs[strcmp((const char *)sqlite3_column_text(st, 1), "baseline") != 0],
			json_integer(sqlite3_column_int64(st, 0)));
	sqlite3_finalize(st);
	json_object_set_new(arr, "baseline_runs", runs[0]);
	json_object_set_new(arr, "candidate_runs", runs[1]);
	runs[0] = runs[1] = NULL;
	if (sqlite3_prepare_v2(
		    db,
		    "WITH " FQ_ONE " SELECT grp AS \"group\", metric, polarity, "
		    "baseline_value AS baseline, candidate_value AS candidate, delta, "
		    "rel_change, ci_low, ci_high, p_value, p_adjusted, fq.q_value, verdict, "
		    "explanation, family, df, margin, severity, runs_needed, " SL_SQL_FINDING_UNCONFIRMED
		    " AS unconfirmed FROM findings f LEFT JOIN fq ON fq.id = f.id "
		    "WHERE comparison_id = ?1 AND (?2 = 0 OR verdict IN ('regression', "
		    "'improvement', 'change')) ORDER BY f.id",
		    -1, &st, NULL) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, flagged_only);
	err = sl_db_rows_into(db, st, fs, "cannot read comparisons");
	sqlite3_finalize(st);
	if (err)
		goto fail;
	sl_db_rows_bool(fs, "unconfirmed");
	json_object_set_new(arr, "findings", fs);
	*ret = arr;
	return 0;
db_fail:
	err = sl_db_error(db, "cannot read comparisons");
fail:
	json_decref(arr);
	json_decref(fs);
	json_decref(runs[0]);
	json_decref(runs[1]);
	return err;
}

int sl_query_recent_comparisons_rows(struct sl_store *store, int limit, json_t **ret)
{
	return sl_db_query_rows(
		sl_store_db(store),
		"WITH " FQ_RECENT
		" SELECT id, created_wall, baseline, candidate, verdict, summary, "
		"json_extract(params, '$.ci_level') AS ci_level, " SL_UNCONFIRMED_FDR_SQL
		" AS unconfirmed_fdr, "
		"(SELECT count(*) FROM findings f WHERE f.comparison_id = c.id AND "
		"f.verdict = 'inconclusive') AS inconclusive, "
		"(SELECT count(*) FROM findings f WHERE f.comparison_id = c.id AND "
		"f.verdict = 'equivalent') AS equivalent, "
		"(SELECT count(*) FROM findings f LEFT JOIN fq ON fq.id = f.id "
		"WHERE f.comparison_id = c.id AND " SL_SQL_FINDING_UNCONFIRMED ") AS unconfirmed "
		"FROM comparisons c ORDER BY id DESC LIMIT ?1",
		limit, 0, 0, 0, "cannot read comparisons", ret);
}

int sl_query_recent_findings_rows(struct sl_store *store, int limit, bool flagged_only,
				  json_t **ret)
{
	int err = sl_db_query_rows(
		sl_store_db(store),
		"WITH " FQ_RECENT " SELECT f.comparison_id, f.metric, f.grp AS \"group\", "
		"f.polarity, f.baseline_value, f.candidate_value, f.delta, f.rel_change, "
		"f.ci_low, f.ci_high, f.p_value, f.p_adjusted, fq.q_value, f.verdict, "
		"f.explanation, f.family, f.df, f.margin, f.severity, f.runs_needed, " SL_SQL_FINDING_UNCONFIRMED
		" AS unconfirmed FROM findings f LEFT JOIN fq ON fq.id = f.id "
		"WHERE f.comparison_id IN (SELECT id FROM comparisons ORDER BY id DESC LIMIT ?1) "
		"AND (?2 = 0 OR f.verdict IN ('regression', 'improvement', 'change')) "
		"ORDER BY f.comparison_id DESC, f.id",
		limit, flagged_only, 0, 0, "cannot read comparisons", ret);

	if (!err)
		sl_db_rows_bool(*ret, "unconfirmed");
	return err;
}
