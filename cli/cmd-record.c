// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens record`: records this host's scheduler events for a duration or while a
 * command runs (like `perf record -- cmd`) and prints a short summary, or one line of
 * JSON with --json. Signal handlers only set a flag; the recorder's own shutdown order
 * (trace off, stop readers, flush, close, destroy the instance) runs on every exit path.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin.h"
#include "error.h"
#include "hostinfo.h"
#include "recorder.h"
#include "store.h"
#include "topo.h"

static const char usage_text[] =
	"schedlens record [-d DURATION] [-l LABEL] [-o DB] [--buffer-kb N] [--json] "
	"[-- COMMAND ARGS...]";

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Per-pid counters, in an open-addressing table keyed by pid. */
struct task_count {
	int32_t pid; /* 0: empty slot */
	char comm[SL_COMM_LEN];
	uint64_t switch_out, wakeup, waking;
};

struct summary {
	struct task_count *tab;
	size_t cap, used;
	int err;
};

static struct task_count *task_slot(struct summary *s, int32_t pid, const char *comm)
{
	size_t i;

	if (pid <= 0)
		return NULL;
	if (s->used * 2 >= s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4096;
		struct task_count *nt = calloc(ncap, sizeof(*nt));

		if (!nt) {
			s->err = -ENOMEM;
			return NULL;
		}
		for (size_t j = 0; j < s->cap; j++) {
			if (!s->tab[j].pid)
				continue;
			for (i = (uint32_t)s->tab[j].pid * 2654435761u & (ncap - 1); nt[i].pid;
			     i = (i + 1) & (ncap - 1))
				;
			nt[i] = s->tab[j];
		}
		free(s->tab);
		s->tab = nt;
		s->cap = ncap;
	}
	for (i = (uint32_t)pid * 2654435761u & (s->cap - 1); s->tab[i].pid;
	     i = (i + 1) & (s->cap - 1))
		if (s->tab[i].pid == pid)
			break;
	if (!s->tab[i].pid) {
		s->tab[i].pid = pid;
		s->used++;
	}
	if (comm && comm[0])
		memcpy(s->tab[i].comm, comm, SL_COMM_LEN);
	return &s->tab[i];
}

static int on_batch(void *ctx, const struct sl_event *ev, size_t n)
{
	struct summary *s = ctx;
	struct task_count *t;

	for (size_t i = 0; i < n; i++) {
		const struct sl_event *e = &ev[i];

		switch (e->type) {
		case SL_EV_SWITCH:
			if ((t = task_slot(s, e->sw.prev_pid, e->sw.prev_comm)))
				t->switch_out++;
			break;
		case SL_EV_WAKEUP:
		case SL_EV_WAKEUP_NEW:
			if ((t = task_slot(s, e->wake.pid, e->wake.comm)))
				t->wakeup++;
			break;
		case SL_EV_WAKING:
			if ((t = task_slot(s, e->wake.pid, e->wake.comm)))
				t->waking++;
			break;
		}
	}
	return s->err;
}

/* Counters summed by a name: the comm of the task's thread-group leader, else its own. */
struct group {
	char name[SL_COMM_LEN];
	uint64_t switch_out, wakeup, waking, tasks;
};

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	uint64_t tx = x->switch_out + x->wakeup, ty = y->switch_out + y->wakeup;

	return tx < ty ? 1 : tx > ty ? -1 : strcmp(x->name, y->name);
}

static size_t make_groups(struct summary *s, struct sl_recorder *rec, bool by_leader,
			  struct group **ret)
{
	struct group *g = calloc(s->used ? s->used : 1, sizeof(*g));
	size_t ng = 0;

	if (!g)
		return 0;
	for (size_t i = 0; i < s->cap; i++) {
		struct task_count *t = &s->tab[i];
		const char *name = t->comm;
		size_t j;

		if (!t->pid)
			continue;
		if (by_leader) {
			int tgid = sl_recorder_tgid(rec, t->pid);
			struct task_count *l = NULL;

			if (tgid > 0 && tgid != t->pid) {
				for (size_t k = (uint32_t)tgid * 2654435761u & (s->cap - 1);
				     s->tab[k].pid; k = (k + 1) & (s->cap - 1))
					if (s->tab[k].pid == tgid) {
						l = &s->tab[k];
						break;
					}
			}
			if (l && l->comm[0])
				name = l->comm;
		}
		for (j = 0; j < ng; j++)
			if (!strncmp(g[j].name, name, SL_COMM_LEN))
				break;
		if (j == ng) {
			memcpy(g[ng].name, name, SL_COMM_LEN);
			g[ng].name[SL_COMM_LEN - 1] = '\0';
			ng++;
		}
		g[j].switch_out += t->switch_out;
		g[j].wakeup += t->wakeup;
		g[j].waking += t->waking;
		g[j].tasks++;
	}
	qsort(g, ng, sizeof(*g), group_cmp);
	*ret = g;
	return ng;
}

static int parse_duration(const char *s, double *ret_s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		*ret_s = v;
	else if (!strcmp(end, "ms"))
		*ret_s = v / 1e3;
	else if (!strcmp(end, "m"))
		*ret_s = v * 60;
	else if (!strcmp(end, "h"))
		*ret_s = v * 3600;
	else
		return -1;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static json_t *groups_json(const struct group *g, size_t n, size_t max)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n && i < max; i++)
		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I, s:I}", "name", g[i].name,
						   "tasks", (json_int_t)g[i].tasks, "switch",
						   (json_int_t)g[i].switch_out, "wakeup",
						   (json_int_t)g[i].wakeup, "waking",
						   (json_int_t)g[i].waking));
	return a;
}

static void print_json(struct sl_recorder *rec, const struct sl_recorder_stats *st, double wall_s,
		       const char *label, int child_status, int64_t run_id, struct group *groups,
		       size_t ng, struct group *comms, size_t nc)
{
	json_t *o = json_object(), *ev = json_object(), *notes = json_array();
	char *text, *nl, *line;
	char *copy = strdup(sl_recorder_notes(rec));

	for (unsigned int t = 1; t < SL_EV_TYPE_MAX; t++)
		json_object_set_new(ev, sl_event_type_name(t), json_integer(st->events[t]));
	for (line = copy; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (*line)
			json_array_append_new(notes, json_string(line));
	}
	free(copy);
	json_object_set_new(o, "label", json_string(label ? label : ""));
	json_object_set_new(o, "clock", json_string(sl_recorder_clock(rec)));
	json_object_set_new(o, "instance", json_string(sl_recorder_instance(rec)));
	json_object_set_new(o, "stale_removed", json_integer(sl_recorder_stale_removed(rec)));
	json_object_set_new(o, "cpus", json_integer(st->nr_cpus));
	json_object_set_new(o, "readers", json_integer(st->nr_readers));
	json_object_set_new(o, "duration_s", json_real(wall_s));
	json_object_set_new(o, "events_total", json_integer(st->events_total));
	json_object_set_new(o, "events", ev);
	json_object_set_new(o, "wakeups", json_integer(st->events[SL_EV_WAKEUP]));
	json_object_set_new(o, "lost", json_integer(st->lost));
	json_object_set_new(o, "gaps", json_integer(st->gaps));
	json_object_set_new(o, "has_gaps", json_boolean(st->lost || st->gaps));
	json_object_set_new(o, "late", json_integer(st->late));
	json_object_set_new(o, "pages", json_integer(st->pages));
	json_object_set_new(o, "bytes", json_integer(st->bytes));
	json_object_set_new(o, "first_ns", json_integer(st->first_ns));
	json_object_set_new(o, "last_ns", json_integer(st->last_ns));
	json_object_set_new(o, "reader_cpu_s", json_real(st->reader_cpu_s));
	json_object_set_new(o, "merge_cpu_s", json_real(st->merge_cpu_s));
	if (child_status >= 0)
		json_object_set_new(o, "command_status", json_integer(child_status));
	if (run_id >= 0)
		json_object_set_new(o, "run_id", json_integer(run_id));
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "groups", groups_json(groups, ng, 10));
	json_object_set_new(o, "comms", groups_json(comms, nc, 50));
	text = json_dumps(o, JSON_COMPACT);
	if (text)
		puts(text);
	free(text);
	json_decref(o);
}

static void print_text(struct sl_recorder *rec, const struct sl_recorder_stats *st, double wall_s,
		       struct group *groups, size_t ng)
{
	double span = st->last_ns > st->first_ns ? (st->last_ns - st->first_ns) / 1e9 : 0;

	printf("recorded %.1f s on %d CPUs (clock %s): %llu events", wall_s, st->nr_cpus,
	       sl_recorder_clock(rec), (unsigned long long)st->events_total);
	if (span > 0)
		printf(", %.0f/s", st->events_total / span);
	printf("\n  ");
	for (unsigned int t = 1; t < SL_EV_TYPE_MAX; t++)
		if (t != SL_EV_LOST)
			printf("%s %llu  ", sl_event_type_name(t),
			       (unsigned long long)st->events[t]);
	printf("\n  lost %llu in %llu gaps%s\n", (unsigned long long)st->lost,
	       (unsigned long long)st->gaps, st->lost || st->gaps ? " (run has gaps)" : "");
	printf("  recorder CPU: readers %.2f s, merge+summary %.2f s\n", st->reader_cpu_s,
	       st->merge_cpu_s);
	if (ng) {
		printf("  top groups:           switches    wakeups  tasks\n");
		for (size_t i = 0; i < ng && i < 5; i++)
			printf("    %-16s %12llu %10llu %6llu\n", groups[i].name,
			       (unsigned long long)groups[i].switch_out,
			       (unsigned long long)groups[i].wakeup,
			       (unsigned long long)groups[i].tasks);
	}
	if (sl_recorder_notes(rec)[0])
		printf("notes:\n%s", sl_recorder_notes(rec));
}

/* Stores the run row: host (with topology), metadata, clock, totals and the gaps flag. */
static int store_run(const char *path, struct sl_recorder *rec, const struct sl_recorder_stats *st,
		     const char *label, uint64_t start_wall_ns, uint64_t start_ns, int64_t *ret_id)
{
	struct sl_hostinfo *hi = NULL;
	struct sl_topo *topo = NULL;
	struct sl_store *store = NULL;
	struct sl_cpu_row *rows = NULL;
	char hash[17], *tjson = NULL;
	int64_t host_id;
	int r;

	if ((r = sl_hostinfo_read(&hi)) < 0)
		return r;
	if ((r = sl_topo_read(NULL, &topo)) < 0)
		goto out;
	rows = calloc(topo->nr_cpus, sizeof(*rows));
	if (!rows) {
		r = -ENOMEM;
		goto out;
	}
	for (int c = 0; c < topo->nr_cpus; c++) {
		rows[c].cpu = c;
		rows[c].online = topo->cpus[c].online;
		rows[c].core = topo->cpus[c].core;
		rows[c].llc = topo->cpus[c].llc;
		rows[c].package = topo->cpus[c].package;
		rows[c].node = topo->cpus[c].node;
	}
	tjson = sl_topo_to_json(topo);
	if ((r = sl_store_open(path, SL_STORE_CREATE, &store)) < 0)
		goto out;
	{
		struct sl_host_info host = {
			.hostname = hi->hostname ? hi->hostname : "unknown",
			.machine_id = hi->machine_id,
			.topo_hash = sl_topo_hash_str(topo, hash),
			.topo_json = tjson,
			.nr_cpus = topo->nr_cpus,
			.cpus = rows,
			.nr_cpu_rows = topo->nr_cpus,
		};
		struct sl_run_meta meta = {
			.kernel_release = hi->kernel_release ? hi->kernel_release : "unknown",
			.kernel_version = hi->kernel_version,
			.cmdline = hi->cmdline,
			.boot_id = hi->boot_id,
			.preempt_mode = hi->preempt_mode,
			.sched_features = hi->sched_features,
			.sched_sysctls = hi->sched_sysctls,
			.workload = label ? label : "",
			.source = "live",
			.trace_clock = sl_recorder_clock(rec),
			.nr_cpus = st->nr_cpus,
			.start_wall_ns = start_wall_ns,
			.start_ns = st->first_ns ? st->first_ns : start_ns,
		};
		struct sl_run_totals tot = {
			.end_ns = st->last_ns ? st->last_ns : start_ns,
			.events = st->events_total,
			.lost_events = st->lost,
			.gaps = st->lost || st->gaps,
		};

		if ((r = sl_store_host_upsert(store, &host, &host_id)) < 0)
			goto out;
		meta.host_id = host_id;
		if ((r = sl_store_run_begin(store, &meta, ret_id)) < 0)
			goto out;
		r = sl_store_run_end(store, *ret_id, &tot);
	}
out:
	sl_store_close(store);
	free(tjson);
	free(rows);
	sl_topo_free(topo);
	sl_hostinfo_free(hi);
	return r;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Starts the command with tracing already on; a pipe tells us exec failed. */
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

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "label", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sl_recorder_opts opts = { .on_batch = on_batch };
	struct summary sum = { 0 };
	struct sl_recorder *rec = NULL;
	struct sl_recorder_stats st;
	struct sigaction sa = { .sa_handler = on_signal };
	struct group *groups = NULL, *comms = NULL;
	size_t ng = 0, nc = 0;
	const char *label = NULL, *db = NULL;
	double duration = 0, t0, wall;
	uint64_t start_wall = 0, start_ns = 0;
	int64_t run_id = -1;
	bool json = false;
	pid_t child = -1;
	int child_status = -1, status, c, r, ret = EXIT_OK;

	while ((c = getopt_long(argc, argv, "+d:l:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_duration(optarg, &duration) < 0)
				return cli_error("bad duration '%s' (e.g. 5, 500ms, 2m)", optarg);
			break;
		case 'l':
			label = optarg;
			break;
		case 'o':
			db = optarg;
			break;
		case 'b': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !v || v > 4 * 1024 * 1024)
				return cli_error("bad --buffer-kb '%s' (1..4194304)", optarg);
			opts.buffer_kb = v;
			break;
		}
		case 'j':
			json = true;
			break;
		case 'h':
			printf("usage: %s\n", usage_text);
			return EXIT_OK;
		default:
			return cli_usage(usage_text);
		}
	}
	if (optind == argc && duration <= 0)
		duration = 10;
	opts.ctx = &sum;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	r = sl_recorder_open(&opts, &rec);
	if (r < 0)
		return cli_error("%s", sl_errmsg(r));
	if (!json && sl_recorder_stale_removed(rec))
		fprintf(stderr,
			"schedlens: removed %d stale instance(s) of dead schedlens processes\n",
			sl_recorder_stale_removed(rec));
	r = sl_recorder_start(rec);
	if (r < 0) {
		ret = cli_error("%s", sl_errmsg(r));
		goto out;
	}
	t0 = now_s();
	start_wall = wall_ns();
	start_ns = sl_recorder_now_ns(rec);
	if (optind < argc) {
		child = spawn(argv + optind);
		if (child < 0) {
			ret = cli_error("cannot fork: %s", strerror(errno));
			goto out;
		}
	}
	while (!stop_requested) {
		if (duration > 0 && now_s() - t0 >= duration)
			break;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child_status = WIFEXITED(status) ? WEXITSTATUS(status) :
							   128 + WTERMSIG(status);
			child = -1;
			break;
		}
		r = sl_recorder_poll(rec, 100);
		if (r < 0) {
			ret = cli_error("recording failed: %s", sl_errmsg(r));
			break;
		}
	}
	wall = now_s() - t0;
	r = sl_recorder_stop(rec);
	if (r < 0 && ret == EXIT_OK)
		ret = cli_error("recording failed: %s", sl_errmsg(r));
	if (child > 0) {
		/* we stop first (duration or signal): the command goes with us */
		kill(child, SIGTERM);
		if (waitpid(child, &status, 0) == child)
			child_status = WIFEXITED(status) ? WEXITSTATUS(status) :
							   128 + WTERMSIG(status);
	}
	sl_recorder_get_stats(rec, &st);
	if (db && ret == EXIT_OK) {
		r = store_run(db, rec, &st, label, start_wall, start_ns, &run_id);
		if (r < 0)
			ret = cli_error("cannot store the run in '%s': %s", db, sl_errmsg(r));
	}
	ng = make_groups(&sum, rec, true, &groups);
	nc = make_groups(&sum, rec, false, &comms);
	if (json)
		print_json(rec, &st, wall, label, child_status, run_id, groups, ng, comms, nc);
	else
		print_text(rec, &st, wall, groups, ng);
	if (!json && run_id >= 0)
		printf("stored as run %lld in '%s'\n", (long long)run_id, db);
	/* like perf record: the command's failure is ours */
	if (ret == EXIT_OK && child_status > 0)
		ret = child_status;
out:
	r = sl_recorder_close(rec);
	if (r < 0)
		ret = cli_error("%s", sl_errmsg(r));
	free(groups);
	free(comms);
	free(sum.tab);
	return ret;
}
