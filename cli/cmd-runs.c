// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens runs`: the stored runs, newest first, one line each (lib's sl_api_runs(), the
 * rows the daemon's /api/v1/runs serves), as a table, CSV or JSON through cli/print.h.
 * STATUS tells complete runs from interrupted imports and imports stopped by bad input;
 * SKIPPED is the lines a text import could not use (schema 6).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "api.h"
#include "builtin.h"
#include "error.h"
#include "print.h"
#include "query-opts.h"

static const char usage_text[] = "schedlens runs [--db FILE] [-n LIMIT] [--json | --csv]\n"
				 "  --db FILE   the database (default schedlens.db)\n"
				 "  -n LIMIT    the newest LIMIT runs, 1..1000 (default 100)";

static const struct pr_col cols[] = {
	{ "id", "ID", PR_INT },
	{ "kernel", "KERNEL", PR_STR },
	{ "label", "LABEL", PR_STR },
	{ "host", "HOST", PR_STR },
	{ "start_wall", "STARTED (UTC)", PR_WALL },
	{ "duration_s", "SECONDS", PR_REAL, "%.1f" },
	{ "events", "EVENTS", PR_INT },
	{ "lost_events", "LOST", PR_INT },
	{ "gaps", "GAPS", PR_BOOL },
	{ "complete", "COMPLETE", PR_BOOL },
	{ "status", "STATUS", PR_STR },
	{ "skipped_lines", "SKIPPED", PR_INT },
	{ "source", "SOURCE", PR_STR },
	{ "params", "WHAT WAS RUN", PR_STR },
};

static void print_run(struct pr *p, json_t *r)
{
	json_t *s = json_object_get(r, "start_ns"), *e = json_object_get(r, "end_ns");

	pr_row(p);
	pr_json(p, json_object_get(r, "id"));
	pr_json(p, json_object_get(r, "kernel_release"));
	pr_json(p, json_object_get(r, "label"));
	pr_json(p, json_object_get(r, "hostname"));
	pr_json(p, json_object_get(r, "start_wall"));
	/* a run still recording (or cut off) has no end yet */
	if (json_is_integer(s) && json_is_integer(e))
		pr_real(p, (double)(json_integer_value(e) - json_integer_value(s)) / 1e9);
	else
		pr_null(p);
	pr_json(p, json_object_get(r, "events"));
	pr_json(p, json_object_get(r, "lost_events"));
	pr_bool(p, json_integer_value(json_object_get(r, "has_gaps")) != 0);
	pr_bool(p, json_integer_value(json_object_get(r, "complete")) != 0);
	pr_json(p, json_object_get(r, "status"));
	pr_json(p, json_object_get(r, "skipped_lines"));
	pr_json(p, json_object_get(r, "source"));
	pr_params(p, json_object_get(r, "params"));
}

int cmd_runs(int argc, char **argv)
{
	struct query_opts q = { .n_name = "limit", .n_max = 1000, .n = 100 };
	struct sl_store *store = NULL;
	json_t *runs = NULL;
	struct pr *p;
	int err;

	if ((err = query_opts_parse(argc, argv, usage_text, &q)) >= 0)
		return err;
	if (optind != argc)
		return cli_usage(usage_text);
	err = sl_store_open(q.db, SL_STORE_RDONLY, &store);
	if (!err)
		err = sl_api_runs(store, (int)q.n, &runs);
	sl_store_close(store);
	if (err)
		return cli_error("%s", sl_errmsg(err));
	p = pr_open(q.format, 0, stdout);
	if (!p) {
		json_decref(runs);
		return cli_error("out of memory");
	}
	pr_table(p, "runs", NULL, cols, sizeof(cols) / sizeof(cols[0]), 0);
	for (size_t i = 0; i < json_array_size(json_object_get(runs, "runs")); i++)
		print_run(p, json_array_get(json_object_get(runs, "runs"), i));
	pr_table_end(p);
	json_decref(runs);
	return pr_close(p) ? cli_error("cannot write the output") : EXIT_OK;
}
