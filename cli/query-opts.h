/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The options the commands that read a database share (runs, show, findings): --db FILE,
 * -n COUNT under the command's own long name (--limit, --top), --json, --csv, --help and,
 * where the command has it, --all.
 */
#ifndef SL_CLI_QUERY_OPTS_H
#define SL_CLI_QUERY_OPTS_H

#include <stdbool.h>

#include "print.h"

struct query_opts {
	const char *n_name; /* the long name of -n: "limit", "top" */
	long n_max; /* -n accepts 1..n_max */
	bool has_all; /* the command takes --all */

	/* results; set n to its default before parsing */
	const char *db;
	long n;
	enum pr_format format;
	bool all;
};

/*
 * Parses argv[1..] into q. Returns -1 when the command goes on (argv[optind..] are its
 * operands), else the exit status to return at once: EXIT_OK after --help printed the
 * usage, EXIT_USAGE after a bad option.
 */
int query_opts_parse(int argc, char **argv, const char *usage_text, struct query_opts *q);

#endif
