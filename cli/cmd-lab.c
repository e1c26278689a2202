// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlens lab: kernel experiments in a QEMU guest (docs/lab.md).
 *
 *   lab run|fetch ...  the lab's scripts (run boots a kernel and records a workload,
 *                      fetch downloads a kernel), started with this binary as the
 *                      schedlens that goes into the guest
 *   lab ab A B WORKLOAD  runs A and B interleaved (A B B A A B ...) and compares after
 *                      every pair until each primary metric is flagged or equivalent, or
 *                      the budget is spent
 *
 * Repeated looks: after pair k of at most K (--max-runs) the comparison runs at alpha/K
 * and with intervals at the 1 - 0.05/K level. By the union bound, the chance that any
 * look flags a change that is not there stays below alpha, and the chance that any look
 * calls a real change of the margin's size equivalent below 0.05/2, whatever the number
 * of looks actually taken (Bonferroni alpha spending; docs/lab.md has the error rates
 * measured on A/A experiments). The scripts live in the source tree's tests/lab (found
 * beside the build directory) or where `make install` put them; SL_LAB_DIR overrides.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "builtin.h"
#include "compare.h"
#include "error.h"
#include "labdir.h"
#include "store.h"

static const char usage_text[] =
	"schedlens lab run KERNEL WORKLOAD [options]   (schedlens lab run --help)\n"
	"       schedlens lab fetch KERNEL\n"
	"       schedlens lab ab A B WORKLOAD [-o DB] [-l LABEL] [--max-runs N]\n"
	"            [--max-minutes M] [--alpha A] [-g GROUP]... [--json] [run options]\n"
	"  KERNEL: 6.1, 6.12, 7.x, a release (7.2.13+deb14-cloud-amd64) or a bzImage path\n"
	"  A, B: KERNEL[:FEATURE,...][@PREEMPT], e.g. 6.1 and 6.1:NO_WAKEUP_PREEMPTION\n"
	"  run options passed on: -d SECONDS -c N -j N -L LOOPS --mode M --topology SxCxT\n"
	"            --sysctl N=V --append ARGS";

#define MAX_RUNS 64
#define MAX_GROUPS 16

/* One side of an A/B experiment: what `lab run` is given. */
struct lab_side {
	char kernel[PATH_MAX];
	char features[512]; /* comma-separated, "" for the kernel's defaults */
	char preempt[32]; /* "" for the kernel's default */
	int64_t runs[MAX_RUNS];
	int nr_runs;
};

struct lab_ab {
	const char *db, *label, *workload;
	int max_runs; /* per side, and the number of looks the alpha is spent over */
	double max_minutes;
	double alpha;
	const char *groups[MAX_GROUPS];
	int nr_groups;
	bool json;
	char *pass[64]; /* run options passed on to every `lab run` */
	int nr_pass;
	struct lab_side side[2];
};

/* The directory of the lab scripts: SL_LAB_DIR, the source tree's, or the installed one. */
static const char *lab_dir(void)
{
	static char dir[PATH_MAX + 16];
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	const char *env = getenv("SL_LAB_DIR");
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		snprintf(dir, sizeof(dir), "%s/../tests/lab", exe);
		snprintf(probe, sizeof(probe), "%s/run", dir);
		if (!access(probe, X_OK))
			return dir;
	}
	return SL_LABDIR;
}

/* The guest gets this very binary: the scripts' mkimage reads SL_SCHEDLENS. */
static void export_self(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = 0;
		setenv("SL_SCHEDLENS", exe, 1);
	}
}

static int exec_script(const char *name, int argc, char **argv)
{
	char path[PATH_MAX + 32];
	char **args = calloc((size_t)argc + 2, sizeof(*args));

	if (!args)
		return cli_error("out of memory");
	snprintf(path, sizeof(path), "%s/%s", lab_dir(), name);
	args[0] = path;
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	export_self();
	execv(path, args);
	cli_error("cannot run %s: %s (SL_LAB_DIR names the lab's scripts)", path, strerror(errno));
	free(args);
	return EXIT_FAIL;
}

/* "KERNEL[:FEATURE,...][@PREEMPT]" */
static int parse_side(const char *spec, struct lab_side *s)
{
	char buf[PATH_MAX];
	char *at, *colon;

	if (strlen(spec) >= sizeof(buf) || !*spec)
		return cli_usage_error("lab", "bad side '%s'", spec);
	strcpy(buf, spec);
	at = strrchr(buf, '@');
	if (at) {
		*at = 0;
		snprintf(s->preempt, sizeof(s->preempt), "%s", at + 1);
	}
	colon = strrchr(buf, ':');
	if (colon) {
		*colon = 0;
		snprintf(s->features, sizeof(s->features), "%s", colon + 1);
	}
	snprintf(s->kernel, sizeof(s->kernel), "%s", buf);
	if (!*s->kernel || (at && !*s->preempt) || (colon && !*s->features))
		return cli_usage_error("lab", "bad side '%s' (KERNEL[:FEATURE,...][@PREEMPT])",
				       spec);
	return 0;
}

static const char *side_name(const struct lab_side *s, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s", s->kernel, *s->features ? ":" : "", s->features,
		 *s->preempt ? "@" : "", s->preempt);
	return buf;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The newest run's id in the database, -1 if none or on error. */
static int64_t newest_run(const char *db)
{
	struct sl_store *st;
	json_t *runs = NULL;
	int64_t id = -1;

	if (sl_store_open(db, SL_STORE_RDONLY, &st))
		return -1;
	if (!sl_api_runs(st, 1, &runs)) {
		json_t *newest = json_array_get(json_object_get(runs, "runs"), 0);

		if (newest)
			id = json_integer_value(json_object_get(newest, "id"));
	}
	json_decref(runs);
	sl_store_close(st);
	return id;
}

/* One `lab run` of a side; a failed run is tried once more (the log says why). */
static int run_side(struct lab_ab *ab, struct lab_side *s)
{
	char path[PATH_MAX + 32];
	char *argv[96];
	int argc = 0, status = 0;
	int64_t before = newest_run(ab->db), after;

	snprintf(path, sizeof(path), "%s/run", lab_dir());
	argv[argc++] = path;
	argv[argc++] = s->kernel;
	argv[argc++] = (char *)ab->workload;
	argv[argc++] = "-o";
	argv[argc++] = (char *)ab->db;
	argv[argc++] = "-l";
	argv[argc++] = (char *)ab->label;
	if (*s->features) {
		argv[argc++] = "--features";
		argv[argc++] = s->features;
	}
	if (*s->preempt) {
		argv[argc++] = "--preempt";
		argv[argc++] = s->preempt;
	}
	for (int i = 0; i < ab->nr_pass; i++)
		argv[argc++] = ab->pass[i];
	argv[argc] = NULL;
	for (int attempt = 1; attempt <= 2; attempt++) {
		pid_t pid = fork();

		if (pid < 0)
			return cli_error("fork: %s", strerror(errno));
		if (!pid) {
			/* stdout is the report's (--json): the run's chatter goes to stderr */
			dup2(STDERR_FILENO, STDOUT_FILENO);
			execv(path, argv);
			fprintf(stderr, "schedlens lab: cannot run %s: %s\n", path,
				strerror(errno));
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			break;
		fprintf(stderr, "schedlens lab: run of %s failed (status %d)%s\n", s->kernel,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			attempt == 1 ? ", trying once more" : "");
		if (attempt == 2 || (WIFEXITED(status) && WEXITSTATUS(status) == 127))
			return EXIT_FAIL;
	}
	after = newest_run(ab->db);
	if (after <= before)
		return cli_error("lab run of %s stored no run in %s", s->kernel, ab->db);
	s->runs[s->nr_runs++] = after;
	return 0;
}

/* The comparison of everything run so far: one of at most max_runs looks. */
static int look(const struct lab_ab *ab, bool store, struct sl_comparison **ret)
{
	struct sl_compare_opts o;
	struct sl_store *st;
	int err;

	sl_compare_opts_default(&o);
	o.baseline_runs = ab->side[0].runs;
	o.nr_baseline_runs = ab->side[0].nr_runs;
	o.candidate_runs = ab->side[1].runs;
	o.nr_candidate_runs = ab->side[1].nr_runs;
	o.label = ab->label;
	o.groups = ab->nr_groups ? ab->groups : NULL;
	o.nr_groups = ab->nr_groups;
	o.alpha = ab->alpha;
	sl_compare_spend(&o, ab->max_runs);
	o.store = store;
	if ((err = sl_store_open(ab->db, store ? 0 : SL_STORE_RDONLY, &st)))
		return cli_error("%s: %s", ab->db, sl_errmsg(err));
	err = sl_compare(st, &o, ret);
	sl_store_close(st);
	if (err)
		return cli_error("comparison: %s", sl_errmsg(err));
	return 0;
}

static int ab_loop(struct lab_ab *ab, json_t *looks)
{
	double t0 = now_s(), pair_s = 0;
	char a[PATH_MAX + 600], b[PATH_MAX + 600];

	fprintf(stderr,
		"lab ab: A = %s, B = %s, %s, at most %d runs a side and %g min; "
		"each look at alpha %.3g, %.3g%% intervals\n",
		side_name(&ab->side[0], a, sizeof(a)), side_name(&ab->side[1], b, sizeof(b)),
		ab->workload, ab->max_runs, ab->max_minutes, ab->alpha / ab->max_runs,
		100 * (1 - 0.05 / ab->max_runs));
	for (int k = 0; k < ab->max_runs; k++) {
		double p0 = now_s();
		struct sl_comparison *c = NULL;
		enum sl_seq_next next;
		int err, open;

		/* A B, then B A: drift over the experiment hits both sides alike */
		for (int i = 0; i < 2; i++)
			if ((err = run_side(ab, &ab->side[k % 2 ? 1 - i : i])))
				return err;
		pair_s = now_s() - p0;
		if ((err = look(ab, false, &c)))
			return err;
		open = sl_comparison_open(c);
		next = sl_compare_next(c, ab->side[0].nr_runs, ab->max_runs);
		fprintf(stderr,
			"lab ab: look %d (%d vs %d runs, %.0f min): %s, %d primary "
			"metric%s still open\n",
			k + 1, ab->side[0].nr_runs, ab->side[1].nr_runs, (now_s() - t0) / 60,
			sl_verdict_name(c->verdict), open, open == 1 ? "" : "s");
		json_array_append_new(looks,
				      json_pack("{s:i, s:i, s:s, s:i, s:f}", "look", k + 1,
						"runs_a_side", ab->side[0].nr_runs, "verdict",
						sl_verdict_name(c->verdict), "open_primary", open,
						"minutes", (now_s() - t0) / 60));
		sl_comparison_free(c);
		if (next == SL_SEQ_MORE && (now_s() - t0 + pair_s) / 60 > ab->max_minutes) {
			fprintf(stderr,
				"lab ab: stopped: another pair would pass --max-minutes %g\n",
				ab->max_minutes);
			return 0;
		}
		if (next != SL_SEQ_MORE) {
			fprintf(stderr, "lab ab: stopped: %s\n", sl_seq_next_name(next));
			return 0;
		}
	}
	return 0;
}

static int ab_report(const struct lab_ab *ab, json_t *looks)
{
	struct sl_comparison *c = NULL;
	char id[32];
	int err, status;

	if ((err = look(ab, true, &c)))
		return err;
	status = c->verdict == SL_V_REGRESSION	 ? EXIT_FAIL :
		 c->verdict == SL_V_INCONCLUSIVE ? EXIT_INCONCLUSIVE :
		 c->verdict == SL_V_INSUFFICIENT ? EXIT_USAGE :
						   EXIT_OK;
	if (ab->json) {
		json_t *o = json_pack("{s:o, s:o}", "looks", json_incref(looks), "comparison",
				      sl_comparison_to_json(c));

		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else {
		char *argv[] = { "findings", "--db", (char *)ab->db, id, NULL };

		printf("lab ab: %d looks; verdict %s (comparison %lld, schedlens findings %lld "
		       "--all)\n",
		       (int)json_array_size(looks), sl_verdict_name(c->verdict), (long long)c->id,
		       (long long)c->id);
		fflush(stdout);
		snprintf(id, sizeof(id), "%lld", (long long)c->id);
		cmd_findings(4, argv);
	}
	sl_comparison_free(c);
	return status;
}

static int cmd_lab_ab(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'o' },
		{ "label", required_argument, NULL, 'l' },
		{ "group", required_argument, NULL, 'g' },
		{ "max-runs", required_argument, NULL, 'N' },
		{ "max-minutes", required_argument, NULL, 'M' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'J' },
		{ "mode", required_argument, NULL, 'm' },
		{ "topology", required_argument, NULL, 'T' },
		{ "sysctl", required_argument, NULL, 'S' },
		{ "append", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct lab_ab ab = { .db = "lab.db", .max_runs = 6, .max_minutes = 180, .alpha = 0.01 };
	json_t *looks;
	uint64_t u;
	int opt, err;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:l:g:d:c:j:L:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			ab.db = optarg;
			break;
		case 'l':
			ab.label = optarg;
			break;
		case 'g':
			if (ab.nr_groups == MAX_GROUPS)
				return cli_usage_error("lab", "at most %d groups", MAX_GROUPS);
			ab.groups[ab.nr_groups++] = optarg;
			break;
		case 'N':
			if (cli_u64("lab", "--max-runs", optarg, 1, MAX_RUNS, &u))
				return EXIT_USAGE;
			ab.max_runs = (int)u;
			break;
		case 'M':
			if (cli_double("lab", "--max-minutes", optarg, 0, 1e6, SL_PARSE_MIN_OPEN,
				       &ab.max_minutes))
				return EXIT_USAGE;
			break;
		case 'a':
			if (cli_double("lab", "--alpha", optarg, 0, 1,
				       SL_PARSE_MIN_OPEN | SL_PARSE_MAX_OPEN, &ab.alpha))
				return EXIT_USAGE;
			break;
		case 'J':
			ab.json = true;
			break;
		case 'd':
		case 'c':
		case 'j':
		case 'L':
		case 'm':
		case 'T':
		case 'S':
		case 'A':
			if (ab.nr_pass + 2 > (int)(sizeof(ab.pass) / sizeof(ab.pass[0])))
				return cli_usage_error("lab", "too many run options");
			/* the option as `lab run` spells it, then its value */
			ab.pass[ab.nr_pass++] = (char *)(opt == 'm' ? "--mode" :
							 opt == 'T' ? "--topology" :
							 opt == 'S' ? "--sysctl" :
							 opt == 'A' ? "--append" :
							 opt == 'd' ? "-d" :
							 opt == 'c' ? "-c" :
							 opt == 'j' ? "-j" :
								      "-L");
			ab.pass[ab.nr_pass++] = optarg;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	if (argc - optind != 3)
		return cli_usage(usage_text);
	if ((err = parse_side(argv[optind], &ab.side[0])) ||
	    (err = parse_side(argv[optind + 1], &ab.side[1])))
		return err;
	ab.workload = argv[optind + 2];
	if (!ab.label)
		ab.label = ab.workload;
	export_self();
	looks = json_array();
	if (!looks)
		return cli_error("out of memory");
	err = ab_loop(&ab, looks);
	if (!err)
		err = ab_report(&ab, looks);
	json_decref(looks);
	return err;
}

int cmd_lab(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage(usage_text);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cli_help(usage_text);
	if (!strcmp(argv[1], "run"))
		return exec_script("run", argc - 2, argv + 2);
	if (!strcmp(argv[1], "fetch"))
		return exec_script("fetch-kernel", argc - 2, argv + 2);
	if (!strcmp(argv[1], "ab"))
		return cmd_lab_ab(argc - 1, argv + 1);
	return cli_usage_error("lab", "unknown lab command '%s' (run, fetch, ab)", argv[1]);
}
