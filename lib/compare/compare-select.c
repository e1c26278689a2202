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

static int runs_of_kernel(struct sl_store *store, const char *kernel, const char *label,
			  const char *topo, struct sl_cmp_side *s)
{
	int err = sl_query_kernel_runs(store, kernel, label, topo, push_run_cb, s);

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
 * the kernel recorded before it. */
static int select_kernels(struct sl_store *store, const struct sl_compare_opts *o,
			  struct sl_comparison *c)
{
	const char *label = o->label, *topo = NULL;
	char base[128], cand[128];
	struct sl_run_ident ref;
	int err;

	err = sl_query_newest_run(store, o->candidate_kernel, label, NULL, &ref);
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
	if (!strcmp(base, cand))
		return sl_error(-SL_EUSAGE,
				"baseline and candidate are both kernel '%s': compare runs by id",
				base);
	if ((err = runs_of_kernel(store, base, label, topo, &c->side[0])) ||
	    (err = runs_of_kernel(store, cand, label, topo, &c->side[1])))
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

int sl_cmp_select(struct sl_store *store, const struct sl_compare_opts *o, struct sl_comparison *c)
{
	int err;

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
