// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the filters on runs (store-query.h, `schedlens diff --where`) on a real
 * SQLite file: a kernel's runs selected by a runs.params key's text (a number too), by the
 * run columns preempt_mode and kernel_version, by several filters at once and with the
 * label and topology; params that are missing or not JSON match nothing; a value with
 * quotes is bound, not spliced; a bad key is refused before any SQL; the newest run under
 * filters; the params keys the database has.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixture.h"
#include "store-query.h"
#include "store.h"
#include "tap.h"

/* The ids a query passes to its callback, "1,5" */
struct ids {
	char text[256];
	size_t n;
};

static int add_id(void *ctx, int64_t id)
{
	struct ids *s = ctx;

	s->n += (size_t)snprintf(s->text + s->n, sizeof(s->text) - s->n, "%s%" PRId64,
				 s->n ? "," : "", id);
	return 0;
}

/* The ids of kernel's runs (label, topo: NULL for any) under the filters "k=v" given. */
static const char *runs_where(struct sl_store *st, const char *kernel, const char *label,
			      const char *topo, int nr, const struct sl_run_where *w, int *err)
{
	static struct ids s;

	memset(&s, 0, sizeof(s));
	*err = sl_query_kernel_runs(st, kernel, label, topo, w, nr, add_id, &s);
	return s.text;
}

/* Run i of the fixture: kernel, label, preempt_mode, kernel_version, params. */
static const struct {
	const char *kernel, *label, *preempt, *version, *params;
	int host;
} runs[] = {
	{ "6.1", "hackbench", "voluntary", "#1 SMP 6.1.158-1",
	  "{\"features\":\"default\","
	  "\"scale\":\"10\"}",
	  0 },
	{ "6.1", "hackbench", "full", "#1 SMP 6.1.158-1",
	  "{\"features\":\"NO_WAKEUP_PREEMPTION\","
	  "\"scale\":\"10\"}",
	  0 },
	{ "6.1", "hackbench", "voluntary", "#1 SMP 6.1.159-1", NULL, 0 },
	{ "6.1", "hackbench", "voluntary", "#1 SMP 6.1.159-1", "not json {", 0 },
	/* a number, as a params object written by hand could have: matched by its text */
	{ "6.1", "hackbench", "voluntary", "#1 SMP 6.1.159-1",
	  "{\"features\":\"default\","
	  "\"scale\":10}",
	  0 },
	{ "6.12", "hackbench", "lazy", "#1 SMP 6.12.57-1", "{\"features\":\"default\"}", 0 },
	{ "6.1", "pgbench", "voluntary", "#1 SMP 6.1.158-1",
	  "{\"features\":\"default\","
	  "\"clients\":\"32\"}",
	  0 },
	{ "6.1", "hackbench", "voluntary", "#1 SMP 6.1.158-1", "{\"features\":\"it's \\\"x\\\"\"}",
	  0 },
	/* another machine: the same kernel and params on another topology */
	{ "6.1", "hackbench", "voluntary", "#1 SMP 6.1.158-1", "{\"features\":\"default\"}", 1 },
};

static struct sl_store *make_store(void)
{
	struct sl_cpu_row cpus[2] = { { 0, true, 0, 0, 0, 0 }, { 1, true, 1, 0, 0, 0 } };
	struct sl_host_info h[2] = { { .hostname = "a",
				       .machine_id = "a",
				       .topo_hash = "00000000000000aa",
				       .topo_json = "{}",
				       .nr_cpus = 2,
				       .cpus = cpus,
				       .nr_cpu_rows = 2 },
				     { .hostname = "b",
				       .machine_id = "b",
				       .topo_hash = "00000000000000bb",
				       .topo_json = "{}",
				       .nr_cpus = 2,
				       .cpus = cpus,
				       .nr_cpu_rows = 2 } };
	struct sl_store *st = NULL;
	int64_t host[2], run;
	int err;

	if ((err = sl_store_open(fixture_path("where.db"), SL_STORE_CREATE, &st)) ||
	    (err = sl_store_host_upsert(st, &h[0], &host[0])) ||
	    (err = sl_store_host_upsert(st, &h[1], &host[1]))) {
		printf("Bail out! cannot set up the store: %s\n", sl_errmsg(err));
		return NULL;
	}
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct sl_run_meta m = { .kernel_release = runs[i].kernel,
					 .workload = runs[i].label,
					 .preempt_mode = runs[i].preempt,
					 .kernel_version = runs[i].version,
					 .params = runs[i].params,
					 .host_id = host[runs[i].host],
					 .nr_cpus = 2 };

		if ((err = sl_store_run_begin(st, &m, &run)) || run != (int64_t)i + 1) {
			printf("Bail out! run %zu: %s\n", i + 1, sl_errmsg(err));
			sl_store_close(st);
			return NULL;
		}
	}
	return st;
}

static void test_keys(void)
{
	char long_key[65];

	ok(sl_run_where_key_valid("features") && sl_run_where_key_valid("kernel_package") &&
		   sl_run_where_key_valid("A9_"),
	   "letters, digits and _ make a key");
	ok(!sl_run_where_key_valid("") && !sl_run_where_key_valid("a-b") &&
		   !sl_run_where_key_valid("a.b") && !sl_run_where_key_valid("a'b") &&
		   !sl_run_where_key_valid("a b"),
	   "empty, -, ., quote, space: not a key");
	memset(long_key, 'k', 64);
	long_key[64] = '\0';
	ok(!sl_run_where_key_valid(long_key), "64 characters: too long");
	long_key[63] = '\0';
	ok(sl_run_where_key_valid(long_key), "63 characters: a key");
	ok(sl_run_where_is_column("preempt_mode") && sl_run_where_is_column("kernel_version") &&
		   !sl_run_where_is_column("features") && !sl_run_where_is_column("workload"),
	   "preempt_mode and kernel_version are the run columns");
}

static void test_select(struct sl_store *st)
{
	const struct sl_run_where def = { "features", "default" },
				  nwp = { "features", "NO_WAKEUP_PREEMPTION" },
				  scale = { "scale", "10" }, full = { "preempt_mode", "full" },
				  vol = { "preempt_mode", "voluntary" },
				  v158 = { "kernel_version", "#1 SMP 6.1.158-1" },
				  none = { "nosuchkey", "default" }, empty = { "features", "" },
				  quoted = { "features", "it's \"x\"" },
				  spliced = { "features", "x' OR '1'='1" };
	struct sl_run_where two[2] = { def, scale }, clash[2] = { def, full },
			    col2[2] = { vol, v158 };
	int err;

	is_str(runs_where(st, "6.1", NULL, NULL, 0, NULL, &err), "1,2,3,4,5,7,8,9",
	       "no filter: every run of the kernel");
	is_int(err, 0, "no error");
	is_str(runs_where(st, "6.1", NULL, NULL, 1, &def, &err), "1,5,7,9",
	       "features=default (not the run without params, nor the one whose are not JSON)");
	is_str(runs_where(st, "6.1", NULL, NULL, 1, &nwp, &err), "2",
	       "features=NO_WAKEUP_PREEMPTION");
	is_str(runs_where(st, "6.1", "hackbench", "00000000000000aa", 1, &def, &err), "1,5",
	       "with the label and the topology");
	is_str(runs_where(st, "6.12", NULL, NULL, 1, &def, &err), "6", "the other kernel's");
	is_str(runs_where(st, "6.1", NULL, NULL, 2, two, &err), "1,5",
	       "features=default and scale=10: a number matches by its text");
	is_str(runs_where(st, "6.1", NULL, NULL, 2, clash, &err), "",
	       "features=default and preempt_mode=full: none");
	is_str(runs_where(st, "6.1", NULL, NULL, 1, &full, &err), "2", "the column preempt_mode");
	is_str(runs_where(st, "6.1", NULL, NULL, 2, col2, &err), "1,7,8,9",
	       "preempt_mode=voluntary and kernel_version: two columns");
	is_str(runs_where(st, "6.1", NULL, NULL, 1, &none, &err), "", "a key no run has: none");
	is_int(err, 0, "and no error (the caller names the keys)");
	is_str(runs_where(st, "6.1", NULL, NULL, 1, &empty, &err), "",
	       "features= (empty): no run has the empty value");
	is_str(runs_where(st, "6.1", NULL, NULL, 1, &quoted, &err), "8",
	       "a value with quotes matches exactly");
	is_str(runs_where(st, "6.1", NULL, NULL, 1, &spliced, &err), "",
	       "a value is bound, not spliced into the SQL");
}

static void test_refused(struct sl_store *st)
{
	struct sl_run_where bad = { "a') OR 1=1 --", "x" }, many[SL_RUN_WHERE_MAX + 1];
	struct sl_run_ident r;
	int err;

	is_str(runs_where(st, "6.1", NULL, NULL, 1, &bad, &err), "", "a bad key: nothing");
	is_int(err, -EINVAL, "a bad key: -EINVAL");
	ok(strstr(sl_errmsg(err), "invalid filter key"), "says so: %s", sl_errmsg(err));
	for (int i = 0; i <= SL_RUN_WHERE_MAX; i++)
		many[i] = (struct sl_run_where){ "features", "default" };
	runs_where(st, "6.1", NULL, NULL, SL_RUN_WHERE_MAX, many, &err);
	is_int(err, 0, "%d filters are taken", SL_RUN_WHERE_MAX);
	runs_where(st, "6.1", NULL, NULL, SL_RUN_WHERE_MAX + 1, many, &err);
	is_int(err, -EINVAL, "%d are refused", SL_RUN_WHERE_MAX + 1);
	is_int(sl_query_newest_run(st, NULL, NULL, NULL, &bad, 1, &r), -EINVAL,
	       "newest run: a bad key, -EINVAL");
}

static void test_newest(struct sl_store *st)
{
	const struct sl_run_where def = { "features", "default" },
				  nwp = { "features", "NO_WAKEUP_PREEMPTION" },
				  lazy = { "preempt_mode", "lazy" };
	struct sl_run_ident r = { 0 };

	is_int(sl_query_newest_run(st, "6.1", "hackbench", NULL, &def, 1, &r), 0,
	       "newest hackbench run of 6.1 with features=default");
	is_int(r.id, 9, "is run 9");
	is_str(r.topo, "00000000000000bb", "on the second host");
	is_int(sl_query_newest_run(st, "6.1", NULL, NULL, &nwp, 1, &r), 0,
	       "newest run of 6.1 with NO_WAKEUP_PREEMPTION");
	is_int(r.id, 2, "is run 2");
	is_int(sl_query_newest_run(st, NULL, NULL, NULL, &lazy, 1, &r), 0,
	       "newest preempt_mode=lazy run of any kernel");
	is_str(r.kernel, "6.12", "is 6.12's");
	is_int(sl_query_newest_run(st, "6.12", NULL, NULL, &nwp, 1, &r), -ENOENT, "none: -ENOENT");
	is_int(sl_query_newest_run(st, "6.1", NULL, NULL, NULL, 0, &r), 0, "no filter");
	is_int(r.id, 9, "the newest of all");
}

static void test_param_keys(struct sl_store *st)
{
	json_t *keys = json_array();
	char *text;

	is_int(sl_query_param_keys(st, keys), 0, "params keys read");
	text = json_dumps(keys, JSON_COMPACT);
	is_str(text, "[\"clients\",\"features\",\"scale\"]",
	       "every key of every run's params, once, sorted (not-JSON params have none)");
	free(text);
	json_decref(keys);
}

int main(void)
{
	struct sl_store *st;

	test_keys();
	if (!(st = make_store()))
		return 1;
	test_select(st);
	test_refused(st);
	test_newest(st);
	test_param_keys(st);
	sl_store_close(st);
	return done_testing();
}
