// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens delete RUN...`: removes runs and every row derived from them (lib's
 * sl_store_delete_runs(): one transaction, then VACUUM), e.g. what an interrupted import
 * left. Prints what went and how much the file shrank.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin.h"
#include "print.h"
#include "error.h"
#include "store.h"

static const char usage_text[] =
	"schedlens delete [--db FILE] RUN...\n"
	"  --db FILE   the database (default schedlens.db)\n"
	"  RUN         run ids ('schedlens runs'); the runs, their rows and the comparisons\n"
	"              that used them are deleted in one transaction, then the file is\n"
	"              vacuumed (stop any recorder or daemon writing it first)";

int cmd_delete(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = "schedlens.db";
	struct sl_delete_stats stats = { 0 };
	struct pr *p;
	struct sl_store *store = NULL;
	int64_t *ids;
	int c, n, err;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	if (optind >= argc)
		return cli_usage(usage_text);
	n = argc - optind;
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		return cli_error("out of memory");
	for (int i = 0; i < n; i++) {
		if (cli_i64("delete", "RUN", argv[optind + i], 1, INT64_MAX, &ids[i])) {
			free(ids);
			return EXIT_USAGE;
		}
	}
	err = sl_store_open(db, 0, &store);
	if (!err)
		err = sl_store_delete_runs(store, ids, n, &stats);
	sl_store_close(store);
	free(ids);
	if (err < 0 && !stats.runs)
		return cli_error("%s", sl_errmsg(err));
	p = pr_open(PR_TEXT, 0, stdout);
	if (p)
		pr_line(p,
			"deleted %llu run(s), %llu rows, %llu comparison(s); '%s' %.1f MiB -> "
			"%.1f MiB",
			(unsigned long long)stats.runs, (unsigned long long)stats.rows,
			(unsigned long long)stats.comparisons, db, stats.bytes_before / 1048576.0,
			stats.bytes_after / 1048576.0);
	if ((!p || pr_close(p) < 0) && err >= 0)
		return cli_error("cannot write to stdout");
	if (err < 0)
		return cli_error("%s", sl_errmsg(err));
	return EXIT_OK;
}
