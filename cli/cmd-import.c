// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens import FILE`: analyses a trace.dat or an ftrace text dump like a live
 * recording and stores it as a run, classified with the traced host's topology (--topology
 * or --sysfs). Prints a summary, or one line of JSON (--json) or CSV (--csv) through the
 * print layer; a progress bar goes to
 * stderr when it is a terminal. SIGINT and SIGTERM stop the import cleanly (what was read
 * is stored, the run marked interrupted) and exit 128 + the signal: 130, 143.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin.h"
#include "print.h"
#include "error.h"
#include "import.h"
#include "topo.h"

static const char usage_text[] =
	"schedlens import FILE [-l LABEL] [--kernel RELEASE] [--host NAME]\n"
	"                        [--topology FILE | --sysfs DIR] [-o DB] [--format dat|text] "
	"[--json | --csv]\n"
	"                        [--windows-only]\n"
	"  FILE             a trace.dat (trace-cmd record) or ftrace text (tracefs 'trace',\n"
	"                   trace-cmd report); told apart by content\n"
	"  --topology FILE  the traced host's topology ('schedlens topology --save' there)\n"
	"  --sysfs DIR      ... or a copy of its /sys (DIR/sys/devices/system/cpu)\n"
	"  --kernel R       the traced kernel's release (trace.dat files carry it)\n"
	"  --windows-only   store the per-window aggregates only (what the daemon keeps long\n"
	"                   term): no per-event rows, so no exact export";

static volatile sig_atomic_t stop;

/* Only sets the flag: the import checks it between batches of events. */
static void on_signal(int sig)
{
	stop = sig;
}

static void show_progress(void *ctx, const struct sl_import_progress *p)
{
	double rate = p->elapsed_s > 0 ? p->events / p->elapsed_s : 0;
	double frac = p->total ? (double)p->done / p->total : 0;
	double eta = frac > 0.001 ? p->elapsed_s * (1 - frac) / frac : 0;
	char bar[31];
	int fill;

	if (frac > 1)
		frac = 1;
	fill = (int)(frac * 30);
	memset(bar, '#', fill);
	memset(bar + fill, '.', 30 - fill);
	bar[30] = '\0';
	fprintf(stderr, "\r[%s] %3.0f%%  %llu events  %.2f M/s  ETA %.0f s ", bar, frac * 100,
		(unsigned long long)p->events, rate / 1e6, eta);
}

/* The summary as one object (--json, --csv): raw counts, seconds, booleans. */
static json_t *import_json(const struct sl_import_opts *o, const struct sl_import_result *r)
{
	json_t *j = json_object(), *ev = json_object();

	for (unsigned int t = 1; t < SL_EV_TYPE_MAX; t++)
		json_object_set_new(ev, sl_event_type_name(t), json_integer(r->events[t]));
	json_object_set_new(j, "file", json_string(o->path));
	json_object_set_new(j, "format", json_string(sl_import_format_name(r->format)));
	if (r->format == SL_IMPORT_DAT) {
		json_object_set_new(j, "file_version", json_integer(r->file_version));
		json_object_set_new(j, "instances", json_integer(r->nr_instances));
		json_object_set_new(j, "reader", json_string(r->dat_reader));
	} else {
		json_object_set_new(j, "nsec", json_boolean(r->nsec));
	}
	json_object_set_new(j, "kernel_release", json_string(r->kernel_release));
	json_object_set_new(j, "hostname", json_string(r->hostname));
	json_object_set_new(j, "trace_clock",
			    r->trace_clock[0] ? json_string(r->trace_clock) : json_null());
	json_object_set_new(j, "cpus", json_integer(r->nr_cpus));
	json_object_set_new(j, "units", json_integer(r->units));
	json_object_set_new(j, "skipped", json_integer(r->skipped));
	json_object_set_new(j, "skipped_lines", json_integer(r->skipped_lines));
	if (r->skipped_lines)
		json_object_set_new(j, "first_skipped_line", json_integer(r->first_skipped_line));
	json_object_set_new(j, "events_total", json_integer(r->events_total));
	json_object_set_new(j, "events", ev);
	json_object_set_new(j, "wakeup_records", json_integer(r->session.engine.wakeups));
	json_object_set_new(j, "preemptions", json_integer(r->session.engine.preemptions));
	json_object_set_new(j, "lhp", json_integer(r->session.engine.lhp));
	json_object_set_new(j, "out_of_order", json_integer(r->session.engine.out_of_order));
	json_object_set_new(j, "switch_mismatch", json_integer(r->session.engine.switch_mismatch));
	json_object_set_new(j, "spin_list_full", json_integer(r->session.engine.spin_list_full));
	json_object_set_new(j, "windows_skipped", json_integer(r->session.engine.windows_skipped));
	json_object_set_new(j, "topology", json_boolean(r->topo_known));
	json_object_set_new(j, "waker_from_wakeup", json_boolean(r->waker_from_wakeup));
	json_object_set_new(j, "complete", json_boolean(r->complete));
	json_object_set_new(j, "status",
			    json_string(r->complete    ? "complete" :
					r->interrupted ? "interrupted" :
							 "error"));
	if (!r->complete)
		json_object_set_new(j, "error", json_string(r->error));
	json_object_set_new(j, "cpu_s", json_real(r->cpu_s));
	json_object_set_new(j, "events_per_cpu_s",
			    json_real(r->cpu_s > 0 ? r->events_total / r->cpu_s : 0));
	if (r->session.run_id >= 0)
		json_object_set_new(j, "run_id", json_integer(r->session.run_id));
	return j;
}

/* The summary for people (text) or as one object (JSON, CSV). */
static void print_summary(struct pr *p, const struct sl_import_opts *o,
			  const struct sl_import_result *r)
{
	char line[1024];
	size_t n = 0;

	if (pr_format(p) != PR_TEXT) {
		pr_object(p, import_json(o, r));
		return;
	}
	if (r->format == SL_IMPORT_DAT)
		snprintf(line, sizeof(line), " v%lu, %d instance(s)", r->file_version,
			 r->nr_instances);
	else
		snprintf(line, sizeof(line), ", %s timestamps", r->nsec ? "ns" : "us");
	pr_line(p, "imported '%s' (%s%s): kernel %s, host %s, clock %s, %d CPUs", o->path,
		sl_import_format_name(r->format), line, r->kernel_release, r->hostname,
		r->trace_clock[0] ? r->trace_clock : "unknown (text does not say)", r->nr_cpus);
	pr_line(p, "  %llu events in %.2f CPU-s (%.2f M/s)", (unsigned long long)r->events_total,
		r->cpu_s, r->cpu_s > 0 ? r->events_total / r->cpu_s / 1e6 : 0);
	for (unsigned int t = 1; t < SL_EV_TYPE_MAX && n < sizeof(line); t++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %llu  ",
				      sl_event_type_name(t), (unsigned long long)r->events[t]);
	pr_line(p, "  %s", line);
	pr_line(p, "  wakeup records %llu, preemptions %llu, LHP %llu",
		(unsigned long long)r->session.engine.wakeups,
		(unsigned long long)r->session.engine.preemptions,
		(unsigned long long)r->session.engine.lhp);
	if (r->session.run_id >= 0)
		pr_line(p, "stored as run %lld in '%s'%s", (long long)r->session.run_id, o->db_path,
			r->complete    ? "" :
			r->interrupted ? " (marked interrupted)" :
					 " (marked incomplete)");
}

/* The options: -1 to go on, else the exit status (a bad value, --help). */
static int import_options(int argc, char **argv, struct sl_import_opts *o, const char **topo_file,
			  const char **sysfs, enum pr_format *format)
{
	static const struct option longopts[] = {
		{ "label", required_argument, NULL, 'l' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "host", required_argument, NULL, 'H' },
		{ "topology", required_argument, NULL, 't' },
		{ "sysfs", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "windows-only", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "l:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->label = optarg;
			break;
		case 'k':
			o->kernel_release = optarg;
			break;
		case 'H':
			o->hostname = optarg;
			break;
		case 't':
			*topo_file = optarg;
			break;
		case 's':
			*sysfs = optarg;
			break;
		case 'o':
			o->db_path = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "dat") || !strcmp(optarg, "trace.dat"))
				o->format = SL_IMPORT_DAT;
			else if (!strcmp(optarg, "text"))
				o->format = SL_IMPORT_TEXT;
			else
				return cli_usage_error(
					"import", "invalid --format '%s': dat or text", optarg);
			break;
		case 'j':
			*format = PR_JSON;
			break;
		case 'c':
			*format = PR_CSV;
			break;
		case 'W':
			o->windows_only = true;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	return -1;
}

/* A failed import: what became of the run; the exit status. */
static int import_failed(int r, const struct sl_import_result *res)
{
	int ret;

	if (res->interrupted) {
		cli_error("%s", res->error[0] ? res->error : sl_errmsg(r));
		ret = 128 + res->interrupted;
		if (res->session.run_id >= 0)
			fprintf(stderr,
				"schedlens: run %lld keeps the events read so far, marked "
				"interrupted ('schedlens delete %lld' removes it)\n",
				(long long)res->session.run_id, (long long)res->session.run_id);
	} else {
		ret = cli_error("%s", sl_errmsg(r));
		if (res->session.run_id >= 0)
			fprintf(stderr,
				"schedlens: run %lld keeps the events before the error, marked "
				"incomplete\n",
				(long long)res->session.run_id);
	}
	return ret;
}

/* What the reader of the run should know about the trace itself. */
static void import_notes(const struct sl_import_result *res, bool machine)
{
	if (res->waker_from_wakeup)
		fprintf(stderr, "schedlens: note: the trace has no sched_waking: wakers were taken "
				"from sched_wakeup's context, which may be the target CPU under "
				"TTWU_QUEUE (flagged on the run)\n");
	if (!res->trace_clock[0] && res->events_total && !machine)
		fprintf(stderr, "schedlens: note: text traces do not say which trace clock they "
				"used; cross-CPU order assumes a global one\n");
	else if (!strcmp(res->trace_clock, "local"))
		fprintf(stderr, "schedlens: warning: the trace used the 'local' clock: cross-CPU "
				"order (missed idle) may be off\n");
	if (res->session.engine.windows_skipped)
		fprintf(stderr,
			"schedlens: warning: the timestamps jump over %llu windows with no event "
			"(a corrupt trace or a clock jump?): those empty windows were not stored\n",
			(unsigned long long)res->session.engine.windows_skipped);
}

int cmd_import(int argc, char **argv)
{
	struct sl_import_opts o = { 0 };
	struct sl_import_result res;
	const char *topo_file = NULL, *sysfs = NULL;
	struct sl_topo *topo = NULL;
	enum pr_format format = PR_TEXT;
	struct pr *p;
	bool bar;
	int r, ret = EXIT_OK;

	if ((r = import_options(argc, argv, &o, &topo_file, &sysfs, &format)) >= 0)
		return r;
	if (optind + 1 != argc || (topo_file && sysfs))
		return cli_usage(usage_text);
	o.path = argv[optind];
	if (topo_file || sysfs) {
		r = topo_file ? sl_topo_load(topo_file, &topo) : sl_topo_read(sysfs, &topo);
		if (r < 0)
			return cli_error("%s", sl_errmsg(r));
		o.topo = topo;
	} else {
		fprintf(stderr,
			"schedlens: warning: no topology given: placement classes (smt/llc/remote, "
			"missed idle) will be unavailable for this run; run 'schedlens topology "
			"--save FILE' on the traced host and pass --topology FILE\n");
	}
	bar = isatty(STDERR_FILENO);
	if (bar)
		o.progress = show_progress;
	{
		struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	o.stop = &stop;
	r = sl_import_run(&o, &res);
	if (bar)
		fputs("\r\033[K", stderr);
	if (r < 0)
		ret = import_failed(r, &res);
	if (res.skipped_lines)
		fprintf(stderr,
			"schedlens: warning: skipped %llu line(s) that are not sched events (other "
			"events or unreadable), the first at line %llu%s\n",
			(unsigned long long)res.skipped_lines,
			(unsigned long long)res.first_skipped_line,
			res.session.run_id >= 0 ? " (count stored with the run)" : "");
	if (res.events_total || res.session.run_id >= 0) {
		p = pr_open(format, 0, stdout);
		if (p)
			print_summary(p, &o, &res);
		if ((!p || pr_close(p) < 0) && ret == EXIT_OK)
			ret = cli_error("cannot write the summary to stdout");
	}
	import_notes(&res, format != PR_TEXT);
	sl_import_result_free(&res);
	sl_topo_free(topo);
	return ret;
}
