// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which runs a comparison compares: run ids as given, all runs of a kernel release, or
 * the previous kernel against the current one, restricted to one workload label and one
 * host topology (hosts.topo_hash) unless forced, so that a difference is the kernel's and
 * not the workload's or the machine's. Kernels' runs can be filtered per side by what was
 * run (runs.params, preempt_mode, kernel_version: store-query.h's sl_run_where), which
 * lets one kernel be both sides: its runs with one feature setting against another's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-local.h"
#include "error.h"
#include "store-query.h"

void sl_cmp_note(struct sl_comparison *c, const char *fmt, ...)
{
	va_list ap;

	if (c->nr_notes >= (int)(sizeof(c->notes) / sizeof(c->notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(c->notes[c->nr_notes++], sizeof(c->notes[0]), fmt, ap);
	va_end(ap);
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

static int push_run_cb(void *ctx, int64_t id)
{
	return push_run(ctx, id);
}

/* " where k=v and k2=v2" for a message, "" without filters. */
static void where_text(char *buf, size_t size, const struct sl_run_where *w, int nr)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < nr && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s=%s", i ? " and " : " where ",
				      w[i].key, w[i].value);
}

static int runs_of_kernel(struct sl_store *store, const char *kernel, const char *label,
			  const char *topo, const struct sl_run_where *w, int nr_w,
			  struct sl_cmp_side *s)
{
	int err = sl_query_kernel_runs(store, kernel, label, topo, w, nr_w, push_run_cb, s);
	char wt[512];

	if (err)
		return err;
	where_text(wt, sizeof(wt), w, nr_w);
	if (!s->nr_runs)
		return sl_error(-SL_EUSAGE, "no runs of kernel '%s'%s%s%s%s", kernel,
				label ? " labelled '" : "", label ? label : "", label ? "'" : "",
				wt);
	snprintf(s->kernel, sizeof(s->kernel), "%s", kernel);
	return 0;
}

static void describe(struct sl_cmp_side *s, bool by_kernel)
{
	size_t o = 0;
	const char *key;
	json_t *v;

	if (by_kernel)
		o = (size_t)snprintf(s->desc, sizeof(s->desc), "kernel=%s ", s->kernel);
	o += (size_t)snprintf(s->desc + o, sizeof(s->desc) - o, "runs=");
	for (int i = 0; i < s->nr_runs && o < sizeof(s->desc); i++)
		o += (size_t)snprintf(s->desc + o, sizeof(s->desc) - o, "%s%" PRId64, i ? "," : "",
				      s->runs[i]);
	/* after the runs: the dashboard reads "runs=..." as the first match */
	json_object_foreach(s->where, key, v)
	{
		if (o >= sizeof(s->desc))
			break;
		o += (size_t)snprintf(s->desc + o, sizeof(s->desc) - o, " %s=%s", key,
				      json_string_value(v));
	}
}

/* Whether arr (of strings) holds key. */
static bool has_key(json_t *arr, const char *key)
{
	json_t *k;
	size_t i;

	json_array_foreach(arr, i, k)
	{
		if (!strcmp(json_string_value(k), key))
			return true;
	}
	return false;
}

/* The error for a key no run has, naming the keys there are. */
static int no_such_key(json_t *keys, const char *key)
{
	char list[1024] = "";
	size_t i, n = 0;
	json_t *k;

	json_array_foreach(keys, i, k)
	{
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      json_string_value(k));
	}
	return sl_error(-SL_EUSAGE,
			"no run has '%s' in its params (runs.params keys: %s; run columns: %s, %s)",
			key, *list ? list : "none", sl_run_where_columns[0],
			sl_run_where_columns[1]);
}

/*
 * The filters are well formed and name what exists: every key a run column or a key of
 * some run's params; else an error naming the keys there are. A misspelt key would
 * otherwise be "no runs", which sends the reader looking in the wrong place.
 */
static int check_where(struct sl_store *store, const struct sl_compare_opts *o)
{
	json_t *keys = json_array();
	int err;

	if (!keys)
		return -ENOMEM;
	if ((err = sl_query_param_keys(store, keys)))
		goto out;
	for (int s = 0; s < 2 && !err; s++) {
		if (o->nr_where[s] < 0 || o->nr_where[s] > SL_RUN_WHERE_MAX) {
			err = sl_error(-SL_EUSAGE, "at most %d filters a side", SL_RUN_WHERE_MAX);
			break;
		}
		for (int w = 0; w < o->nr_where[s] && !err; w++) {
			const char *key = o->where[s][w].key;

			if (!key || !o->where[s][w].value || !sl_run_where_key_valid(key))
				err = sl_error(
					-SL_EUSAGE,
					"invalid filter key '%s' (KEY=VALUE, KEY of letters, "
					"digits and _)",
					key ? key : "");
			else if (!sl_run_where_is_column(key) && !has_key(keys, key))
				err = no_such_key(keys, key);
		}
	}
out:
	json_decref(keys);
	return err;
}

/* A side's filters as {key: value} (the last of a repeated key), NULL without. */
static int where_json(const struct sl_run_where *w, int nr, json_t **ret)
{
	*ret = NULL;
	if (!nr)
		return 0;
	if (!(*ret = json_object()))
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		if (json_object_set_new(*ret, w[i].key, json_string(w[i].value)))
			return -ENOMEM;
	return 0;
}

/* Whether the two sides' filters differ (as sets): then one kernel may be both sides. */
static bool where_differs(const struct sl_compare_opts *o)
{
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < o->nr_where[s]; i++) {
			bool found = false;

			for (int j = 0; j < o->nr_where[!s] && !found; j++)
				found = !strcmp(o->where[s][i].key, o->where[!s][j].key) &&
					!strcmp(o->where[s][i].value, o->where[!s][j].value);
			if (!found)
				return true;
		}
	return false;
}

/* Run ids as given: every run must exist and, unless forced, share label and topology. */
static int select_runs(struct sl_store *store, const struct sl_compare_opts *o,
		       struct sl_comparison *c)
{
	const int64_t *ids[2] = { o->baseline_runs, o->candidate_runs };
	int nr[2] = { o->nr_baseline_runs, o->nr_candidate_runs }, err;
	struct sl_run_ident ref, r;

	if (nr[0] <= 0 || nr[1] <= 0)
		return sl_error(-SL_EUSAGE, "give runs for both the baseline and the candidate");
	if ((err = sl_query_run_ident(store, ids[1][nr[1] - 1], &ref)))
		return err;
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < nr[s]; i++) {
			if ((err = sl_query_run_ident(store, ids[s][i], &r)) ||
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
 * the kernel recorded before it. Filters on runs need both kernels. */
static int select_kernels(struct sl_store *store, const struct sl_compare_opts *o,
			  struct sl_comparison *c)
{
	const char *label = o->label, *topo = NULL;
	char base[128], cand[128], wt[512];
	struct sl_run_ident ref;
	int err;

	if (o->nr_where[0] || o->nr_where[1]) {
		if (!o->baseline_kernel || !o->candidate_kernel)
			return sl_error(-SL_EUSAGE,
					"filters on runs (--where, --baseline-where, "
					"--candidate-where) select among a kernel's runs: give "
					"--baseline KERNEL and --candidate KERNEL");
		if ((err = check_where(store, o)))
			return err;
	}
	/* the candidate's newest run sets the label and topology both sides must have */
	err = sl_query_newest_run(store, o->candidate_kernel, label, NULL, o->where[1],
				  o->nr_where[1], &ref);
	where_text(wt, sizeof(wt), o->where[1], o->nr_where[1]);
	if (err == -ENOENT)
		return sl_error(-SL_EUSAGE, "no runs%s%s%s%s%s%s",
				o->candidate_kernel ? " of kernel '" : "",
				o->candidate_kernel ? o->candidate_kernel : "",
				o->candidate_kernel ? "'" : "", label ? " labelled " : "",
				label ? label : "", wt);
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
		err = sl_query_previous_kernel(store, cand, label, topo, base, sizeof(base));
		if (err == -ENOENT)
			return sl_error(
				-SL_EUSAGE,
				"only kernel '%s' was recorded%s%s%s: nothing to compare with",
				cand, label ? " for workload '" : "", label ? label : "",
				label ? "'" : "");
		if (err)
			return err;
	}
	if (!strcmp(base, cand) && !where_differs(o))
		return sl_error(-SL_EUSAGE,
				"baseline and candidate are both kernel '%s': compare runs by id, "
				"or tell the sides apart with --baseline-where/--candidate-where",
				base);
	for (int s = 0; s < 2; s++)
		if ((err = runs_of_kernel(store, s ? cand : base, label, topo, o->where[s],
					  o->nr_where[s], &c->side[s])) ||
		    (err = where_json(o->where[s], o->nr_where[s], &c->side[s].where)))
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

/* A run's value of a param, "-" if it has none. */
static const char *param_of(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key)) ?: "-";
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

/* The one value of key over a side's runs, NULL if they differ. */
static const char *side_value(json_t *runs, const char *key)
{
	const char *one = NULL;
	json_t *obj;
	size_t i;

	json_array_foreach(runs, i, obj)
	{
		if (!one)
			one = param_of(obj, key);
		else if (strcmp(one, param_of(obj, key)))
			return NULL;
	}
	return one;
}

/*
 * " key=value" after a side's description, for a key the sides differ in and each side's
 * runs agree on ("runs=3,8 features=default"), as a --where filter puts it: a list of
 * comparisons of one kernel's variants then says which variant each side was.
 */
static void describe_param(struct sl_cmp_side *s, const char *key, const char *value)
{
	size_t o = strlen(s->desc);

	if (json_object_get(s->where, key) ||
	    o + strlen(key) + strlen(value) + 2 >= sizeof(s->desc))
		return;
	snprintf(s->desc + o, sizeof(s->desc) - o, " %s=%s", key, value);
}

/*
 * A note when the compared runs were not run alike by their runs.params (lab runs: the
 * workload and its options): "what was run differs: scale [1] vs [2]". The kernel is
 * what a comparison is usually about, so its params (kernel, kernel_package) are left out.
 */
static int note_params(struct sl_store *store, struct sl_comparison *c)
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
			err = sl_query_run_params(store, c->side[s].runs[r], obj);
			json_object_update(keys, obj);
		}
	if (err)
		goto out;
	json_object_foreach(keys, key, v)
	{
		const char *v0 = side_value(runs[0], key), *v1 = side_value(runs[1], key);

		/* every run of both sides alike in it */
		if (!strcmp(key, "kernel") || !strcmp(key, "kernel_package") ||
		    (v0 && v1 && !strcmp(v0, v1)))
			continue;
		fprintf(f, "%s%s ", ftell(f) ? "; " : "", key);
		side_values(f, runs[0], key);
		fputs(" vs ", f);
		side_values(f, runs[1], key);
		if (v0 && v1) {
			describe_param(&c->side[0], key, v0);
			describe_param(&c->side[1], key, v1);
		}
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

int sl_cmp_select(struct sl_store *store, const struct sl_compare_opts *o, struct sl_comparison *c)
{
	int err;

	if ((o->nr_baseline_runs > 0 || o->nr_candidate_runs > 0) &&
	    (o->nr_where[0] || o->nr_where[1]))
		return sl_error(-SL_EUSAGE, "filters on runs select among a kernel's runs, not "
					    "runs given by id");
	if (o->nr_baseline_runs > 0 || o->nr_candidate_runs > 0)
		err = select_runs(store, o, c);
	else
		err = select_kernels(store, o, c);
	if (err)
		return err;
	for (int i = 0; i < c->side[0].nr_runs; i++)
		for (int j = 0; j < c->side[1].nr_runs; j++)
			if (c->side[0].runs[i] == c->side[1].runs[j])
				return sl_error(-SL_EUSAGE,
						"run %" PRId64
						" is on both sides of the comparison",
						c->side[0].runs[i]);
	return note_params(store, c);
}
