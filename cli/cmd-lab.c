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
 *   lab explain A B WORKLOAD --metric M
 *                      a bisection by measurement: B with each sched feature flipped, one
 *                      at a time, ranked by how much of A -> B in M the flip undoes
 *   lab upgrade A B WORKLOAD  A then B recorded by schedlensd into one database, its
 *                      automatic comparison set beside the same runs' (cmd-lab-upgrade.c)
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
#include <ftw.h>
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
#include "lab-local.h"
#include "labdir.h"
#include "metrics.h"
#include "print.h"
#include "store.h"

static const char usage_text[] =
	"schedlens lab run KERNEL WORKLOAD [options]   (schedlens lab run --help)\n"
	"       schedlens lab fetch KERNEL\n"
	"       schedlens lab ab A B WORKLOAD [-o DB] [-l LABEL] [--max-runs N]\n"
	"            [--max-minutes M] [--alpha A] [-g GROUP]... [--json] [run options]\n"
	"       schedlens lab explain A B WORKLOAD --metric M [-g GROUP] [--features LIST]\n"
	"            [--runs N] [-o DB] [-l LABEL] [--alpha A] [--json] [run options]\n"
	"       schedlens lab upgrade A B WORKLOAD [-o NEW_DB] [-l LABEL] [--compare-after N]\n"
	"            [--runs N] [--json] [run options]\n"
	"  KERNEL: 6.1, 6.12, 7.x, a release (7.2.13+deb14-cloud-amd64) or a bzImage path\n"
	"  A, B: KERNEL[:FEATURE,...][@PREEMPT], e.g. 6.1 and 6.1:NO_WAKEUP_PREEMPTION\n"
	"  run options passed on: -d SECONDS -c N -j N -L LOOPS --mode M --scale N\n"
	"            --topology SxCxT --sysctl N=V --append ARGS --copy PATH\n"
	"  WORKLOAD: pgbench, hackbench, or cmd [--copy PATH]... -- COMMAND ARGS";

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
void lab_export_self(void)
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
	lab_export_self();
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

const char *lab_side_name(const struct lab_side *s, char *buf, size_t size)
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
/* keep: a directory for what the guest sent (its sched features), or NULL. */
int lab_run_side(struct lab_ab *ab, struct lab_side *s, const char *keep)
{
	char path[PATH_MAX + 32];
	/* the fixed options below, the ones passed on, "--", the command, NULL */
	char **argv =
		calloc(16 + (size_t)ab->nr_pass + 1 + (size_t)ab->nr_command + 1, sizeof(*argv));
	int argc = 0, status = 0, err = 0;
	int64_t before = newest_run(ab->db), after;

	if (!argv)
		return cli_error("out of memory");
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
	if (keep) {
		argv[argc++] = "--keep";
		argv[argc++] = (char *)keep;
	}
	for (int i = 0; i < ab->nr_pass; i++)
		argv[argc++] = ab->pass[i];
	if (ab->nr_command) {
		argv[argc++] = "--";
		for (int i = 0; i < ab->nr_command; i++)
			argv[argc++] = ab->command[i];
	}
	argv[argc] = NULL;
	for (int attempt = 1; attempt <= 2 && !err; attempt++) {
		pid_t pid = fork();

		if (pid < 0) {
			err = cli_error("fork: %s", strerror(errno));
			break;
		}
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
			err = EXIT_FAIL;
	}
	free(argv);
	if (err)
		return err;
	after = newest_run(ab->db);
	if (after <= before)
		return cli_error("lab run of %s stored no run in %s", s->kernel, ab->db);
	s->runs[s->nr_runs++] = after;
	return 0;
}

/*
 * base's runs against cand's, restricted to the experiment's groups, at one of max_looks
 * looks (the error rates spent over them); stored when store.
 */
int lab_compare_sides(const struct lab_ab *ab, const struct lab_side *base,
		      const struct lab_side *cand, int max_looks, bool store,
		      struct sl_comparison **ret)
{
	struct sl_compare_opts o;
	struct sl_store *st;
	int err;

	sl_compare_opts_default(&o);
	o.baseline_runs = base->runs;
	o.nr_baseline_runs = base->nr_runs;
	o.candidate_runs = cand->runs;
	o.nr_candidate_runs = cand->nr_runs;
	o.label = ab->label;
	o.groups = ab->nr_groups ? ab->groups : NULL;
	o.nr_groups = ab->nr_groups;
	o.alpha = ab->alpha;
	sl_compare_spend(&o, max_looks);
	o.store = store;
	if ((err = sl_store_open(ab->db, store ? 0 : SL_STORE_RDONLY, &st)))
		return cli_error("%s: %s", ab->db, sl_errmsg(err));
	err = sl_compare(st, &o, ret);
	sl_store_close(st);
	if (err)
		return cli_error("comparison: %s", sl_errmsg(err));
	return 0;
}

/* The comparison of everything run so far: one of at most max_runs looks. */
static int look(const struct lab_ab *ab, bool store, struct sl_comparison **ret)
{
	return lab_compare_sides(ab, &ab->side[0], &ab->side[1], ab->max_runs, store, ret);
}

static int ab_loop(struct lab_ab *ab, json_t *looks)
{
	double t0 = now_s(), pair_s = 0;
	char a[PATH_MAX + 600], b[PATH_MAX + 600];

	fprintf(stderr,
		"lab ab: A = %s, B = %s, %s, at most %d runs a side and %g min; "
		"each look at alpha %.3g, %.3g%% intervals\n",
		lab_side_name(&ab->side[0], a, sizeof(a)),
		lab_side_name(&ab->side[1], b, sizeof(b)), ab->workload, ab->max_runs,
		ab->max_minutes, ab->alpha / ab->max_runs, 100 * (1 - 0.05 / ab->max_runs));
	for (int k = 0; k < ab->max_runs; k++) {
		double p0 = now_s();
		struct sl_comparison *c = NULL;
		enum sl_seq_next next;
		int err, open;

		/* A B, then B A: drift over the experiment hits both sides alike */
		for (int i = 0; i < 2; i++)
			if ((err = lab_run_side(ab, &ab->side[k % 2 ? 1 - i : i], NULL)))
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
	struct pr *p;
	char id[32];
	int err, status;

	if ((err = look(ab, true, &c)))
		return err;
	status = c->verdict == SL_V_REGRESSION	 ? EXIT_FAIL :
		 c->verdict == SL_V_INCONCLUSIVE ? EXIT_INCONCLUSIVE :
		 c->verdict == SL_V_INSUFFICIENT ? EXIT_USAGE :
						   EXIT_OK;
	p = pr_open(ab->json ? PR_JSON : PR_TEXT, PR_INDENT, stdout);
	if (!p) {
		sl_comparison_free(c);
		return cli_error("out of memory");
	}
	if (ab->json)
		pr_object(p, json_pack("{s:O, s:o}", "looks", looks, "comparison",
				       sl_comparison_to_json(c)));
	else
		pr_line(p,
			"lab ab: %d looks; verdict %s (comparison %lld, schedlens findings %lld "
			"--all)",
			(int)json_array_size(looks), sl_verdict_name(c->verdict), (long long)c->id,
			(long long)c->id);
	if (pr_close(p) < 0)
		status = cli_error("cannot write the report to stdout");
	if (!ab->json) {
		char *argv[] = { "findings", "--db", (char *)ab->db, id, NULL };

		snprintf(id, sizeof(id), "%lld", (long long)c->id);
		cmd_findings(4, argv);
	}
	sl_comparison_free(c);
	return status;
}

/* The options only one lab command takes (the others are everyone's). */
static bool lab_takes(enum lab_cmd cmd, int opt)
{
	switch (opt) {
	case 'N': /* --max-runs */
	case 'M': /* --max-minutes */
		return cmd == LAB_AB;
	case 'K': /* --metric */
	case 'F': /* --features */
		return cmd == LAB_EXPLAIN;
	case 'r': /* --runs: explain's of each setting, upgrade's of A */
		return cmd != LAB_AB;
	case 'W': /* --compare-after */
		return cmd == LAB_UPGRADE;
	default:
		return true;
	}
}

static const char *const lab_cmd_name[] = { "ab", "explain", "upgrade" };

/*
 * The options of lab ab, explain and upgrade (lab_takes() says which are whose); the three
 * positional arguments into sides and workload. A flat switch over the commands' options,
 * one short case each: its length is the number of options.
 */
int lab_args(int argc, char **argv, struct lab_ab *ab, enum lab_cmd cmd)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'o' },
		{ "label", required_argument, NULL, 'l' },
		{ "group", required_argument, NULL, 'g' },
		{ "max-runs", required_argument, NULL, 'N' },
		{ "max-minutes", required_argument, NULL, 'M' },
		{ "metric", required_argument, NULL, 'K' },
		{ "features", required_argument, NULL, 'F' },
		{ "runs", required_argument, NULL, 'r' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'J' },
		{ "mode", required_argument, NULL, 'm' },
		{ "topology", required_argument, NULL, 'T' },
		{ "sysctl", required_argument, NULL, 'S' },
		{ "append", required_argument, NULL, 'A' },
		{ "scale", required_argument, NULL, 'Z' },
		{ "copy", required_argument, NULL, 'C' },
		{ "compare-after", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t u;
	int opt, err;

	/* cmd's command follows "--": the options and the three positions come before it */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			ab->command = argv + i + 1;
			ab->nr_command = argc - i - 1;
			argc = i;
			break;
		}
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:l:g:d:c:j:L:r:h", opts, NULL)) != -1) {
		if (!lab_takes(cmd, opt)) {
			const struct option *o = opts;

			while (o->val != opt)
				o++;
			return cli_usage_error("lab", "--%s is not an option of lab %s", o->name,
					       lab_cmd_name[cmd]);
		}
		switch (opt) {
		case 'o':
			ab->db = optarg;
			break;
		case 'l':
			ab->label = optarg;
			break;
		case 'g':
			if (ab->nr_groups == (cmd == LAB_EXPLAIN ? 1 : MAX_GROUPS))
				return cli_usage_error("lab", "at most %d group%s",
						       cmd == LAB_EXPLAIN ? 1 : MAX_GROUPS,
						       cmd == LAB_EXPLAIN ? "" : "s");
			ab->groups[ab->nr_groups++] = optarg;
			break;
		case 'N':
			if (cli_u64("lab", "--max-runs", optarg, 1, MAX_RUNS, &u))
				return EXIT_USAGE;
			ab->max_runs = (int)u;
			break;
		case 'M':
			if (cli_double("lab", "--max-minutes", optarg, 0, 1e6, SL_PARSE_MIN_OPEN,
				       &ab->max_minutes))
				return EXIT_USAGE;
			break;
		case 'K':
			ab->metric = optarg;
			break;
		case 'F':
			ab->toggles = optarg;
			break;
		case 'r':
			if (cli_u64("lab", "--runs", optarg, 1, 16, &u))
				return EXIT_USAGE;
			ab->runs_each = (int)u;
			break;
		case 'a':
			if (cli_double("lab", "--alpha", optarg, 0, 1,
				       SL_PARSE_MIN_OPEN | SL_PARSE_MAX_OPEN, &ab->alpha))
				return EXIT_USAGE;
			break;
		case 'J':
			ab->json = true;
			break;
		case 'W':
			if (cli_u64("lab", "--compare-after", optarg, 2, 1000000, &u))
				return EXIT_USAGE;
			ab->compare_after = (int)u;
			break;
		case 'd':
			/* upgrade's default --compare-after: as many windows as seconds */
			if (cli_u64("lab", "-d", optarg, 1, 1000000, &u))
				return EXIT_USAGE;
			ab->duration = (int)u;
			__attribute__((fallthrough)); /* passed on like the others */
		case 'c':
		case 'j':
		case 'L':
		case 'm':
		case 'T':
		case 'S':
		case 'A':
		case 'Z':
		case 'C':
			if (ab->nr_pass + 2 > (int)(sizeof(ab->pass) / sizeof(ab->pass[0])))
				return cli_usage_error("lab", "too many run options");
			/* the option as `lab run` spells it, then its value */
			ab->pass[ab->nr_pass++] = (char *)(opt == 'm' ? "--mode" :
							   opt == 'T' ? "--topology" :
							   opt == 'S' ? "--sysctl" :
							   opt == 'A' ? "--append" :
							   opt == 'Z' ? "--scale" :
							   opt == 'C' ? "--copy" :
							   opt == 'd' ? "-d" :
							   opt == 'c' ? "-c" :
							   opt == 'j' ? "-j" :
									"-L");
			ab->pass[ab->nr_pass++] = optarg;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	if (argc - optind != 3)
		return cli_usage(usage_text);
	if ((err = parse_side(argv[optind], &ab->side[0])) ||
	    (err = parse_side(argv[optind + 1], &ab->side[1])))
		return err;
	ab->workload = argv[optind + 2];
	if (!strcmp(ab->workload, "cmd") != (ab->nr_command > 0))
		return cli_usage_error("lab", "%s",
				       ab->nr_command ?
					       "a command after -- is for workload cmd only" :
					       "cmd needs its command after --");
	if (!ab->label)
		ab->label = ab->workload;
	if (cmd == LAB_EXPLAIN && !ab->metric)
		return cli_usage_error("lab", "explain needs --metric M (a metric of "
					      "schedlens diff, e.g. waker_same_share)");
	if (cmd == LAB_EXPLAIN && !sl_metric_find(ab->metric))
		return cli_usage_error("lab", "no metric '%s' (schedlens diff --all lists them)",
				       ab->metric);
	return -1;
}

static int cmd_lab_ab(int argc, char **argv)
{
	struct lab_ab ab = { .db = "lab.db", .max_runs = 6, .max_minutes = 180, .alpha = 0.01 };
	json_t *looks;
	int err;

	if ((err = lab_args(argc, argv, &ab, LAB_AB)) >= 0)
		return err;
	lab_export_self();
	looks = json_array();
	if (!looks)
		return cli_error("out of memory");
	err = ab_loop(&ab, looks);
	if (!err)
		err = ab_report(&ab, looks);
	json_decref(looks);
	return err;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) ? -1 : 0;
}

/* A feature and what the candidate had: "WA_IDLE" on, or off ("NO_WA_IDLE" in the file). */
struct toggle {
	char name[80];
	bool on;
	double value, delta, lo, hi; /* the metric with it flipped; its change against B */
	double undone, undone_lo, undone_hi; /* share of A -> B that the flip takes back */
	enum sl_verdict verdict;
};

/* The features a run's guest had, from its kept sched/features: 0 or -1. */
static int read_features(const char *dir, struct toggle *t, int max, int *nr)
{
	char path[PATH_MAX + 16], word[80];
	FILE *f;

	snprintf(path, sizeof(path), "%s/features", dir);
	if (!(f = fopen(path, "re")))
		return cli_error("no sched features from the guest (%s): %s", path,
				 strerror(errno));
	*nr = 0;
	while (*nr < max && fscanf(f, "%79s", word) == 1) {
		bool off = !strncmp(word, "NO_", 3);

		memset(&t[*nr], 0, sizeof(t[*nr]));
		snprintf(t[*nr].name, sizeof(t[*nr].name), "%s", off ? word + 3 : word);
		t[*nr].on = !off;
		(*nr)++;
	}
	fclose(f);
	return 0;
}

static const struct toggle *find_toggle(const struct toggle *t, int nr, const char *name)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/*
 * The features to flip: --features LIST (each must be one of B's), else every feature the
 * guests of A and B both have. *nr is set; 0 or the exit status.
 */
static int choose_toggles(const struct lab_ab *ab, const char *dir_a, const char *dir_b,
			  struct toggle *out, int *nr)
{
	static struct toggle fa[128], fb[128];
	int na, nb;
	char list[512], *save = NULL;

	if (read_features(dir_a, fa, 128, &na) || read_features(dir_b, fb, 128, &nb))
		return EXIT_FAIL;
	*nr = 0;
	if (!ab->toggles) {
		for (int i = 0; i < nb && *nr < 64; i++)
			if (find_toggle(fa, na, fb[i].name))
				out[(*nr)++] = fb[i];
		return 0;
	}
	snprintf(list, sizeof(list), "%s", ab->toggles);
	for (char *w = strtok_r(list, ",", &save); w && *nr < 64; w = strtok_r(NULL, ",", &save)) {
		const struct toggle *t = find_toggle(fb, nb, !strncmp(w, "NO_", 3) ? w + 3 : w);

		if (!t)
			return cli_usage_error("lab", "%s has no sched feature %s",
					       ab->side[1].kernel, w);
		out[(*nr)++] = *t;
	}
	return 0;
}

/* The finding of the experiment's metric and group, or NULL. */
static const struct sl_finding *metric_finding(const struct lab_ab *ab,
					       const struct sl_comparison *c)
{
	const char *grp = ab->nr_groups ? ab->groups[0] : SL_GROUP_ALL;

	for (size_t i = 0; i < c->nr_findings; i++)
		if (!strcmp(c->findings[i].grp, grp) &&
		    !strcmp(c->findings[i].metric->name, ab->metric))
			return &c->findings[i];
	return NULL;
}

/* Runs B with one feature flipped and compares those runs with B's: fills t. */
static int measure_toggle(struct lab_ab *ab, struct toggle *t, int nr_toggles, double base_delta)
{
	struct lab_side flip = ab->side[1];
	const struct sl_finding *f;
	struct sl_comparison *c = NULL;
	int err;

	if ((size_t)snprintf(flip.features, sizeof(flip.features), "%s%s%s%s", ab->side[1].features,
			     *ab->side[1].features ? "," : "", t->on ? "NO_" : "",
			     t->name) >= sizeof(flip.features))
		return cli_error("feature list of %s too long", ab->side[1].kernel);
	flip.nr_runs = 0;
	for (int i = 0; i < ab->runs_each; i++)
		if ((err = lab_run_side(ab, &flip, NULL)))
			return err;
	/* one comparison per flipped feature: the error rates are spent over all of them */
	if ((err = lab_compare_sides(ab, &ab->side[1], &flip, nr_toggles, false, &c)))
		return err;
	f = metric_finding(ab, c);
	t->verdict = f ? f->verdict : SL_V_INSUFFICIENT;
	t->value = f ? f->cand : NAN;
	t->delta = f ? f->delta : NAN;
	t->lo = f ? f->ci_lo : NAN;
	t->hi = f ? f->ci_hi : NAN;
	/* B - A moved the metric by base_delta; the flip's change against it, sign reversed */
	t->undone = -t->delta / base_delta;
	t->undone_lo = fmin(-t->lo / base_delta, -t->hi / base_delta);
	t->undone_hi = fmax(-t->lo / base_delta, -t->hi / base_delta);
	fprintf(stderr, "lab explain: %s%s: %s %.4g -> %.4g, %.0f%% of the change undone\n",
		t->on ? "NO_" : "", t->name, ab->metric, f ? f->base : NAN, t->value,
		100 * t->undone);
	sl_comparison_free(c);
	return 0;
}

static int by_undone(const void *a, const void *b)
{
	double x = ((const struct toggle *)a)->undone, y = ((const struct toggle *)b)->undone;

	/* largest share first, unknown last */
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x < y) - (x > y);
}

static int explain_report(const struct lab_ab *ab, const struct sl_finding *base, struct toggle *t,
			  int nr)
{
	static const struct pr_col cols[] = {
		{ "flip", "FLIP", PR_STR },
		{ "value", "VALUE", PR_REAL, "%.4g" },
		{ "delta", "CHANGE VS B", PR_REAL, "%+.3g" },
		{ "ci_low", "CI LOW", PR_REAL, "%.3g" },
		{ "ci_high", "CI HIGH", PR_REAL, "%.3g" },
		{ "undone", "UNDONE", PR_PCT, "%.0f%%" },
		{ "undone_low", "LOW", PR_PCT, "%.0f%%" },
		{ "undone_high", "HIGH", PR_PCT, "%.0f%%" },
		{ "verdict", "VERDICT", PR_STR },
	};
	struct pr *p = pr_open(ab->json ? PR_JSON : PR_TEXT, 0, stdout);
	char title[512], flip[96];

	if (!p)
		return cli_error("out of memory");
	qsort(t, (size_t)nr, sizeof(*t), by_undone);
	snprintf(title, sizeof(title),
		 "%s of %s: A %.4g, B %.4g (%+.3g, %.3g%% CI %.3g..%.3g); each flip of B's "
		 "features, against B, and how much of A -> B it undoes:",
		 ab->metric, ab->nr_groups ? ab->groups[0] : "all tasks", base->base, base->cand,
		 base->delta, 100 * (1 - 0.05 / nr), base->ci_lo, base->ci_hi);
	pr_table(p, "flips", title, cols, sizeof(cols) / sizeof(cols[0]), 0);
	for (int i = 0; i < nr; i++) {
		snprintf(flip, sizeof(flip), "%s%.79s", t[i].on ? "NO_" : "", t[i].name);
		pr_row(p);
		pr_str(p, flip);
		pr_real(p, t[i].value);
		pr_real(p, t[i].delta);
		pr_real(p, t[i].lo);
		pr_real(p, t[i].hi);
		pr_real(p, 100 * t[i].undone);
		pr_real(p, 100 * t[i].undone_lo);
		pr_real(p, 100 * t[i].undone_hi);
		pr_str(p, sl_verdict_name(t[i].verdict));
	}
	pr_table_end(p);
	return pr_close(p) ? EXIT_FAIL : EXIT_OK;
}

/*
 * lab explain A B WORKLOAD --metric M: runs A and B (--runs each, interleaved), then B with
 * each feature flipped, and ranks the flips by how much of A -> B in M they undo.
 */
static int cmd_lab_explain(int argc, char **argv)
{
	static struct lab_ab ab;
	static struct toggle t[64];
	char tmpl[] = "/tmp/sl-explain.XXXXXX", dir_a[64], dir_b[64];
	struct sl_comparison *c = NULL;
	const struct sl_finding *f;
	int err, nr = 0;

	ab = (struct lab_ab){ .db = "lab.db", .alpha = 0.01, .runs_each = 2 };
	if ((err = lab_args(argc, argv, &ab, LAB_EXPLAIN)) >= 0)
		return err;
	err = 0;
	lab_export_self();
	if (!mkdtemp(tmpl))
		return cli_error("mkdtemp: %s", strerror(errno));
	snprintf(dir_a, sizeof(dir_a), "%s/a", tmpl);
	snprintf(dir_b, sizeof(dir_b), "%s/b", tmpl);
	for (int i = 0; i < ab.runs_each && !err; i++)
		if (!(err = lab_run_side(&ab, &ab.side[0], i ? NULL : dir_a)))
			err = lab_run_side(&ab, &ab.side[1], i ? NULL : dir_b);
	if (!err)
		err = choose_toggles(&ab, dir_a, dir_b, t, &nr);
	if (!err && !nr)
		err = cli_error("no sched feature to flip");
	if (!err)
		err = lab_compare_sides(&ab, &ab.side[0], &ab.side[1], nr, true, &c);
	f = err ? NULL : metric_finding(&ab, c);
	if (!err && (!f || !(fabs(f->delta) > 0)))
		err = cli_error("%s did not move between A and B (%s): nothing to explain",
				ab.metric, f ? sl_verdict_name(f->verdict) : "no finding");
	fprintf(stderr, "lab explain: A -> B: %s\n", c ? c->summary : "-");
	for (int i = 0; i < nr && !err; i++)
		err = measure_toggle(&ab, &t[i], nr, f->delta);
	if (!err)
		err = explain_report(&ab, f, t, nr);
	sl_comparison_free(c);
	nftw(tmpl, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
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
	if (!strcmp(argv[1], "explain"))
		return cmd_lab_explain(argc - 1, argv + 1);
	if (!strcmp(argv[1], "upgrade"))
		return cmd_lab_upgrade(argc - 1, argv + 1);
	return cli_usage_error("lab", "unknown lab command '%s' (run, fetch, ab, explain, upgrade)",
			       argv[1]);
}
