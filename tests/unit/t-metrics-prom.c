// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the Prometheus exposition (lib/serve/metrics-prom.h): label escaping, the shape
 * promtool checks (one HELP and one TYPE line before each family's samples, counters named
 * *_total, every sample of a declared family, well-formed label sets), bounded cardinality
 * (at most SL_PROM_MAX_GROUPS groups per kernel, the rest in group="other", at most
 * SL_PROM_MAX_KERNELS kernels) and, when promtool is installed, `promtool check metrics`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-prom.h"
#include "tap.h"

static void window(struct sl_prom *p, const char *kernel, const char *grp, uint64_t wakeups)
{
	struct sl_window_rec w = { .dur_ns = 1000000000, .events = 10, .wakeups = wakeups };

	snprintf(w.grp, sizeof(w.grp), "%s", grp);
	for (uint64_t i = 0; i < wakeups; i++)
		sl_hist_add(&w.latency, 1000 + i * 7000); /* 1 us, 8 us, 15 us, ... */
	sl_prom_add_window(p, kernel, &w);
}

/* Number of distinct values of label key in the text's sample lines of metric name. */
static int distinct_label_values(const char *text, const char *name, const char *key)
{
	char seen[256][128], pat[160];
	int n = 0;
	const char *line = text;

	snprintf(pat, sizeof(pat), "%s=\"", key);
	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *v, *e;
		char val[128];
		int i;

		if (strncmp(line, name, strlen(name)) || line[strlen(name)] != '{')
			continue;
		if (!(v = strstr(line, pat)) || (strchr(line, '\n') && v > strchr(line, '\n')))
			continue;
		v += strlen(pat);
		e = strchr(v, '"');
		snprintf(val, sizeof(val), "%.*s", (int)(e - v), v);
		for (i = 0; i < n && strcmp(seen[i], val); i++)
			;
		if (i == n && n < 256)
			snprintf(seen[n++], sizeof(seen[0]), "%s", val);
	}
	return n;
}

/* Whether sample name belongs to family cur of type: itself, or a histogram's series. */
static bool of_family(const char *name, const char *cur, const char *type)
{
	size_t n = strlen(cur);

	if (!strcmp(name, cur))
		return true;
	return !strcmp(type, "histogram") && !strncmp(name, cur, n) &&
	       (!strcmp(name + n, "_bucket") || !strcmp(name + n, "_count"));
}

/* HELP/TYPE before samples, once per family; counters end in _total; sane sample lines. */
static void check_format(const char *text, const char *what)
{
	char fam[64][128] = { { 0 } }, cur[128] = "", type[32] = "";
	int nr = 0, bad_order = 0, dup = 0, bad_counter = 0, bad_sample = 0, orphan = 0;
	const char *line = text;

	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char name[128];
		int len = strchr(line, '\n') ? (int)(strchr(line, '\n') - line) : (int)strlen(line);

		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%127s", name);
			for (int i = 0; i < nr; i++)
				dup += !strcmp(fam[i], name);
			if (nr < 64)
				snprintf(fam[nr++], sizeof(fam[0]), "%s", name);
			snprintf(cur, sizeof(cur), "%s", name);
			/* the TYPE line must follow */
			line = strchr(line, '\n') + 1;
			if (sscanf(line, "# TYPE %127s %31s", name, type) != 2 || strcmp(name, cur))
				bad_order++;
			else if (!strcmp(type, "counter") &&
				 (strlen(cur) < 6 || strcmp(cur + strlen(cur) - 6, "_total")))
				bad_counter++;
			continue;
		}
		if (line[0] == '#') {
			bad_order++; /* a TYPE without its HELP, or a stray comment */
			continue;
		}
		sscanf(line, "%127[^{ ]", name);
		if (!of_family(name, cur, type))
			orphan++;
		/* name, optional {k="v",...}, one blank, a value */
		{
			const char *sp = memchr(line, '}', len) ? memchr(line, '}', len) : line;
			const char *val = memchr(sp, ' ', len - (sp - line));

			if (!val || val[1] == ' ' || val[1] == '\n' ||
			    (memchr(line, '{', len) && !memchr(line, '}', len)))
				bad_sample++;
		}
	}
	is_int(bad_order, 0, "%s: every HELP is followed by its TYPE, no stray comments", what);
	is_int(dup, 0, "%s: each family declared once", what);
	is_int(bad_counter, 0, "%s: counters end in _total", what);
	is_int(orphan, 0, "%s: every sample follows its own family's HELP/TYPE", what);
	is_int(bad_sample, 0, "%s: sample lines are name{labels} value", what);
	ok(nr >= 5, "%s: %d families", what, nr);
}

static void promtool(const char *text, const char *what)
{
	char path[512], cmd[1100];
	FILE *f;
	int r;

	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		skip("promtool not installed");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.prom", tap_tmpdir(), what);
	if (!(f = fopen(path, "w")))
		return;
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "promtool check metrics <'%s' >'%s.out' 2>&1", path, path);
	r = system(cmd);
	if (!ok(r == 0, "%s: promtool check metrics passes", what)) {
		snprintf(cmd, sizeof(cmd), "sed 's/^/# /' '%s.out'", path);
		if (system(cmd) != 0)
			diag("cannot show promtool's output");
	}
}

/* Value of the sample line that starts with prefix; -1 if none. */
static long long sample(const char *text, const char *prefix)
{
	const char *l = strstr(text, prefix);

	return l ? strtoll(l + strlen(prefix), NULL, 10) : -1;
}

/*
 * The latency histogram: cumulative buckets on hist.h's coarse bounds, +Inf equal to
 * _count, and a series only for groups that saw a wakeup.
 */
static void latency_histogram(void)
{
	struct sl_prom *p = sl_prom_new("h");
	char *text;

	window(p, "6.1.0", "pg", 3); /* 1, 8 and 15 us */
	window(p, "6.1.0", "pg", 2); /* 1 and 8 us */
	window(p, "6.1.0", "idle", 0);
	text = sl_prom_render(p, NULL, NULL);
	if (!ok(text, "latency: renders"))
		return;
	check_format(text, "latency");
	ok(strstr(text, "# TYPE schedlens_wakeup_latency_seconds histogram\n"),
	   "latency: a histogram");
	is_int(sample(text, "schedlens_wakeup_latency_seconds_bucket{host=\"h\",kernel=\"6.1.0\","
			    "group=\"pg\",le=\"0.000001\"} "),
	       0, "latency: none below 1 us");
	is_int(sample(text, "schedlens_wakeup_latency_seconds_bucket{host=\"h\",kernel=\"6.1.0\","
			    "group=\"pg\",le=\"0.000002\"} "),
	       2, "latency: two at 1 us");
	is_int(sample(text, "schedlens_wakeup_latency_seconds_bucket{host=\"h\",kernel=\"6.1.0\","
			    "group=\"pg\",le=\"0.000012\"} "),
	       4, "latency: four below 12 us (the 8 us ones)");
	is_int(sample(text, "schedlens_wakeup_latency_seconds_bucket{host=\"h\",kernel=\"6.1.0\","
			    "group=\"pg\",le=\"+Inf\"} "),
	       5, "latency: +Inf counts all five");
	is_int(sample(text, "schedlens_wakeup_latency_seconds_count{host=\"h\",kernel=\"6.1.0\","
			    "group=\"pg\"} "),
	       5, "latency: _count is +Inf's");
	is_int(distinct_label_values(text, "schedlens_wakeup_latency_seconds_bucket", "le"),
	       SL_HIST_COARSE, "latency: %d buckets", SL_HIST_COARSE);
	ok(!strstr(text, "group=\"idle\",le="), "latency: no series for a group without wakeups");
	promtool(text, "latency");
	free(text);
	sl_prom_free(p);
}

int main(void)
{
	struct sl_prom *p = sl_prom_new("host\"with\\odd\nname");
	struct sl_prom_process pp = { .events = 1000,
				      .runs_started = 1,
				      .recording = 1,
				      .db_bytes = 943718400,
				      .db_limit_bytes = 1073741824 };
	char buf[64], name[64];
	size_t len = 0;
	char *text;

	sl_prom_escape(buf, sizeof(buf), "a\\b\"c\nd");
	is_str(buf, "a\\\\b\\\"c\\nd", "escape: backslash, quote, newline");
	sl_prom_escape(buf, 6, "\"\"\"\"\"\"");
	ok(strlen(buf) < 6 && strlen(buf) % 2 == 0, "escape: truncation never splits an escape");
	sl_prom_escape(buf, sizeof(buf), "");
	is_str(buf, "", "escape: empty");

	latency_histogram();
	ok(p, "new");
	text = sl_prom_render(p, NULL, &len);
	ok(text && len == strlen(text), "an empty exposition renders");
	ok(text && strstr(text, "\nschedlens_unconfirmed_changes{host=\"host\\\"with\\\\odd"
				"\\nname\"} 0\n"),
	   "no comparison: no unconfirmed change");
	check_format(text ? text : "", "empty");
	free(text);

	window(p, "6.1.0", SL_GROUP_ALL, 100);
	window(p, "6.1.0", "post\"gres\\x", 50);
	for (int i = 0; i < 2 * SL_PROM_MAX_GROUPS; i++) {
		snprintf(name, sizeof(name), "grp%02d", i);
		window(p, "6.1.0", name, 1);
		window(p, "6.1.0", name, 1); /* a second window of a known group */
	}
	for (int k = 0; k < SL_PROM_MAX_KERNELS + 2; k++) {
		snprintf(name, sizeof(name), "6.%d.0-k", k + 2);
		window(p, name, SL_GROUP_ALL, 7);
	}
	sl_prom_set_process(p, "6.1.0", &pp);
	text = sl_prom_render(p, NULL, &len);
	ok(text, "render");
	if (!text)
		return done_testing();
	check_format(text, "loaded");
	ok(strstr(text, "group=\"post\\\"gres\\\\x\""), "group label escaped");
	ok(strstr(text, "host=\"host\\\"with\\\\odd\\nname\""), "host label escaped");
	ok(!strstr(text, "odd\nname"), "no raw newline inside a label");
	ok(strstr(text, "group=\"other\""), "groups past the budget are summed as 'other'");
	/* the rules' SchedlensDatabaseNearLimit divides the one by the other */
	ok(strstr(text, "# TYPE schedlens_db_limit_bytes gauge\n") &&
		   strstr(text, "\nschedlens_db_limit_bytes{host=\"host\\\"with\\\\odd\\nname\"} "
				"1073741824\n") &&
		   strstr(text, "\nschedlens_db_bytes{host=\"host\\\"with\\\\odd\\nname\"} "
				"943718400\n"),
	   "db size and its cap are gauges with the same labels");
	{
		int groups, kernels;

		groups = distinct_label_values(text, "schedlens_wakeups_total", "group");
		kernels = distinct_label_values(text, "schedlens_wakeups_total", "kernel");
		ok(groups > 0 && groups <= SL_PROM_MAX_GROUPS + 2,
		   "wakeups: %d group values (at most %d + '*' + 'other')", groups,
		   SL_PROM_MAX_GROUPS);
		ok(kernels > 0 && kernels <= SL_PROM_MAX_KERNELS,
		   "wakeups: %d kernels (at most %d)", kernels, SL_PROM_MAX_KERNELS);
		if (!groups)
			diag("no schedlens_wakeups_total{...} samples: metric renamed?");
	}
	promtool(text, "loaded");
	free(text);

	/* the newest comparison's verdicts, as sl_api_findings() returns them */
	{
		json_t *fj = json_pack(
			"{s:[{s:i, s:s, s:s, s:s, s:i, s:i, s:i}], s:[{s:i, s:s, s:s, s:s, s:f, "
			"s:f}]}",
			"comparisons", "id", 3, "baseline", "kernel=6.1", "candidate",
			"kernel=6.12", "verdict", "inconclusive", "inconclusive", 4, "equivalent",
			10, "unconfirmed", 2, "findings", "comparison_id", 3, "metric",
			"waker_same_share", "group", "postgres", "verdict", "change",
			"baseline_value", 46.5, "candidate_value", 27.0);

		text = sl_prom_render(p, fj, &len);
		ok(text && strstr(text, ",verdict=\"inconclusive\"} 4\n") &&
			   strstr(text, ",verdict=\"equivalent\"} 10\n") &&
			   strstr(text, ",verdict=\"change\"} 1\n"),
		   "findings gauge counts inconclusive and equivalent findings too");
		ok(text && strstr(text, "\nschedlens_unconfirmed_changes{host=\"host\\\"with\\\\odd"
					"\\nname\"} 2\n"),
		   "unconfirmed changes: a gauge of their own (they are inconclusive findings too)");
		ok(text &&
			   strstr(text,
				  "schedlens_comparison_verdict{host=\"host\\\"with\\\\odd\\nname\","
				  "comparison=\"3\",baseline=\"kernel=6.1\",candidate=\"kernel=6.12\","
				  "verdict=\"inconclusive\"} 1\n") &&
			   strstr(text, "candidate=\"kernel=6.12\",verdict=\"equivalent\"} 0\n"),
		   "the comparison's verdict as a state set, labelled with its sides");
		if (text) {
			check_format(text, "findings");
			promtool(text, "findings");
		}
		free(text);
		json_decref(fj);
	}
	sl_prom_free(p);
	sl_prom_free(NULL);
	return done_testing();
}
