// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens record`: records this host's scheduler events for a duration or while a
 * command runs (like `perf record -- cmd`) and prints a short summary, or one line of
 * JSON (--json) or CSV (--csv), through the print layer. Signal handlers only set a flag; the recorder's own shutdown order
 * (trace off, stop readers, flush, close, destroy the instance) runs on every exit path.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin.h"
#include "print.h"
#include "comm-counts.h"
#include "error.h"
#include "hostinfo.h"
#include "metrics.h"
#include "recorder.h"
#include "session-live.h"
#include "topo.h"

static const char usage_text[] =
	"schedlens record [-d DURATION] [-l LABEL] [-o DB] [--param KEY=VALUE]... "
	"[--buffer-kb N] [--no-futex] [--json | --csv] [-- COMMAND ARGS...]";

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* What on_batch needs: the run being analysed. */
struct record_ctx {
	struct sl_session *session;
};

static int on_batch(void *ctx, const struct sl_event *ev, size_t n)
{
	struct record_ctx *rc = ctx;

	sl_session_feed(rc->session, ev, n);
	return 0;
}

/* -d: a number of seconds, or one with a unit (500ms, 2m, 1h); up to 366 days. */
static int parse_duration(const char *s, double *ret_s)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = { { "ms", 1e-3 }, { "s", 1 }, { "m", 60 }, { "h", 3600 } };
	double mul = 1, v;
	size_t len = strlen(s);
	char num[64];
	int err;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t ul = strlen(units[i].unit);

		if (len > ul && !strcmp(s + len - ul, units[i].unit)) {
			len -= ul;
			mul = units[i].s;
			break;
		}
	}
	if (len >= sizeof(num))
		return cli_usage_error("record", "invalid -d '%s': too long", s);
	snprintf(num, sizeof(num), "%.*s", (int)len, s);
	err = sl_parse_double(num, 0, 366 * 86400 / mul, 0, &v);
	if (err)
		return cli_usage_error("record", "invalid -d '%s': %s (e.g. 5, 1.5, 500ms, 2m)", s,
				       sl_errmsg(err));
	*ret_s = v * mul;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The metric's value for a group's run totals: what `schedlens diff` computes for the same
 * windows. 0 when its denominator is (no wakeup with a known target), as printed before.
 */
static double value(const struct sl_group_total *g, const char *metric)
{
	double v = sl_metric_value(sl_metric_find(metric), g->sums, &g->latency);

	return isnan(v) ? 0 : v;
}

/* A column of the totals, a count. */
static json_int_t count(const struct sl_group_total *g, enum sl_wcol col)
{
	return (json_int_t)g->sums[col];
}

static json_t *groups_json(const struct sl_session_result *res, int max)
{
	json_t *a = json_array();

	for (int i = 0; i < res->nr_groups && i < max; i++) {
		const struct sl_group_total *g = &res->groups[i];

		json_array_append_new(
			a, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
				     "name", g->grp, "wakeups", count(g, SL_WC_WAKEUPS), "switches",
				     count(g, SL_WC_SWITCHES), "known_target",
				     count(g, SL_WC_KNOWN_STATE), "missed_idle",
				     count(g, SL_WC_MISSED_IDLE), "missed_smt",
				     count(g, SL_WC_MISSED_SMT), "preemptions",
				     count(g, SL_WC_PREEMPT_ALL), "same_group_preemptions",
				     count(g, SL_WC_PREEMPT_SAME), "lhp", count(g, SL_WC_LHP_COUNT),
				     "lhp_cost_ns", count(g, SL_WC_LHP_COST_NS), "latency_p50_ns",
				     (json_int_t)sl_hist_quantile_ns(&g->latency, 0.5),
				     "latency_p99_ns",
				     (json_int_t)sl_hist_quantile_ns(&g->latency, 0.99)));
	}
	return a;
}

static json_t *comms_json(const struct sl_comm_count *cc, size_t n, size_t max)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n && i < max; i++)
		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I}", "name", cc[i].comm,
						   "switch", (json_int_t)cc[i].switch_out, "wakeup",
						   (json_int_t)cc[i].wakeup, "waking",
						   (json_int_t)cc[i].waking));
	return a;
}

struct report {
	struct sl_recorder *rec;
	struct sl_recorder_stats st;
	struct sl_session_result res;
	const struct sl_comm_count *comms;
	size_t nr_comms;
	double wall_s;
	const char *label;
	const char *db;
	json_t *params; /* --param KEY=VALUE, stored as runs.params */
	int child_status;
};

/* The summary as one object (--json, --csv): raw counts, seconds, booleans. */
static json_t *record_json(const struct report *r)
{
	json_t *o = json_object(), *ev = json_object(), *notes = json_array();
	char *copy = strdup(sl_recorder_notes(r->rec)), *nl, *line;

	for (unsigned int t = 1; t < SL_EV_TYPE_MAX; t++)
		json_object_set_new(ev, sl_event_type_name(t), json_integer(r->st.events[t]));
	for (line = copy; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (*line)
			json_array_append_new(notes, json_string(line));
	}
	free(copy);
	json_object_set_new(o, "label", json_string(r->label ? r->label : ""));
	json_object_set_new(o, "clock", json_string(sl_recorder_clock(r->rec)));
	json_object_set_new(o, "instance", json_string(sl_recorder_instance(r->rec)));
	json_object_set_new(o, "stale_removed", json_integer(sl_recorder_stale_removed(r->rec)));
	json_object_set_new(o, "cpus", json_integer(r->st.nr_cpus));
	json_object_set_new(o, "readers", json_integer(r->st.nr_readers));
	json_object_set_new(o, "duration_s", json_real(r->wall_s));
	json_object_set_new(o, "events_total", json_integer(r->st.events_total));
	json_object_set_new(o, "events", ev);
	json_object_set_new(o, "wakeups", json_integer(r->st.events[SL_EV_WAKEUP]));
	json_object_set_new(o, "wakeup_records", json_integer(r->res.engine.wakeups));
	json_object_set_new(o, "preemptions", json_integer(r->res.engine.preemptions));
	json_object_set_new(o, "lhp", json_integer(r->res.engine.lhp));
	json_object_set_new(o, "lost", json_integer(r->st.lost));
	json_object_set_new(o, "gaps", json_integer(r->st.gaps));
	json_object_set_new(o, "has_gaps", json_boolean(r->st.lost || r->st.gaps));
	json_object_set_new(o, "late", json_integer(r->st.late));
	json_object_set_new(o, "switch_mismatch", json_integer(r->res.engine.switch_mismatch));
	json_object_set_new(o, "wakeups_unseen_run",
			    json_integer(r->res.engine.wakeups_unseen_run));
	json_object_set_new(o, "out_of_order", json_integer(r->res.engine.out_of_order));
	json_object_set_new(o, "spin_list_full", json_integer(r->res.engine.spin_list_full));
	json_object_set_new(o, "windows_skipped", json_integer(r->res.engine.windows_skipped));
	json_object_set_new(o, "dropped_rows",
			    json_integer(sl_writer_stats_dropped(&r->res.writer)));
	json_object_set_new(o, "pages", json_integer(r->st.pages));
	json_object_set_new(o, "bytes", json_integer(r->st.bytes));
	json_object_set_new(o, "first_ns", json_integer(r->st.first_ns));
	json_object_set_new(o, "last_ns", json_integer(r->st.last_ns));
	json_object_set_new(o, "reader_cpu_s", json_real(r->st.reader_cpu_s));
	json_object_set_new(o, "merge_cpu_s", json_real(r->st.merge_cpu_s));
	if (r->child_status >= 0)
		json_object_set_new(o, "command_status", json_integer(r->child_status));
	if (json_object_size(r->params))
		json_object_set(o, "params", r->params);
	if (r->res.run_id >= 0)
		json_object_set_new(o, "run_id", json_integer(r->res.run_id));
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "groups", groups_json(&r->res, 11));
	json_object_set_new(o, "comms", comms_json(r->comms, r->nr_comms, 50));
	return o;
}

/* The summary for people (text) or as one object (JSON, CSV). */
static void print_summary(struct pr *p, const struct report *r)
{
	const struct sl_recorder_stats *st = &r->st;
	double span = st->last_ns > st->first_ns ? (st->last_ns - st->first_ns) / 1e9 : 0;
	const struct sl_group_total *all = r->res.nr_groups ? &r->res.groups[0] : NULL;
	const char *notes = sl_recorder_notes(r->rec);
	size_t notes_len = strlen(notes), n = 0;
	char rate[32] = "", line[1024];

	if (pr_format(p) != PR_TEXT) {
		pr_object(p, record_json(r));
		return;
	}
	if (span > 0)
		snprintf(rate, sizeof(rate), ", %.0f/s", st->events_total / span);
	pr_line(p, "recorded %.1f s on %d CPUs (clock %s): %llu events%s", r->wall_s, st->nr_cpus,
		sl_recorder_clock(r->rec), (unsigned long long)st->events_total, rate);
	for (unsigned int t = 1; t < SL_EV_TYPE_MAX && n < sizeof(line); t++)
		if (t != SL_EV_LOST)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %llu  ",
					      sl_event_type_name(t),
					      (unsigned long long)st->events[t]);
	pr_line(p, "  %s", line);
	pr_line(p, "  lost %llu in %llu gaps%s", (unsigned long long)st->lost,
		(unsigned long long)st->gaps, st->lost || st->gaps ? " (run has gaps)" : "");
	if (all && all->sums[SL_WC_WAKEUPS]) {
		pr_line(p,
			"  wakeups %llu: landed on a busy CPU while its LLC had an idle one %.1f%%, "
			"beside an idle SMT sibling %.1f%%, stacked %.1f%%",
			(unsigned long long)all->sums[SL_WC_WAKEUPS],
			value(all, "missed_idle_rate"), value(all, "missed_smt_rate"),
			value(all, "stacking_rate"));
		pr_line(p,
			"  latency p50 %.1f us, p99 %.1f us; preemptions %llu (%llu by wakeup, %llu "
			"same group); LHP %llu costing %.2f ms",
			value(all, "latency_p50"), value(all, "latency_p99"),
			(unsigned long long)all->sums[SL_WC_PREEMPT_ALL],
			(unsigned long long)all->sums[SL_WC_PREEMPT_WAKEUP],
			(unsigned long long)all->sums[SL_WC_PREEMPT_SAME],
			(unsigned long long)all->sums[SL_WC_LHP_COUNT],
			all->sums[SL_WC_LHP_COST_NS] / 1e6);
	}
	if (r->res.nr_groups > 1) {
		pr_line(p, "  %-16s %9s %9s %8s %9s %8s %6s", "top groups", "wakeups", "switches",
			"missed%", "p99 us", "preempt", "LHP");
		for (int i = 1; i < r->res.nr_groups && i <= 5; i++) {
			const struct sl_group_total *g = &r->res.groups[i];

			pr_line(p, "  %-16s %9llu %9llu %8.1f %9.1f %8llu %6llu", g->grp,
				(unsigned long long)g->sums[SL_WC_WAKEUPS],
				(unsigned long long)g->sums[SL_WC_SWITCHES],
				value(g, "missed_idle_rate"), value(g, "latency_p99"),
				(unsigned long long)g->sums[SL_WC_PREEMPT_ALL],
				(unsigned long long)g->sums[SL_WC_LHP_COUNT]);
		}
	}
	pr_line(p, "  recorder CPU: readers %.2f s, merge+analysis %.2f s", st->reader_cpu_s,
		st->merge_cpu_s);
	if (notes_len) /* its lines end in newlines; pr_line adds the last */
		pr_line(p, "notes:\n%.*s", (int)(notes_len - (notes[notes_len - 1] == '\n')),
			notes);
	if (r->res.run_id >= 0)
		pr_line(p, "stored as run %lld in '%s'", (long long)r->res.run_id, r->db);
}

/* Starts the command with tracing already on; an exec failure is exit status 127, as in a shell. */
static pid_t spawn(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "schedlens: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* A command's wait status as a shell reports it: its exit code, or 128 + the signal. */
static int child_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* --param KEY=VALUE: a key of letters, digits and _ (a JSON path needs no quoting). */
static int add_param(json_t *params, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char key[64];

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key) ||
	    strspn(kv, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
		    (size_t)(eq - kv))
		return cli_usage_error("record",
				       "invalid --param '%s' (KEY=VALUE, KEY of letters, "
				       "digits and _)",
				       kv);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	/* the last of a repeated key wins, as with any option given twice */
	if (json_object_set_new(params, key, json_string(eq + 1)))
		return cli_usage_error("record", "invalid --param '%s' (not UTF-8)", kv);
	return 0;
}

/* The options: -1 to go on, else the exit status (a bad value, --help). */
static int record_options(int argc, char **argv, double *duration, struct report *rep,
			  struct sl_recorder_opts *opts, enum pr_format *format)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "label", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "no-futex", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "param", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+d:l:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_duration(optarg, duration))
				return EXIT_USAGE;
			break;
		case 'l':
			rep->label = optarg;
			break;
		case 'o':
			rep->db = optarg;
			break;
		case 'b': {
			uint64_t v;

			if (cli_u64("record", "--buffer-kb", optarg, 1, 4 * 1024 * 1024, &v))
				return EXIT_USAGE;
			opts->buffer_kb = v;
			break;
		}
		case 'F':
			opts->no_futex = true;
			break;
		case 'j':
			*format = PR_JSON;
			break;
		case 'c':
			*format = PR_CSV;
			break;
		case 'p':
			if (add_param(rep->params, optarg))
				return EXIT_USAGE;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	return -1;
}

/*
 * Records until the duration is over, the command exits (*child is then -1) or a signal
 * asks us to stop: EXIT_OK, or the status of a failed poll.
 */
static int record_until_done(struct report *rep, struct sl_session *session, double duration,
			     double t0, pid_t *child)
{
	int status, r;

	while (!stop_requested) {
		if (duration > 0 && now_s() - t0 >= duration)
			break;
		if (*child > 0 && waitpid(*child, &status, WNOHANG) == *child) {
			rep->child_status = child_exit_code(status);
			*child = -1;
			break;
		}
		r = sl_recorder_poll(rep->rec, 100);
		if (r < 0)
			return cli_error("recording failed: %s", sl_errmsg(r));
		sl_session_idle(session);
	}
	return EXIT_OK;
}

/*
 * Stops the recorder and the command if it still runs, and closes the run into rep->res
 * (rc->session is NULL after): ret, or the first error if ret was EXIT_OK.
 */
static int finish_recording(struct report *rep, struct record_ctx *rc, struct sl_run_totals *totals,
			    pid_t child, int ret)
{
	int status, r;

	r = sl_recorder_stop(rep->rec);
	if (r < 0 && ret == EXIT_OK)
		ret = cli_error("recording failed: %s", sl_errmsg(r));
	if (child > 0) {
		/* we stop first (duration or signal): the command goes with us */
		kill(child, SIGTERM);
		if (waitpid(child, &status, 0) == child)
			rep->child_status = child_exit_code(status);
	}
	sl_recorder_get_stats(rep->rec, &rep->st);
	totals->end_ns = rep->st.last_ns;
	totals->events = rep->st.events_total;
	totals->lost_events = rep->st.lost;
	totals->gaps = rep->st.lost || rep->st.gaps;
	r = sl_session_close(rc->session, totals, &rep->res);
	rc->session = NULL;
	if (r < 0 && ret == EXIT_OK)
		ret = cli_error("cannot store the run in '%s': %s", rep->db, sl_errmsg(r));
	return ret;
}

/* The recorder's instance, and what it cleaned up of dead schedlens processes. */
static int open_recorder(const struct sl_recorder_opts *opts, struct report *rep, bool machine)
{
	int r = sl_recorder_open(opts, &rep->rec);

	if (r < 0)
		return cli_error("%s", sl_errmsg(r));
	if (!machine && sl_recorder_stale_removed(rep->rec))
		fprintf(stderr,
			"schedlens: removed %d stale instance(s) of dead schedlens processes\n",
			sl_recorder_stale_removed(rep->rec));
	if (sl_recorder_stale_warning(rep->rec)[0])
		fprintf(stderr, "schedlens: warning: %s\n", sl_recorder_stale_warning(rep->rec));
	return EXIT_OK;
}

/* The summary to stdout in format: ret, or a failure when it cannot be written. */
static int report_summary(struct report *rep, enum pr_format format, int ret)
{
	struct pr *p = pr_open(format, 0, stdout);

	if (p)
		print_summary(p, rep);
	if ((!p || pr_close(p) < 0) && ret == EXIT_OK)
		ret = cli_error("cannot write the summary to stdout");
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_ctx rc = { 0 };
	struct sl_recorder_opts opts = { .on_batch = on_batch, .ctx = &rc };
	struct report rep = { .child_status = -1, .res = { .run_id = -1 } };
	char *params_text = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	struct sl_hostinfo *hi = NULL;
	struct sl_topo *topo = NULL;
	struct sl_comm_counts *counts = NULL;
	struct sl_sched_handler counter;
	struct sl_run_totals totals = { 0 };
	struct sl_session_opts sopts;
	double duration = 0, t0;
	enum pr_format format = PR_TEXT;
	pid_t child = -1;
	int r, ret = EXIT_OK;

	rep.params = json_object();
	if (!rep.params)
		return cli_error("out of memory");
	if ((r = record_options(argc, argv, &duration, &rep, &opts, &format)) >= 0) {
		json_decref(rep.params);
		return r;
	}
	if (optind == argc && duration <= 0)
		duration = 10;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if ((r = sl_hostinfo_read(&hi)) < 0) {
		ret = cli_error("%s", sl_errmsg(r));
		goto out_free;
	}
	if ((r = sl_topo_read(NULL, &topo)) < 0)
		fprintf(stderr, "schedlens: warning: %s; placement classes will be unavailable\n",
			sl_errmsg(r));
	counts = sl_comm_counts_new();
	if (!counts) {
		ret = cli_error("out of memory");
		goto out_free;
	}
	if ((ret = open_recorder(&opts, &rep, format != PR_TEXT)) != EXIT_OK)
		goto out_free;
	sl_session_opts_live(&sopts, hi, topo, rep.rec, rep.db, rep.label);
	sopts.page_size = SL_STORE_BULK_PAGE_SIZE; /* a one-shot recording: bulk pages */
	if (json_object_size(rep.params) &&
	    !(sopts.meta.params = params_text = json_dumps(rep.params, JSON_COMPACT))) {
		ret = cli_error("out of memory");
		goto out;
	}
	r = sl_session_open(&sopts, &rc.session);
	if (r < 0) {
		ret = rep.db ? cli_error("cannot store in '%s': %s", rep.db, sl_errmsg(r)) :
			       cli_error("%s", sl_errmsg(r));
		goto out;
	}
	counter = sl_comm_counts_handler(counts);
	sl_session_add_handler(rc.session, &counter);
	r = sl_recorder_start(rep.rec);
	if (r < 0) {
		ret = cli_error("%s", sl_errmsg(r));
		goto out;
	}
	t0 = now_s();
	if (optind < argc) {
		child = spawn(argv + optind);
		if (child < 0) {
			ret = cli_error("cannot fork: %s", strerror(errno));
			goto out;
		}
	}
	ret = record_until_done(&rep, rc.session, duration, t0, &child);
	rep.wall_s = now_s() - t0;
	ret = finish_recording(&rep, &rc, &totals, child, ret);
	rep.comms = sl_comm_counts_sorted(counts, &rep.nr_comms);
	ret = report_summary(&rep, format, ret);
	/* like perf record: the command's failure is ours */
	if (ret == EXIT_OK && rep.child_status > 0)
		ret = rep.child_status;
out:
	if (rc.session) {
		struct sl_session_result discard;

		sl_session_close(rc.session, &totals, &discard);
		sl_session_result_free(&discard);
	}
	r = sl_recorder_close(rep.rec);
	/* e.g. busy: a process the command left holds our instance; the data is whole and a
	 * later recording removes the instance */
	if (r < 0)
		fprintf(stderr, "schedlens: warning: %s\n", sl_errmsg(r));
out_free:
	sl_session_result_free(&rep.res);
	sl_comm_counts_free(counts);
	sl_topo_free(topo);
	sl_hostinfo_free(hi);
	free(params_text);
	json_decref(rep.params);
	return ret;
}
