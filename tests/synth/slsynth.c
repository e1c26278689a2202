// SPDX-License-Identifier: GPL-2.0-only
/*
 * slsynth: runs the trace synthesizer on a topology fixture and prints the run's truth
 * (transactions, placements, preemptions, lock-holder preemptions), and with --text the
 * event stream as /sys/kernel/tracing/trace text, for importer tests and by-eye checks.
 * With --db the run is analysed and stored like a recording (labelled, with a made-up
 * kernel release), so `schedlens diff` can compare synthetic kernels.
 *
 * --topology takes any shape tests/fixtures/mksysfs knows: a named machine or SxCxT
 * (sockets x cores x threads, e.g. 4x24x2 for 192 CPUs, 8x64x2 for 1024).
 *
 *   slsynth --topology westmere|epyc|guest16|SxCxT | --sysfs DIR  --policy buddy|llc-scan
 *           [--seed N] [--duration S] [--clients N] [--backends N] [--locks N]
 *           [--no-wakeup-preempt] [--min-gran-us N] [--text [--usec]] [--lhp]
 *           [--db FILE [--kernel K] [--label L] [--host H] [--window-ms N] [--windows-only]
 *            [--params JSON] [--preempt-mode M]]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "synth-db.h"
#include "synth.h"

struct text_out {
	bool usec;
	char (*comm)[SL_COMM_LEN]; /* indexed by pid */
	int nr_comm;
};

static void remember(struct text_out *o, int pid, const char *comm)
{
	if (pid <= 0)
		return;
	if (pid >= o->nr_comm) {
		int n = pid * 2 + 1024;
		void *p = realloc(o->comm, sizeof(*o->comm) * n);

		if (!p)
			return;
		o->comm = p;
		memset(o->comm + o->nr_comm, 0, sizeof(*o->comm) * (n - o->nr_comm));
		o->nr_comm = n;
	}
	memcpy(o->comm[pid], comm, SL_COMM_LEN);
	o->comm[pid][SL_COMM_LEN - 1] = 0;
}

static int print_text(void *ctx, const struct sl_event *ev)
{
	struct text_out *o = ctx;
	char line[512];
	const char *comm;

	if (ev->type == SL_EV_SWITCH) {
		remember(o, ev->sw.prev_pid, ev->sw.prev_comm);
		remember(o, ev->sw.next_pid, ev->sw.next_comm);
	}
	comm = ev->common_pid > 0 && ev->common_pid < o->nr_comm ? o->comm[ev->common_pid] : NULL;
	synth_format_text(ev, comm, !o->usec, line, sizeof(line));
	return fputs(line, stdout) < 0 ? -EIO : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: slsynth --topology westmere|epyc|guest16|SxCxT | --sysfs DIR\n"
		"               --policy buddy|llc-scan [--seed N] [--duration S] [--clients N]\n"
		"               [--backends N] [--locks N] [--no-wakeup-preempt]\n"
		"               [--min-gran-us N] [--text [--usec]] [--lhp] [--set KNOB=V ...]\n"
		"               [--db FILE [--kernel K] [--label L] [--host H] [--window-ms N]\n"
		"                [--windows-only] [--params JSON] [--preempt-mode M]]\n"
		"knobs (times in us): client-us dispatch-us work-before-us lock-hold-us\n"
		"  work-after-us wake-tail-us min-gran-us wakeup-gran-us slice-us tick-us ipi-us lock-pct\n"
		"  spin-us preempt-kernel-pct idle-pull spin-locks (0|1)\n");
}

/* Generates the named fixture with tests/fixtures/mksysfs under a fresh temporary dir. */
static int make_fixture(const char *shape, char *dir, size_t size)
{
	const char *src = getenv("SL_SRC"), *tmp = getenv("TMPDIR");
	char cmd[2048];

	snprintf(dir, size, "%s/slsynth.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -errno;
	snprintf(cmd, sizeof(cmd), "'%s/tests/fixtures/mksysfs' '%s' '%s'", src ? src : ".", shape,
		 dir);
	return system(cmd) == 0 ? 0 : -SL_EUSAGE;
}

static void print_truth(FILE *f, const struct synth_config *cfg, const struct synth_truth *t,
			double secs, bool lhp)
{
	double w = t->wakeups ? (double)t->wakeups : 1, d = (double)cfg->duration_ns / 1e9;

	fprintf(f,
		"policy %s seed %" PRIu64 " duration %.3f s cpus %d clients %d backends %d "
		"locks %d\n",
		synth_policy_name(cfg->policy), cfg->seed, d, cfg->topo->nr_online, cfg->clients,
		cfg->backends, cfg->locks);
	fprintf(f, "events %" PRIu64 " (%.0f/s simulated) in %.3f s real\n", t->events,
		(double)t->events / d, secs);
	fprintf(f, "transactions %" PRIu64 " (%.0f tps)\n", t->transactions,
		(double)t->transactions / d);
	fprintf(f,
		"wakeups %" PRIu64 ": idle target %.1f%%, claimed %.1f%%, busy %.1f%%; "
		"missed_idle %.1f%%, missed idle core %.1f%%; migrations %" PRIu64
		", idle pulls %" PRIu64 "\n",
		t->wakeups, 100 * t->wakeups_idle / w, 100 * t->wakeups_claimed / w,
		100 * t->wakeups_busy / w, 100 * t->wakeups_missed_idle / w,
		100 * t->wakeups_missed_core / w, t->migrations, t->idle_pulls);
	fprintf(f,
		"preemptions %" PRIu64 " (wakeup %" PRIu64 ", tick %" PRIu64
		"), same group %" PRIu64 ", of the dispatcher %" PRIu64
		", of a lock holder %" PRIu64 " (%" PRIu64 " with nobody waiting)\n",
		t->preemptions, t->preempt_wakeup, t->preempt_tick, t->preempt_same_group,
		t->preempt_hub, t->preempt_holder, t->preempt_holder_idle);
	fprintf(f, "lock acquires %" PRIu64 ", waits %" PRIu64 " (%.1f%%), mean wait %.1f us\n",
		t->lock_acquires, t->lock_waits,
		t->lock_acquires ? 100.0 * t->lock_waits / t->lock_acquires : 0,
		t->lock_waits ? t->lock_wait_ns / 1e3 / t->lock_waits : 0);

	uint64_t waiters = 0;

	for (size_t i = 0; i < t->nr_lhp; i++)
		waiters += t->lhp[i].nr_waiters;
	fprintf(f,
		"LHP with waiters %zu (%.1f/s), waiters per LHP %.2f, cost %.3f ms (%.1f us per "
		"LHP)\n",
		t->nr_lhp, t->nr_lhp / d, t->nr_lhp ? (double)waiters / t->nr_lhp : 0,
		t->lhp_cost_ns / 1e6, t->nr_lhp ? t->lhp_cost_ns / 1e3 / t->nr_lhp : 0);
	for (size_t i = 0; lhp && i < t->nr_lhp; i++) {
		const struct synth_lhp *r = &t->lhp[i];

		fprintf(f,
			"  lhp cpu %3d t0 %" PRIu64 " t1 %" PRIu64 " victim %d preemptor %d %s%s "
			"waiters %d first %d cost %" PRIu64 " ns\n",
			r->cpu, r->t0_ns, r->t1_ns, r->victim_pid, r->preemptor_pid,
			r->tick ? "tick" : "wakeup", r->censored ? " censored" : "", r->nr_waiters,
			r->first_waiter_pid, r->cost_ns);
	}
}

/* --set knob=value for the workload and scheduler knobs; times in microseconds */
static int set_knob(struct synth_config *cfg, const char *arg)
{
	static const struct {
		const char *name;
		size_t off;
	} us[] = {
		{ "client-us", offsetof(struct synth_config, client_ns) },
		{ "dispatch-us", offsetof(struct synth_config, dispatch_ns) },
		{ "work-before-us", offsetof(struct synth_config, work_before_ns) },
		{ "lock-hold-us", offsetof(struct synth_config, lock_hold_ns) },
		{ "work-after-us", offsetof(struct synth_config, work_after_ns) },
		{ "wake-tail-us", offsetof(struct synth_config, wake_tail_ns) },
		{ "min-gran-us", offsetof(struct synth_config, min_gran_ns) },
		{ "wakeup-gran-us", offsetof(struct synth_config, wakeup_gran_ns) },
		{ "slice-us", offsetof(struct synth_config, slice_ns) },
		{ "tick-us", offsetof(struct synth_config, tick_ns) },
		{ "ipi-us", offsetof(struct synth_config, ipi_ns) },
		{ "spin-us", offsetof(struct synth_config, spin_ns) },
	};
	const char *eq = strchr(arg, '=');
	double v;

	if (!eq)
		return -1;
	v = atof(eq + 1);
	for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++)
		if (strlen(us[i].name) == (size_t)(eq - arg) &&
		    !strncmp(arg, us[i].name, eq - arg)) {
			*(uint64_t *)((char *)cfg + us[i].off) = (uint64_t)(v * 1000);
			return 0;
		}
	if (!strncmp(arg, "lock-pct=", 9))
		cfg->lock_pct = (int)v;
	else if (!strncmp(arg, "preempt-kernel-pct=", 19))
		cfg->preempt_kernel_pct = (int)v;
	else if (!strncmp(arg, "idle-pull=", 10))
		cfg->idle_pull = v != 0;
	else if (!strncmp(arg, "spin-locks=", 11))
		cfg->spin_locks = v != 0;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "topology", required_argument, NULL, 't' },
					      { "sysfs", required_argument, NULL, 's' },
					      { "policy", required_argument, NULL, 'p' },
					      { "seed", required_argument, NULL, 'S' },
					      { "duration", required_argument, NULL, 'd' },
					      { "clients", required_argument, NULL, 'c' },
					      { "backends", required_argument, NULL, 'b' },
					      { "locks", required_argument, NULL, 'l' },
					      { "min-gran-us", required_argument, NULL, 'g' },
					      { "no-wakeup-preempt", no_argument, NULL, 'W' },
					      { "text", no_argument, NULL, 'T' },
					      { "usec", no_argument, NULL, 'u' },
					      { "lhp", no_argument, NULL, 'L' },
					      { "set", required_argument, NULL, 'X' },
					      { "db", required_argument, NULL, 'D' },
					      { "kernel", required_argument, NULL, 'K' },
					      { "label", required_argument, NULL, 'B' },
					      { "host", required_argument, NULL, 'N' },
					      { "window-ms", required_argument, NULL, 'w' },
					      { "windows-only", no_argument, NULL, 'O' },
					      { "params", required_argument, NULL, 'J' },
					      { "preempt-mode", required_argument, NULL, 'M' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	const char *shape = NULL, *sysfs = NULL;
	char dir[512] = "", cmd[1100];
	struct text_out out = {};
	struct synth_config cfg;
	struct synth_truth truth = {};
	struct sl_topo *topo = NULL;
	int policy = -1, clients = 0, backends = 0, locks = 0, min_gran = -1, opt, err;
	bool text = false, lhp = false, no_preempt = false;
	double duration = 2, secs;
	uint64_t seed = 1;
	struct timespec a, b;
	const char *sets[16];
	int nr_sets = 0;
	struct synth_db_opts dbo = { 0 };
	int64_t run_id = -1;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			shape = optarg;
			break;
		case 's':
			sysfs = optarg;
			break;
		case 'p':
			policy = synth_policy_parse(optarg);
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'c':
			clients = atoi(optarg);
			break;
		case 'b':
			backends = atoi(optarg);
			break;
		case 'l':
			locks = atoi(optarg);
			break;
		case 'g':
			min_gran = atoi(optarg);
			break;
		case 'W':
			no_preempt = true;
			break;
		case 'T':
			text = true;
			break;
		case 'u':
			out.usec = true;
			break;
		case 'L':
			lhp = true;
			break;
		case 'X':
			if (nr_sets < 16)
				sets[nr_sets++] = optarg;
			break;
		case 'D':
			dbo.db_path = optarg;
			break;
		case 'K':
			dbo.kernel_release = optarg;
			break;
		case 'B':
			dbo.workload = optarg;
			break;
		case 'N':
			dbo.hostname = optarg;
			break;
		case 'w':
			dbo.window_ns = (uint64_t)(atof(optarg) * 1e6);
			break;
		case 'O':
			dbo.windows_only = true;
			break;
		case 'J':
			dbo.params = optarg;
			break;
		case 'M':
			dbo.preempt_mode = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if ((!shape == !sysfs) || policy < 0 || duration <= 0 || duration > 3600 ||
	    (dbo.db_path && text)) {
		usage(stderr);
		return 2;
	}
	if (shape) {
		err = make_fixture(shape, dir, sizeof(dir));
		if (err) {
			fprintf(stderr, "slsynth: cannot generate fixture '%s'\n", shape);
			return 1;
		}
		sysfs = dir;
	}
	err = sl_topo_read(sysfs, &topo);
	if (*dir) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "slsynth: cannot remove '%s'\n", dir);
	}
	if (err) {
		fprintf(stderr, "slsynth: %s\n", sl_errmsg(err));
		return 1;
	}

	synth_config_default(&cfg, topo);
	cfg.policy = policy;
	cfg.seed = seed;
	cfg.duration_ns = (uint64_t)(duration * 1e9);
	if (clients > 0)
		cfg.clients = cfg.backends = clients;
	if (backends > 0)
		cfg.backends = backends;
	if (locks > 0)
		cfg.locks = locks;
	if (min_gran >= 0)
		cfg.min_gran_ns = (uint64_t)min_gran * 1000;
	cfg.wakeup_preempt = !no_preempt;
	for (int i = 0; i < nr_sets; i++)
		if (set_knob(&cfg, sets[i])) {
			fprintf(stderr, "slsynth: unknown knob '%s'\n", sets[i]);
			sl_topo_free(topo);
			return 2;
		}

	if (text) {
		char hdr[1024];

		synth_format_header(topo->nr_online, hdr, sizeof(hdr));
		fputs(hdr, stdout);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (dbo.db_path)
		err = synth_to_db(&cfg, &dbo, &run_id, &truth);
	else
		err = synth_run(&cfg, text ? print_text : NULL, &out, &truth);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	free(out.comm);
	if (err) {
		fprintf(stderr, "slsynth: run failed: %s\n",
			dbo.db_path ? sl_errmsg(err) : strerror(err < 0 ? -err : err));
		sl_topo_free(topo);
		return 1;
	}
	/* with --text the stream owns stdout: the summary goes to stderr */
	print_truth(text ? stderr : stdout, &cfg, &truth, secs, lhp);
	if (dbo.db_path)
		printf("stored run %" PRId64 " in '%s'\n", run_id, dbo.db_path);
	synth_truth_free(&truth);
	sl_topo_free(topo);
	return 0;
}
