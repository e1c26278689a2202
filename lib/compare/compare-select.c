// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which runs a comparison compares: run ids as given, all runs of a kernel release, or
 * the previous kernel against the current one, restricted to one workload label and one
 * host topology (hosts.topo_hash) unless forced, so that a difference is the kernel's and
 * not the workload's or the machine's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-local.h"
#include "db-json.h"
#include "error.h"

#define RUN_COLS \
	"SELECT r.id, r.kernel_release, r.workload, h.topo_hash FROM runs r JOIN hosts h ON h.id = r.host_id "

struct run_info {
	int64_t id;
	char kernel[128], label[128], topo[32];
};

void sl_cmp_note(struct sl_comparison *c, const char *fmt, ...)
{
	va_list ap;

	if (c->nr_notes >= (int)(sizeof(c->notes) / sizeof(c->notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(c->notes[c->nr_notes++], sizeof(c->notes[0]), fmt, ap);
	va_end(ap);
}

static void row_info(sqlite3_stmt *st, struct run_info *r)
{
	const char *k = (const char *)sqlite3_column_text(st, 1);
	const char *l = (const char *)sqlite3_column_text(st, 2);
	const char *t = (const char *)sqlite3_column_text(st, 3);

	r->id = sqlite3_column_int64(st, 0);
	snprintf(r->kernel, sizeof(r->kernel), "%s", k ? k : "");
	snprintf(r->label, sizeof(r->label), "%s", l ? l : "");
	snprintf(r->topo, sizeof(r->topo), "%s", t ? t : "");
}

static int run_by_id(sqlite3 *db, int64_t id, struct run_info *r)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, RUN_COLS "WHERE r.id = ?1", -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_info(st, r);
	sqlite3_finalize(st);
	/* -ENOENT, not a usage error: the daemon answers an unknown id with 404 */
	if (rc != SQLITE_ROW)
		return sl_error(-ENOENT, "no run %" PRId64 " in the database", id);
	return 0;
}

/* The newest run with the given kernel (NULL: any), label and topology (NULL: any). */
static int newest_run(sqlite3 *db, const char *kernel, const char *label, const char *topo,
		      struct run_info *r)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       RUN_COLS
			       "WHERE (?1 IS NULL OR r.kernel_release = ?1) AND "
			       "(?2 IS NULL OR r.workload = ?2) AND "
			       "(?3 IS NULL OR h.topo_hash = ?3) ORDER BY r.id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_text(st, 1, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, topo, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_info(st, r);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -ENOENT;
}

/* The kernel of the newest run on another kernel than `not`, same label and topology. */
static int previous_kernel(sqlite3 *db, const char * not, const char *label, const char *topo,
			   char *buf, size_t size)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       RUN_COLS
			       "WHERE r.kernel_release <> ?1 AND "
			       "(?2 IS NULL OR r.workload = ?2) AND "
			       "(?3 IS NULL OR h.topo_hash = ?3) ORDER BY r.id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_text(st, 1, not, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, topo, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -ENOENT;
}

static int push_run(struct sl_cmp_side *s, int64_t id)
{
	int64_t *p = realloc(s->runs, sizeof(*p) * (s->nr_runs + 1));

	if (!p)
		return -ENOMEM;
	s->runs = p;
	s->runs[s->nr_runs++] = id;
	return 0;
}

static int runs_of_kernel(sqlite3 *db, const char *kernel, const char *label, const char *topo,
			  struct sl_cmp_side *s)
{
	sqlite3_stmt *st;
	int rc, err = 0;

	if (sqlite3_prepare_v2(db,
			       RUN_COLS "WHERE r.kernel_release = ?1 AND "
					"(?2 IS NULL OR r.workload = ?2) AND "
					"(?3 IS NULL OR h.topo_hash = ?3) ORDER BY r.id",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs");
	sqlite3_bind_text(st, 1, kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, topo, -1, SQLITE_STATIC);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = push_run(s, sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	if (err)
		return err;
	if (!s->nr_runs)
		return sl_error(-SL_EUSAGE, "no runs of kernel '%s'%s%s%s", kernel,
				label ? " labelled '" : "", label ? label : "", label ? "'" : "");
	snprintf(s->kernel, sizeof(s->kernel), "%s", kernel);
	return 0;
}

static void describe(struct sl_cmp_side *s, bool by_kernel)
{
	size_t o = 0;

	if (by_kernel)
		o = (size_t)snprintf(s->desc, sizeof(s->desc), "kernel=%s ", s->kernel);
	o += (size_t)snprintf(s->desc + o, sizeof(s->desc) - o, "runs=");
	for (int i = 0; i < s->nr_runs && o < sizeof(s->desc); i++)
		o += (size_t)snprintf(s->desc + o, sizeof(s->desc) - o, "%s%" PRId64, i ? "," : "",
				      s->runs[i]);
}

/* Run ids as given: every run must exist and, unless forced, share label and topology. */
static int select_runs(sqlite3 *db, const struct sl_compare_opts *o, struct sl_comparison *c)
{
	const int64_t *ids[2] = { o->baseline_runs, o->candidate_runs };
	int nr[2] = { o->nr_baseline_runs, o->nr_candidate_runs }, err;
	struct run_info ref, r;

	if (nr[0] <= 0 || nr[1] <= 0)
		return sl_error(-SL_EUSAGE, "give runs for both the baseline and the candidate");
	if ((err = run_by_id(db, ids[1][nr[1] - 1], &ref)))
		return err;
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < nr[s]; i++) {
			if ((err = run_by_id(db, ids[s][i], &r)) ||
			    (err = push_run(&c->side[s], r.id)))
				return err;
			if (i == 0)
				snprintf(c->side[s].kernel, sizeof(c->side[s].kernel), "%s",
					 r.kernel);
			else if (strcmp(c->side[s].kernel, r.kernel))
				snprintf(c->side[s].kernel, sizeof(c->side[s].kernel), "mixed");
			if (o->force)
				continue;
			if (strcmp(r.label, ref.label))
				return sl_error(-SL_EUSAGE,
						"run %" PRId64 " ran workload '%s' but run %" PRId64
						" ran '%s': compare like with like, or --force",
						r.id, r.label, ref.id, ref.label);
			if (strcmp(r.topo, ref.topo))
				return sl_error(-SL_EUSAGE,
						"run %" PRId64
						" was recorded on topology %s but run %" PRId64
						" on %s: compare like with like, or --force",
						r.id, r.topo, ref.id, ref.topo);
		}
		describe(&c->side[s], false);
	}
	snprintf(c->label, sizeof(c->label), "%s", o->force ? "" : ref.label);
	snprintf(c->topo_hash, sizeof(c->topo_hash), "%s", o->force ? "" : ref.topo);
	return 0;
}

/* By kernel release; a missing candidate is the newest run's kernel, a missing baseline
 * the kernel recorded before it. */
static int select_kernels(sqlite3 *db, const struct sl_compare_opts *o, struct sl_comparison *c)
{
	const char *label = o->label, *topo = NULL;
	char base[128], cand[128];
	struct run_info ref;
	int err;

	err = newest_run(db, o->candidate_kernel, label, NULL, &ref);
	if (err == -ENOENT)
		return sl_error(-SL_EUSAGE, "no runs%s%s%s%s%s",
				o->candidate_kernel ? " of kernel '" : "",
				o->candidate_kernel ? o->candidate_kernel : "",
				o->candidate_kernel ? "'" : "", label ? " labelled " : "",
				label ? label : "");
	if (err)
		return err;
	if (!o->force) {
		label = ref.label;
		topo = ref.topo;
	}
	snprintf(cand, sizeof(cand), "%s", o->candidate_kernel ? o->candidate_kernel : ref.kernel);
	if (o->baseline_kernel) {
		snprintf(base, sizeof(base), "%s", o->baseline_kernel);
	} else {
		err = previous_kernel(db, cand, label, topo, base, sizeof(base));
		if (err == -ENOENT)
			return sl_error(
				-SL_EUSAGE,
				"only kernel '%s' was recorded%s%s%s: nothing to compare with",
				cand, label ? " for workload '" : "", label ? label : "",
				label ? "'" : "");
		if (err)
			return err;
	}
	if (!strcmp(base, cand))
		return sl_error(-SL_EUSAGE,
				"baseline and candidate are both kernel '%s': compare runs by id",
				base);
	if ((err = runs_of_kernel(db, base, label, topo, &c->side[0])) ||
	    (err = runs_of_kernel(db, cand, label, topo, &c->side[1])))
		return err;
	describe(&c->side[0], true);
	describe(&c->side[1], true);
	snprintf(c->label, sizeof(c->label), "%s", label ? label : "");
	snprintf(c->topo_hash, sizeof(c->topo_hash), "%s", topo ? topo : "");
	if (!o->force)
		sl_cmp_note(c, "compared runs of workload '%s' on topology %s only", c->label,
			    c->topo_hash);
	return 0;
}

/* The run's params (runs.params) into obj: key -> value, nothing if it has none. */
static int run_params(sqlite3 *db, int64_t run, json_t *obj)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT j.key, j.value FROM runs r, json_each(r.params) j "
			       "WHERE r.id = ?1 AND json_valid(r.params)",
			       -1, &st, NULL) != SQLITE_OK)
		return sl_db_error(db, "cannot read runs.params");
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		if (k && v)
			json_object_set_new(obj, k, json_string(v));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sl_db_error(db, "cannot read runs.params");
}

/* A run's value of a param, "-" if it has none. */
static const char *param_of(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key)) ?: "-";
}

/* Whether every run of both sides has one value of key. */
static bool alike(json_t *runs[2], const char *key)
{
	const char *first = NULL;
	json_t *obj;
	size_t i;

	for (int s = 0; s < 2; s++)
		json_array_foreach(runs[s], i, obj)
		{
			if (!first)
				first = param_of(obj, key);
			else if (strcmp(first, param_of(obj, key)))
				return false;
		}
	return true;
}

/* "[a|b]": the distinct values of key over a side's runs (a command may hold ; and ,). */
static void side_values(FILE *f, json_t *runs, const char *key)
{
	json_t *seen = json_object(), *obj;
	size_t i;

	fputc('[', f);
	json_array_foreach(runs, i, obj)
	{
		const char *v = param_of(obj, key);

		if (!json_object_get(seen, v)) {
			fprintf(f, "%s%s", json_object_size(seen) ? "|" : "", v);
			json_object_set_new(seen, v, json_true());
		}
	}
	fputc(']', f);
	json_decref(seen);
}

/*
 * A note when the compared runs were not run alike by their runs.params (lab runs: the
 * workload and its options): "what was run differs: scale [1] vs [2]". The kernel is
 * what a comparison is usually about, so its params (kernel, kernel_package) are left out.
 */
static int note_params(sqlite3 *db, struct sl_comparison *c)
{
	json_t *runs[2] = { json_array(), json_array() }, *keys = json_object(), *obj, *v;
	const char *key;
	char *text = NULL;
	size_t size = 0;
	FILE *f = NULL;
	int err = 0;

	if (!runs[0] || !runs[1] || !keys || !(f = open_memstream(&text, &size))) {
		err = -ENOMEM;
		goto out;
	}
	for (int s = 0; s < 2 && !err; s++)
		for (int r = 0; r < c->side[s].nr_runs && !err; r++) {
			obj = json_object();
			json_array_append_new(runs[s], obj);
			err = run_params(db, c->side[s].runs[r], obj);
			json_object_update(keys, obj);
		}
	if (err)
		goto out;
	json_object_foreach(keys, key, v)
	{
		if (!strcmp(key, "kernel") || !strcmp(key, "kernel_package") || alike(runs, key))
			continue;
		fprintf(f, "%s%s ", ftell(f) ? "; " : "", key);
		side_values(f, runs[0], key);
		fputs(" vs ", f);
		side_values(f, runs[1], key);
	}
	fclose(f);
	f = NULL;
	if (*text)
		sl_cmp_note(c, "what was run differs (runs.params): %s", text);
out:
	if (f)
		fclose(f);
	free(text);
	json_decref(runs[0]);
	json_decref(runs[1]);
	json_decref(keys);
	return err;
}

int sl_cmp_select(sqlite3 *db, const struct sl_compare_opts *o, struct sl_comparison *c)
{
	int err;

	if (o->nr_baseline_runs > 0 || o->nr_candidate_runs > 0)
		err = select_runs(db, o, c);
	else
		err = select_kernels(db, o, c);
	if (err)
		return err;
	for (int i = 0; i < c->side[0].nr_runs; i++)
		for (int j = 0; j < c->side[1].nr_runs; j++)
			if (c->side[0].runs[i] == c->side[1].runs[j])
				return sl_error(-SL_EUSAGE,
						"run %" PRId64
						" is on both sides of the comparison",
						c->side[0].runs[i]);
	return note_params(db, c);
}
