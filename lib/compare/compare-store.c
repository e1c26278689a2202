// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparisons in and out of the database (as the rows of store-comparisons.c) and as
 * JSON, the one shape `schedlens diff --json`,
 * `schedlens findings --json` and the HTTP API share.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-local.h"
#include "error.h"
#include "store-query.h"

static json_t *num_or_null(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *params_json(const struct sl_comparison *c)
{
	json_t *o = json_pack("{s:I, s:i, s:f, s:f, s:f, s:f, s:b, s:f, s:i, s:i}", "seed",
			      (json_int_t)c->seed, "resamples", c->resamples, "alpha", c->alpha,
			      "ci_level", c->ci_level, "rel_threshold", c->rel_threshold,
			      "floor_scale", c->floor_scale, "single_run", c->single_run,
			      "single_run_factor", c->single_run_factor, "prior_features",
			      c->prior_features, "runs_needed", c->runs_needed);

	if (o) {
		json_object_set_new(o, "prior_s02", num_or_null(c->prior_s02));
		json_object_set_new(o, "prior_d0", num_or_null(c->prior_d0));
		/* the rate unconfirmed changes are discoveries at (for the dashboard's note) */
		json_object_set_new(o, "unconfirmed_fdr", json_real(SL_UNCONFIRMED_FDR));
		/* the filters that chose the runs (diff --where ...), only when there were */
		if (c->side[0].where)
			json_object_set(o, "baseline_where", c->side[0].where);
		if (c->side[1].where)
			json_object_set(o, "candidate_where", c->side[1].where);
	}
	return o;
}

static json_t *finding_json(const struct sl_finding *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "group", json_string(f->grp));
	json_object_set_new(o, "metric", json_string(f->metric->name));
	json_object_set_new(o, "unit", json_string(f->metric->unit));
	json_object_set_new(o, "polarity", json_string(sl_polarity_name(f->metric->polarity)));
	json_object_set_new(o, "baseline", num_or_null(f->base));
	json_object_set_new(o, "candidate", num_or_null(f->cand));
	json_object_set_new(o, "delta", num_or_null(f->delta));
	json_object_set_new(o, "rel_change", num_or_null(f->rel));
	json_object_set_new(o, "ci_low", num_or_null(f->ci_lo));
	json_object_set_new(o, "ci_high", num_or_null(f->ci_hi));
	json_object_set_new(o, "p_value", num_or_null(f->p));
	json_object_set_new(o, "p_adjusted", num_or_null(f->p_adj));
	json_object_set_new(o, "q_value", num_or_null(f->q));
	json_object_set_new(o, "verdict", json_string(sl_verdict_name(f->verdict)));
	json_object_set_new(o, "explanation", json_string(f->explanation));
	json_object_set_new(o, "family", json_string(f->primary ? "primary" : "secondary"));
	json_object_set_new(o, "df", num_or_null(f->df));
	json_object_set_new(o, "margin", num_or_null(f->margin));
	json_object_set_new(o, "severity", num_or_null(f->severity));
	json_object_set_new(o, "runs_needed",
			    f->verdict == SL_V_INCONCLUSIVE ? json_integer(f->runs_needed) :
							      json_null());
	json_object_set_new(o, "unconfirmed", json_boolean(sl_finding_unconfirmed(f)));
	return o;
}

static json_t *side_json(const struct sl_cmp_side *s)
{
	json_t *runs = json_array();

	for (int i = 0; i < s->nr_runs; i++)
		json_array_append_new(runs, json_integer(s->runs[i]));
	return json_pack("{s:s, s:s, s:o, s:i, s:I}", "selection", s->desc, "kernel", s->kernel,
			 "runs", runs, "units", s->units, "windows", (json_int_t)s->windows);
}

json_t *sl_comparison_to_json(const struct sl_comparison *c)
{
	json_t *o = json_object(), *notes = json_array(), *fs = json_array();
	int unconfirmed = 0;

	if (!o || !notes || !fs) {
		json_decref(o);
		json_decref(notes);
		json_decref(fs);
		return NULL;
	}
	for (int i = 0; i < c->nr_notes; i++)
		json_array_append_new(notes, json_string(c->notes[i]));
	for (size_t i = 0; i < c->nr_findings; i++) {
		json_array_append_new(fs, finding_json(&c->findings[i]));
		unconfirmed += sl_finding_unconfirmed(&c->findings[i]);
	}
	json_object_set_new(o, "id", c->id >= 0 ? json_integer(c->id) : json_null());
	json_object_set_new(o, "verdict", json_string(sl_verdict_name(c->verdict)));
	json_object_set_new(o, "summary", json_string(c->summary));
	json_object_set_new(o, "label", json_string(c->label));
	json_object_set_new(o, "topo_hash", json_string(c->topo_hash));
	json_object_set_new(o, "baseline", side_json(&c->side[0]));
	json_object_set_new(o, "candidate", side_json(&c->side[1]));
	json_object_set_new(o, "params", params_json(c));
	json_object_set_new(o, "regressions", json_integer(c->regressions));
	json_object_set_new(o, "improvements", json_integer(c->improvements));
	json_object_set_new(o, "changes", json_integer(c->changes));
	json_object_set_new(o, "insufficient", json_integer(c->insufficient));
	json_object_set_new(o, "inconclusive", json_integer(c->inconclusive));
	json_object_set_new(o, "equivalent", json_integer(c->equivalent));
	json_object_set_new(o, "unconfirmed", json_integer(unconfirmed));
	json_object_set_new(o, "runs_needed",
			    c->verdict == SL_V_INCONCLUSIVE ? json_integer(c->runs_needed) :
							      json_null());
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "findings", fs);
	return o;
}

int sl_cmp_store(struct sl_store *store, struct sl_comparison *c)
{
	json_t *params = params_json(c);
	char *ptext = params ? json_dumps(params, JSON_COMPACT) : NULL;
	struct sl_finding_row *fr = calloc(c->nr_findings ? c->nr_findings : 1, sizeof(*fr));
	struct sl_comparison_row row = {
		.baseline = c->side[0].desc,
		.candidate = c->side[1].desc,
		.params = ptext,
		.verdict = sl_verdict_name(c->verdict),
		.summary = c->summary,
		.runs = { c->side[0].runs, c->side[1].runs },
		.nr_runs = { c->side[0].nr_runs, c->side[1].nr_runs },
		.findings = fr,
		.nr_findings = c->nr_findings,
	};
	int err;

	json_decref(params);
	if (!ptext || !fr) {
		free(ptext);
		free(fr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nr_findings; i++) {
		const struct sl_finding *f = &c->findings[i];

		fr[i] = (struct sl_finding_row){
			.metric = f->metric->name,
			.grp = f->grp,
			.polarity = sl_polarity_name(f->metric->polarity),
			.verdict = sl_verdict_name(f->verdict),
			.explanation = f->explanation,
			.family = f->primary ? "primary" : "secondary",
			.base = f->base,
			.cand = f->cand,
			.delta = f->delta,
			.rel = f->rel,
			.ci_lo = f->ci_lo,
			.ci_hi = f->ci_hi,
			.p = f->p,
			.p_adj = f->p_adj,
			.df = isinf(f->df) ? NAN : f->df,
			.margin = f->margin,
			.severity = f->severity,
			.runs_needed = f->verdict == SL_V_INCONCLUSIVE ? f->runs_needed : -1,
		};
	}
	err = sl_store_comparison_insert(store, &row, &c->id);
	if (err)
		c->id = -1;
	free(ptext);
	free(fr);
	return err;
}

int sl_compare_owed(struct sl_store *store, int64_t run_id, char *buf, size_t size, bool *ret_owed)
{
	return sl_query_comparison_owed(store, run_id, buf, size, ret_owed);
}

int sl_compare_list(struct sl_store *store, int limit, json_t **ret)
{
	return sl_query_recent_comparisons_rows(store, limit > 0 ? limit : 50, ret);
}

int sl_compare_load(struct sl_store *store, int64_t id, bool flagged_only, json_t **ret)
{
	json_t *fs;
	int err = sl_query_comparison(store, id, flagged_only, ret);

	if (err)
		return err;
	/* the unit is the metric's, not stored with the finding */
	fs = json_object_get(*ret, "findings");
	for (size_t i = 0; i < json_array_size(fs); i++) {
		json_t *f = json_array_get(fs, i);
		const struct sl_metric *m =
			sl_metric_find(json_string_value(json_object_get(f, "metric")));

		json_object_set_new(f, "unit", json_string(m ? m->unit : ""));
	}
	return 0;
}
