// SPDX-License-Identifier: GPL-2.0-only
/*
 * `schedlens diff`: compares a baseline set of runs with a candidate set (lib/compare/compare.h)
 * and prints the findings, flagged ones first with their explanation, then the unchanged
 * metrics compactly; --json prints the same comparison as one JSON object, --csv every
 * finding as a row (cli/findings-table.h, shared with `schedlens findings`). The exit
 * status is a CI gate: 0 no regression and conclusive, 1 a regression was flagged, 2 usage
 * errors, insufficient data or anything else that is not a verdict, 3 inconclusive (no
 * regression, but a primary metric could be neither flagged nor shown equivalent, whatever
 * else was flagged; --inconclusive-ok makes that 0). With --prometheus the two sides are
 * series matchers and the data come from a Prometheus server (lib/compare/compare-prom.h,
 * docs/fleet.md): hosts take the place of runs and steps that of windows; the output and
 * exit statuses are the same.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "compare-prom.h"
#include "compare.h"
#include "error.h"
#include "findings-table.h"
#include "print.h"

static const char usage_text[] =
	"schedlens diff [--db FILE] [BASE_RUN CAND_RUN | --baseline KERNEL --candidate KERNEL |\n"
	"       --baseline-runs IDS --candidate-runs IDS] [--where KEY=VALUE]...\n"
	"       [--baseline-where KEY=VALUE]... [--candidate-where KEY=VALUE]...\n"
	"       [-l LABEL] [-g GROUP]... [--force]\n"
	"       [--threshold PCT] [--floor-scale X] [--alpha A] [--ci-level PCT]\n"
	"       [--resamples N] [--seed N] [--block N] [--min-windows N] [--segment SECONDS]\n"
	"       [--single-run-factor X] [--history-runs N] [--inconclusive-ok] [--no-store]\n"
	"       [--all] [--json | --csv]\n"
	"schedlens diff --prometheus URL --baseline MATCHER --candidate MATCHER [-g GROUP]...\n"
	"       [--range DUR] [--step DUR] [--end UNIX_SECONDS] [statistics and output options]\n"
	"  without a selection: the previous kernel against the newest run's kernel\n"
	"  --where: with both kernels, only the runs whose runs.params KEY (or column\n"
	"  preempt_mode, kernel_version) is VALUE; --baseline-where/--candidate-where: one\n"
	"  side's, over --where's for the same KEY; one kernel both sides when they differ\n"
	"  fleet: MATCHER selects series, e.g. 'kernel=\"6.12.57-amd64\"'; DUR is N[smhd]\n"
	"  (--range 24h, --step 1m by default)";

#define MAX_IDS 256
#define MAX_GROUPS 32

static int parse_ids(const char *flag, const char *s, int64_t *ids, int *nr)
{
	const char *p = s;
	char one[32];
	int err;

	*nr = 0;
	do {
		size_t len = strcspn(p, ",");

		if (*nr == MAX_IDS)
			return cli_usage_error("diff", "invalid %s '%s': more than %d run ids",
					       flag, s, MAX_IDS);
		/* a longer one is out of range anyway: the parser says so */
		snprintf(one, sizeof(one), "%.*s", (int)(len < sizeof(one) ? len : sizeof(one) - 1),
			 p);
		err = sl_parse_i64(one, 1, INT64_MAX, &ids[(*nr)++]);
		if (err)
			return cli_usage_error("diff", "invalid %s '%s': run id %d: %s", flag, s,
					       *nr, sl_errmsg(err));
		p += len;
	} while (*p++);
	return 0;
}

/* Flagged findings first, each with its sentence: the table diff and findings share. */
static void print_flagged(struct pr *p, const struct sl_comparison *c, json_t *j)
{
	if (!c->regressions && !c->improvements && !c->changes) {
		pr_line(p, "%s", "");
		pr_line(p, "no metric changed significantly beyond its thresholds");
		if (c->inconclusive)
			pr_line(p,
				"but %d metric%s could not be shown equivalent either "
				"(inconclusive: more runs needed)",
				c->inconclusive, c->inconclusive == 1 ? "" : "s");
	} else {
		/* a table after lines: the print layer puts the empty line between */
		print_findings(p, json_object_get(j, "findings"), true);
	}
	print_unconfirmed(p, j);
}

/* The rest, compactly: "group: metric base->cand, ..." one line per group (wrapped near
 * 70 columns), inconclusive ones marked "?" with the runs a side they would likely need. */
static void print_rest(struct pr *p, const struct sl_comparison *c, bool all)
{
	const char *grp = NULL;
	int insufficient = 0, col = 0, w;
	char b[32], k[32], line[256];
	size_t n = 0;

	pr_line(p, "%s", "");
	pr_line(p, "not flagged (? inconclusive, runs a side needed)%s:",
		all ? "" : " (per group; --all for every metric)");
	for (size_t i = 0; i < c->nr_findings; i++) {
		const struct sl_finding *f = &c->findings[i];

		if (f->verdict == SL_V_INSUFFICIENT) {
			insufficient++;
			continue;
		}
		if (f->verdict != SL_V_EQUIVALENT && f->verdict != SL_V_INCONCLUSIVE)
			continue;
		if (!all && !f->metric->headline)
			continue;
		if (!grp || strcmp(grp, f->grp)) {
			if (grp)
				pr_line(p, "%s", line);
			n = (size_t)snprintf(line, sizeof(line), "  %s:", f->grp);
			grp = f->grp;
			col = 4 + (int)strlen(f->grp); /* where the wrap has always been */
		}
		sl_metric_format(f->metric, f->base, b, sizeof(b));
		sl_metric_format(f->metric, f->cand, k, sizeof(k));
		if (col > 70) {
			pr_line(p, "%s", line);
			n = (size_t)snprintf(line, sizeof(line), "     ");
			col = 5;
		}
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		if (f->verdict == SL_V_INCONCLUSIVE)
			w = snprintf(line + n, sizeof(line) - n, " %s %s->%s?%d%s", f->metric->name,
				     b, k, f->runs_needed, f->runs_needed >= 99 ? "+" : "");
		else
			w = snprintf(line + n, sizeof(line) - n, " %s %s->%s", f->metric->name, b,
				     k);
		n += (size_t)w;
		col += w;
	}
	if (grp)
		pr_line(p, "%s", line);
	if (insufficient)
		pr_line(p, "insufficient data for %d metric%s (too few windows or events)",
			insufficient, insufficient == 1 ? "" : "s");
}

/* "24h", "1m", "90s", "7d" or plain seconds, into seconds (at least 1, at most 10 years). */
static int parse_dur(const char *flag, const char *s, uint64_t *ret)
{
	static const struct {
		char unit;
		uint64_t mul;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	char num[32];
	size_t len = strlen(s);
	uint64_t mul = 1, v;

	for (size_t i = 0; len > 1 && i < sizeof(units) / sizeof(units[0]); i++)
		if (s[len - 1] == units[i].unit) {
			mul = units[i].mul;
			len--;
		}
	if (len >= sizeof(num))
		return cli_usage_error("diff", "invalid %s '%s'", flag, s);
	snprintf(num, sizeof(num), "%.*s", (int)len, s);
	if (cli_u64("diff", flag, num, 1, 315360000 / mul, &v))
		return EXIT_USAGE;
	*ret = v * mul;
	return 0;
}

static void print_table(struct pr *p, const struct sl_comparison *c, json_t *j, bool all,
			bool fleet)
{
	char id[48] = "";

	for (int s = 0; s < 2; s++)
		pr_line(p, "%-10s %s (%d %s%s, %zu %s)",
			s ? "candidate:" : "baseline:", c->side[s].desc, c->side[s].nr_runs,
			fleet ? "host" : "run", c->side[s].nr_runs == 1 ? "" : "s",
			c->side[s].windows, fleet ? "steps" : "windows");
	pr_line(p,
		"statistics: moderated t on run values (within-run block bootstrap, %d resamples, "
		"seed %" PRIu64 "), alpha %g (Holm: primary, BH: secondary), %.3g%% intervals, "
		"flag at %.0f%% relative change and %gx the metric floors",
		c->resamples, c->seed, c->alpha, 100 * c->ci_level, 100 * c->rel_threshold,
		c->floor_scale);
	if (c->single_run)
		pr_line(p,
			"            no run-to-run variance known: intervals widened %gx for what "
			"one run cannot show",
			c->single_run_factor);
	for (int i = 0; i < c->nr_notes; i++)
		pr_line(p, "note: %s", c->notes[i]);
	if (c->verdict != SL_V_INSUFFICIENT) {
		print_flagged(p, c, j);
		print_rest(p, c, all);
	}
	if (c->id >= 0)
		snprintf(id, sizeof(id), " [comparison %" PRId64 "]", c->id);
	pr_line(p, "%s", "");
	pr_line(p, "verdict: %s: %s%s", sl_verdict_name(c->verdict), c->summary, id);
}

/* Prints c as asked, frees it and returns diff's exit status for it. */
static int report(struct sl_comparison *c, enum pr_format format, bool all, bool fleet,
		  bool inconclusive_ok)
{
	json_t *j = sl_comparison_to_json(c);
	struct pr *p = pr_open(format, PR_INDENT, stdout);
	int status;

	if (!p || !j) {
		cli_error("out of memory");
	} else if (format == PR_JSON) {
		pr_object(p, json_incref(j));
	} else if (format == PR_CSV) {
		print_findings(p, json_object_get(j, "findings"), false);
	} else {
		print_table(p, c, j, all, fleet);
	}
	if (p && pr_close(p) < 0)
		cli_error("cannot write the comparison to stdout");
	json_decref(j);
	status = c->verdict == SL_V_INSUFFICIENT    ? EXIT_USAGE :
		 c->regressions			    ? EXIT_FAIL :
		 c->runs_needed && !inconclusive_ok ? EXIT_INCONCLUSIVE :
						      EXIT_OK;
	sl_comparison_free(c);
	return status;
}

/* One --where, --baseline-where or --candidate-where: KEY=VALUE. */
struct where_opt {
	char key[64];
	const char *value; /* in argv */
};

enum { W_BOTH, W_BASE, W_CAND };

/* What the command line asked for besides the comparison's own options. */
struct diff_args {
	struct where_opt where[3][SL_RUN_WHERE_MAX]; /* by W_BOTH, W_BASE, W_CAND */
	int nr_where[3];
	struct sl_compare_opts o;
	struct sl_fleet_opts fo;
	const char *db;
	const char *groups[MAX_GROUPS];
	int nr_groups;
	enum pr_format format;
	bool all, store_it, inconclusive_ok;
	bool local_only; /* an option of a database: refused with --prometheus */
};

/* The run ids of --baseline-runs/--candidate-runs or BASE_RUN CAND_RUN: o points into it. */
static int64_t ids[2][MAX_IDS];

/* The filters of each side (o points into them): side_filters() fills them. */
static struct sl_run_where side_where[2][2 * SL_RUN_WHERE_MAX];

/* --where KEY=VALUE and its one-side forms: a later one for the same KEY replaces it. */
static int add_where(struct diff_args *a, int kind, const char *flag, const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t len = eq ? (size_t)(eq - kv) : 0;
	struct where_opt *w = NULL;
	char key[64];

	if (!eq || !len || len >= sizeof(key))
		return cli_usage_error("diff", "invalid %s '%s' (KEY=VALUE)", flag, kv);
	snprintf(key, sizeof(key), "%.*s", (int)len, kv);
	if (!sl_run_where_key_valid(key))
		return cli_usage_error("diff",
				       "invalid %s '%s' (KEY of letters, digits and _, as record "
				       "--param's)",
				       flag, kv);
	for (int i = 0; i < a->nr_where[kind] && !w; i++)
		if (!strcmp(a->where[kind][i].key, key))
			w = &a->where[kind][i];
	if (!w) {
		if (a->nr_where[kind] == SL_RUN_WHERE_MAX)
			return cli_usage_error("diff", "more than %d %s", SL_RUN_WHERE_MAX, flag);
		w = &a->where[kind][a->nr_where[kind]++];
		snprintf(w->key, sizeof(w->key), "%s", key);
	}
	w->value = eq + 1;
	return 0;
}

/* Each side's filters: --where's but those of a key the side has its own for, then its own. */
static void side_filters(struct diff_args *a)
{
	for (int s = 0; s < 2; s++) {
		int own = s ? W_CAND : W_BASE, n = 0;

		for (int i = 0; i < a->nr_where[W_BOTH]; i++) {
			bool mine = false;

			for (int j = 0; j < a->nr_where[own] && !mine; j++)
				mine = !strcmp(a->where[own][j].key, a->where[W_BOTH][i].key);
			if (!mine)
				side_where[s][n++] =
					(struct sl_run_where){ a->where[W_BOTH][i].key,
							       a->where[W_BOTH][i].value };
		}
		for (int i = 0; i < a->nr_where[own]; i++)
			side_where[s][n++] = (struct sl_run_where){ a->where[own][i].key,
								    a->where[own][i].value };
		a->o.where[s] = side_where[s];
		a->o.nr_where[s] = n;
	}
}

/* The fleet diff's own options (--prometheus, --range, --step, --end): -1 to go on, else
 * the exit status; 0 when opt is not one of them. */
static int fleet_option(int opt, struct diff_args *a)
{
	switch (opt) {
	case 'P':
		a->fo.url = optarg;
		return -1;
	case 'G':
		return parse_dur("--range", optarg, &a->fo.range_s) ? EXIT_USAGE : -1;
	case 'T':
		return parse_dur("--step", optarg, &a->fo.step_s) ? EXIT_USAGE : -1;
	case 'E':
		return cli_u64("diff", "--end", optarg, 1, UINT64_MAX / 2, &a->fo.end_s) ?
			       EXIT_USAGE :
			       -1;
	}
	return 0;
}

/*
 * One option of getopt_long: -1 to go on, else the exit status (a bad value, --help). A
 * flat switch, one short case per option: its length is the number of options.
 */
static int diff_option(int opt, struct diff_args *a)
{
	struct sl_compare_opts *o = &a->o;
	int fleet = fleet_option(opt, a);
	uint64_t u;
	double d;

	if (fleet)
		return fleet;
	switch (opt) {
	case 'D':
		a->db = optarg;
		a->local_only = true;
		break;
	case 'b':
		o->baseline_kernel = optarg;
		break;
	case 'c':
		o->candidate_kernel = optarg;
		break;
	case 'B':
	case 'C':
		a->local_only = true;
		if (parse_ids(opt == 'C' ? "--candidate-runs" : "--baseline-runs", optarg,
			      ids[opt == 'C'],
			      opt == 'C' ? &o->nr_candidate_runs : &o->nr_baseline_runs))
			return EXIT_USAGE;
		break;
	case 'l':
		a->local_only = true;
		o->label = optarg;
		break;
	case 'W':
	case 'X':
	case 'Y':
		a->local_only = true;
		if (add_where(a,
			      opt == 'W' ? W_BOTH :
			      opt == 'X' ? W_BASE :
					   W_CAND,
			      opt == 'W' ? "--where" :
			      opt == 'X' ? "--baseline-where" :
					   "--candidate-where",
			      optarg))
			return EXIT_USAGE;
		break;
	case 'g':
		if (a->nr_groups == MAX_GROUPS)
			return cli_usage(usage_text);
		a->groups[a->nr_groups++] = optarg;
		break;
	case 'f':
		a->local_only = true;
		o->force = true;
		break;
	case 't':
		if (cli_double("diff", "--threshold", optarg, 0, 1000, 0, &d))
			return EXIT_USAGE;
		o->rel_threshold = d / 100;
		break;
	case 'F':
		if (cli_double("diff", "--floor-scale", optarg, 0, 1e6, SL_PARSE_MIN_OPEN,
			       &o->floor_scale))
			return EXIT_USAGE;
		break;
	case 'a':
		if (cli_double("diff", "--alpha", optarg, 0, 1,
			       SL_PARSE_MIN_OPEN | SL_PARSE_MAX_OPEN, &o->alpha))
			return EXIT_USAGE;
		break;
	case 'L':
		if (cli_double("diff", "--ci-level", optarg, 50, 100, SL_PARSE_MAX_OPEN,
			       &o->ci_level))
			return EXIT_USAGE;
		o->ci_level /= 100;
		break;
	case 'r':
		if (cli_u64("diff", "--resamples", optarg, 100, 1000000, &u))
			return EXIT_USAGE;
		o->resamples = (int)u;
		break;
	case 's':
		if (cli_u64("diff", "--seed", optarg, 0, UINT64_MAX, &o->seed))
			return EXIT_USAGE;
		break;
	case 'k':
		if (cli_u64("diff", "--block", optarg, 0, 1000000, &u))
			return EXIT_USAGE;
		o->block_len = u;
		break;
	case 'm':
		if (cli_u64("diff", "--min-windows", optarg, 1, 1000000, &u))
			return EXIT_USAGE;
		o->min_windows = u;
		break;
	case 'S':
		if (cli_double("diff", "--segment", optarg, 0.001, 31536000, 0, &d))
			return EXIT_USAGE;
		o->segment_ns = (uint64_t)(d * 1e9);
		a->local_only = true;
		break;
	case 'R':
		if (cli_double("diff", "--single-run-factor", optarg, 1, 1000, 0,
			       &o->single_run_factor))
			return EXIT_USAGE;
		break;
	case 'H':
		if (cli_u64("diff", "--history-runs", optarg, 0, 1000, &u))
			return EXIT_USAGE;
		o->history_runs = (int)u;
		a->local_only = true;
		break;
	case 'I':
		a->inconclusive_ok = true;
		break;
	case 'n':
		a->local_only = true;
		a->store_it = false;
		break;
	case 'A':
		a->all = true;
		break;
	case 'j':
		a->format = PR_JSON;
		break;
	case 'v':
		a->format = PR_CSV;
		break;
	case 'h':
		return cli_help(usage_text);
	default:
		return cli_usage(usage_text);
	}
	return -1;
}

/* --prometheus: the two matchers against the fleet's counters. */
static int diff_fleet(int argc, struct diff_args *a)
{
	struct sl_comparison *c = NULL;
	int err;

	if (a->local_only || argc != optind)
		return cli_usage_error("diff", "--prometheus takes two matchers "
					       "(--baseline, --candidate), not a database's "
					       "runs, label, segments, history or store");
	if (!a->o.baseline_kernel || !a->o.candidate_kernel)
		return cli_usage(usage_text);
	a->fo.matcher[0] = a->o.baseline_kernel;
	a->fo.matcher[1] = a->o.candidate_kernel;
	err = sl_compare_prom(&a->o, &a->fo, &c);
	if (err) {
		cli_error("%s", sl_errmsg(err));
		return EXIT_USAGE;
	}
	return report(c, a->format, a->all, true, a->inconclusive_ok);
}

/*
 * The runs to compare: BASE_RUN CAND_RUN, or the options' selection, never both, and
 * either both sides' runs or none. -1 to go on, else the exit status.
 */
static int diff_selection(int argc, char **argv, struct diff_args *a)
{
	struct sl_compare_opts *o = &a->o;

	if (argc - optind == 2) {
		if (o->nr_baseline_runs || o->nr_candidate_runs || o->baseline_kernel ||
		    o->candidate_kernel)
			return cli_usage(usage_text);
		if (parse_ids("BASE_RUN", argv[optind], ids[0], &o->nr_baseline_runs) ||
		    parse_ids("CAND_RUN", argv[optind + 1], ids[1], &o->nr_candidate_runs))
			return EXIT_USAGE;
	} else if (argc != optind) {
		return cli_usage(usage_text);
	}
	if ((o->nr_baseline_runs > 0) != (o->nr_candidate_runs > 0) ||
	    ((o->nr_baseline_runs > 0) && (o->baseline_kernel || o->candidate_kernel)))
		return cli_usage(usage_text);
	o->baseline_runs = ids[0];
	o->candidate_runs = ids[1];
	return -1;
}

/* A database's runs: selected, compared, stored unless --no-store, reported. */
static int diff_local(int argc, char **argv, struct diff_args *a)
{
	struct sl_comparison *c = NULL;
	struct sl_store *store = NULL;
	int err, status = diff_selection(argc, argv, a);

	if (status >= 0)
		return status;
	a->o.store = a->store_it;
	err = sl_store_open(a->db, a->store_it ? 0 : SL_STORE_RDONLY, &store);
	if (err) {
		cli_error("%s", sl_errmsg(err));
		return EXIT_USAGE;
	}
	err = sl_compare(store, &a->o, &c);
	if (err) {
		cli_error("%s", sl_errmsg(err));
		sl_store_close(store);
		return EXIT_USAGE;
	}
	status = report(c, a->format, a->all, false, a->inconclusive_ok);
	sl_store_close(store);
	return status;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'D' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "candidate", required_argument, NULL, 'c' },
		{ "baseline-runs", required_argument, NULL, 'B' },
		{ "candidate-runs", required_argument, NULL, 'C' },
		{ "label", required_argument, NULL, 'l' },
		{ "where", required_argument, NULL, 'W' },
		{ "baseline-where", required_argument, NULL, 'X' },
		{ "candidate-where", required_argument, NULL, 'Y' },
		{ "group", required_argument, NULL, 'g' },
		{ "force", no_argument, NULL, 'f' },
		{ "threshold", required_argument, NULL, 't' },
		{ "floor-scale", required_argument, NULL, 'F' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "ci-level", required_argument, NULL, 'L' },
		{ "resamples", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "block", required_argument, NULL, 'k' },
		{ "min-windows", required_argument, NULL, 'm' },
		{ "segment", required_argument, NULL, 'S' },
		{ "single-run-factor", required_argument, NULL, 'R' },
		{ "history-runs", required_argument, NULL, 'H' },
		{ "inconclusive-ok", no_argument, NULL, 'I' },
		{ "no-store", no_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'A' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'v' },
		{ "prometheus", required_argument, NULL, 'P' },
		{ "range", required_argument, NULL, 'G' },
		{ "step", required_argument, NULL, 'T' },
		{ "end", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct diff_args a = { .db = "schedlens.db", .format = PR_TEXT, .store_it = true };
	int opt, status;

	sl_compare_opts_default(&a.o);
	sl_fleet_opts_default(&a.fo);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "l:g:h", opts, NULL)) != -1)
		if ((status = diff_option(opt, &a)) >= 0)
			return status;
	if (a.nr_groups) {
		a.o.groups = a.groups;
		a.o.nr_groups = a.nr_groups;
	}
	side_filters(&a);
	return a.fo.url ? diff_fleet(argc, &a) : diff_local(argc, argv, &a);
}
