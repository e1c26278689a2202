// SPDX-License-Identifier: GPL-2.0-only
/* The options of the database-reading commands (see query-opts.h). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "query-opts.h"

int query_opts_parse(int argc, char **argv, const char *usage_text, struct query_opts *q)
{
	struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ q->n_name, required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "all", no_argument, NULL, 'a' },
		{},
	};
	char flag[32];
	int64_t n;
	int opt;

	if (!q->has_all)
		opts[5] = opts[6]; /* the table ends before --all */
	q->db = "schedlens.db";
	q->format = PR_TEXT;
	q->all = false;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:n:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			q->db = optarg;
			break;
		case 'n':
			snprintf(flag, sizeof(flag), "-n/--%s", q->n_name);
			if (cli_i64(argv[0], flag, optarg, 1, q->n_max, &n))
				return EXIT_USAGE;
			q->n = (long)n;
			break;
		case 'a':
			q->all = true;
			break;
		case 'j':
			q->format = PR_JSON;
			break;
		case 'c':
			q->format = PR_CSV;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	return -1;
}
