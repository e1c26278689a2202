// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens export RUN --format text [-o FILE] [-d DB]`: writes a stored run as ftrace
 * text that `schedlens import` reads back to the same wakeup and preemption records
 * (lib/serve/export-text.h says what is regenerated and what cannot be).
 * `schedlens export --format openmetrics [--host H] -d DB [-o FILE]`: every run's windows
 * as the time-stamped history of schedlensd's /metrics counters, for Prometheus's
 * `promtool tsdb create-blocks-from openmetrics` (lib/serve/prom-history.h, docs/fleet.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "error.h"
#include "export-text.h"
#include "parse-num.h"
#include "prom-history.h"

static const char usage_text[] =
	"schedlens export RUN --format text -d DB [--from SECONDS] [--to SECONDS] [-o FILE]\n"
	"schedlens export --format openmetrics [--host H] -d DB [-o FILE]\n"
	"  RUN            the run id ('schedlens import' and 'record -o' print it)\n"
	"  -d, --db DB    the database holding the run\n"
	"  --from, --to   text: only the events at SECONDS (the trace clock, as the text's\n"
	"                 TIMESTAMP column shows it, e.g. 8523.5) and later, and before\n"
	"                 --to's SECONDS: a slice for trace-cmd, KernelShark or Perfetto\n"
	"  --host H       openmetrics: the host label (default: each run's hostname)\n"
	"  -o FILE        write there instead of standard output";

/* "SECONDS[.FRACTION]" on the trace clock, exactly, in ns (up to 9 fraction digits). */
static int trace_time(const char *opt, const char *s, uint64_t *ns)
{
	uint64_t sec, frac = 0, scale = 1000000000;
	const char *p;

	if (sl_parse_u64_prefix(s, &sec, &p) < 0 || sec > UINT64_MAX / 1000000000 - 1)
		goto bad;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9' && scale > 1; p++) {
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	}
	if (*p)
		goto bad;
	*ns = sec * 1000000000 + frac;
	return 0;
bad:
	return cli_usage_error("export", "%s '%s': seconds on the trace clock, e.g. 8523.5", opt,
			       s);
}

/* Every run's windows as /metrics history (docs/fleet.md). */
static int export_openmetrics(const char *db, const char *host, const char *path)
{
	struct sl_store *store;
	FILE *out = stdout;
	size_t instants = 0;
	int r;

	if ((r = sl_store_open(db, SL_STORE_RDONLY, &store)) < 0) {
		cli_error("%s", sl_errmsg(r));
		return EXIT_USAGE;
	}
	if (path && !(out = fopen(path, "we"))) {
		sl_store_close(store);
		return cli_error("cannot create '%s': %s", path, strerror(errno));
	}
	r = sl_prom_history_write(store, host, out, &instants);
	if (path && fclose(out) && r >= 0)
		r = sl_error(-EIO, "cannot write '%s'", path);
	sl_store_close(store);
	if (r < 0)
		return cli_error("%s", sl_errmsg(r));
	if (path)
		fprintf(stderr, "wrote %zu instants\n", instants);
	return EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "db", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "host", required_argument, NULL, 'H' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = NULL, *path = NULL, *format = "text", *host = NULL;
	struct sl_export_slice slice = { 0 };
	bool sliced = false;
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
		case 'H':
			host = optarg;
			break;
		case 'F':
		case 'T':
			if (trace_time(c == 'F' ? "--from" : "--to", optarg,
				       c == 'F' ? &slice.from_ns : &slice.to_ns))
				return EXIT_USAGE;
			sliced = true;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	if (!strcmp(format, "openmetrics")) {
		if (optind != argc || !db || sliced)
			return cli_usage(usage_text);
		return export_openmetrics(db, host, path);
	}
	if (optind + 1 != argc || !db || host)
		return cli_usage(usage_text);
	if (strcmp(format, "text"))
		return cli_usage_error(
			"export", "unsupported --format '%s' ('text' or 'openmetrics')", format);
	if (cli_i64("export", "RUN", argv[optind], 1, INT64_MAX, &run))
		return EXIT_USAGE;
	if (slice.to_ns && slice.to_ns <= slice.from_ns)
		return cli_usage_error("export", "--to must be later than --from");
	if (path && !(out = fopen(path, "we")))
		return cli_error("cannot create '%s': %s", path, strerror(errno));
	r = sl_export_text_slice(db, run, sliced ? &slice : NULL, out, &st);
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
