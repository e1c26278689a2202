// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens findings [ID]`: the stored comparisons (every `schedlens diff` without
 * --no-store, and the daemon's automatic ones), newest first; with an id, that
 * comparison's findings the way `diff` printed them. Data from lib/compare/compare.h
 * (sl_compare_list, sl_compare_load), printed through cli/print.h.
 */
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin.h"
#include "compare.h"
#include "error.h"
#include "findings-table.h"
#include "print.h"
#include "query-opts.h"

static const char usage_text[] =
	"schedlens findings [ID] [--db FILE] [-n LIMIT] [--all] [--json | --csv]\n"
	"  without ID: the stored comparisons, newest first (-n: at most LIMIT, default 50),\n"
	"  with the number of unconfirmed changes each lists\n"
	"  with ID: that comparison's flagged findings (--all: every metric); --json and --csv\n"
	"  carry every finding, as 'schedlens diff --json' does\n"
	"  --db FILE   the database (default schedlens.db)";

static const struct pr_col list_cols[] = {
	{ "id", "ID", PR_INT },
	{ "created_wall", "CREATED (UTC)", PR_WALL },
	{ "verdict", "VERDICT" },
	{ "unconfirmed", "UNCONFIRMED", PR_INT },
	{ "baseline", "BASELINE" },
	{ "candidate", "CANDIDATE" },
	{ "summary", "SUMMARY", PR_STR, NULL, PR_BELOW },
};

static int list(struct pr *p, struct sl_store *store, int limit)
{
	json_t *a;
	int err = sl_compare_list(store, limit, &a);

	if (err)
		return err;
	pr_table(p, "comparisons", NULL, list_cols, sizeof(list_cols) / sizeof(list_cols[0]), 0);
	for (size_t i = 0; i < json_array_size(a); i++) {
		pr_row(p);
		for (size_t k = 0; k < sizeof(list_cols) / sizeof(list_cols[0]); k++)
			pr_json(p, json_object_get(json_array_get(a, i), list_cols[k].key));
	}
	pr_table_end(p);
	json_decref(a);
	return 0;
}

/* Text: what was compared and the verdict around the findings table; CSV: the table. */
static void one(struct pr *p, json_t *c, bool all)
{
	json_t *fs = json_object_get(c, "findings");
	size_t flagged = 0;

	for (size_t i = 0; i < json_array_size(fs); i++)
		flagged += finding_flagged(json_array_get(fs, i));
	pr_line(p, "comparison %lld", (long long)json_integer_value(json_object_get(c, "id")));
	pr_line(p, "baseline:  %s", json_string_value(json_object_get(c, "baseline")) ?: "");
	pr_line(p, "candidate: %s", json_string_value(json_object_get(c, "candidate")) ?: "");
	if (flagged || all || pr_format(p) != PR_TEXT)
		print_findings(p, fs, pr_format(p) == PR_TEXT && !all);
	else
		pr_line(p, "\nno metric changed significantly beyond its thresholds");
	if (!all)
		pr_line(p, "(%zu of %zu findings flagged; --all shows every metric)", flagged,
			json_array_size(fs));
	if (pr_format(p) == PR_TEXT)
		print_unconfirmed(p, c);
	pr_line(p, "\nverdict: %s: %s", json_string_value(json_object_get(c, "verdict")) ?: "",
		json_string_value(json_object_get(c, "summary")) ?: "");
}

int cmd_findings(int argc, char **argv)
{
	struct query_opts q = { .n_name = "limit", .n_max = 1000, .has_all = true, .n = 50 };
	struct sl_store *store = NULL;
	int64_t id = 0;
	json_t *c = NULL;
	struct pr *p = NULL;
	int err, status = EXIT_OK;

	if ((err = query_opts_parse(argc, argv, usage_text, &q)) >= 0)
		return err;
	if (argc - optind > 1)
		return cli_usage(usage_text);
	if (argc - optind == 1) {
		if (cli_i64(argv[0], "ID", argv[optind], 1, INT64_MAX, &id))
			return EXIT_USAGE;
	}
	if ((err = sl_store_open(q.db, SL_STORE_RDONLY, &store)))
		return cli_error("%s", sl_errmsg(err));
	if (id) {
		err = sl_compare_load(store, id, false, &c);
		if (err == -ENOENT) {
			status = cli_error("no comparison %lld in '%s'", (long long)id, q.db);
			goto out;
		}
		if (err) {
			status = cli_error("%s", sl_errmsg(err));
			goto out;
		}
	}
	if (!(p = pr_open(q.format, PR_INDENT, stdout))) {
		status = cli_error("out of memory");
		goto out;
	}
	/* JSON of one: the comparison's own shape, the one diff --json prints */
	if (id && q.format == PR_JSON)
		pr_object(p, json_incref(c));
	else if (id)
		one(p, c, q.all);
	else if ((err = list(p, store, (int)q.n)))
		status = cli_error("%s", sl_errmsg(err));
	if (pr_close(p) && status == EXIT_OK)
		status = cli_error("cannot write the output");
out:
	json_decref(c);
	sl_store_close(store);
	return status;
}
