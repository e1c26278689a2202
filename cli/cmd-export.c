// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens export RUN --format text [-o FILE] [-d DB]`: writes a stored run as ftrace
 * text that `schedlens import` reads back to the same wakeup and preemption records
 * (lib/export-text.h says what is regenerated and what cannot be).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "error.h"
#include "export-text.h"

static const char usage_text[] =
	"schedlens export RUN --format text -d DB [-o FILE]\n"
	"  RUN            the run id ('schedlens import' and 'record -o' print it)\n"
	"  -d, --db DB    the database holding the run\n"
	"  -o FILE        write there instead of standard output";

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "db", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = NULL, *path = NULL, *format = "text";
	struct sl_export_stats st;
	FILE *out = stdout;
	int64_t run;
	int c, r;

	while ((c = getopt_long(argc, argv, "f:d:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'd':
			db = optarg;
			break;
		case 'o':
			path = optarg;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	if (optind + 1 != argc || !db)
		return cli_usage(usage_text);
	if (strcmp(format, "text"))
		return cli_usage_error("export", "unsupported --format '%s' (only 'text')", format);
	if (cli_i64("export", "RUN", argv[optind], 1, INT64_MAX, &run))
		return EXIT_USAGE;
	if (path && !(out = fopen(path, "we")))
		return cli_error("cannot create '%s': %s", path, strerror(errno));
	r = sl_export_text(db, run, out, &st);
	if (path && fclose(out) && r >= 0)
		r = sl_error(-EIO, "cannot write '%s'", path);
	if (r < 0)
		return cli_error("%s", sl_errmsg(r));
	if (path)
		fprintf(stderr,
			"wrote %llu lines: %llu switches, %llu wakings, %llu wakeups, %llu "
			"migrations\n",
			(unsigned long long)st.lines, (unsigned long long)st.switches,
			(unsigned long long)st.wakings, (unsigned long long)st.wakeups,
			(unsigned long long)st.migrations);
	return EXIT_OK;
}
