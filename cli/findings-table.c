// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared findings table (findings-table.h). Baseline and candidate are shown in the
 * metric's display unit (sl_metric_format()) but carried raw to CSV and JSON. Flagged
 * findings come first, regressions before improvements before neutral changes, each kind
 * by severity (|change| over its margin), largest first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings-table.h"
#include "metrics.h"
#include "compare.h"

static const char *const flagged_order[] = { "regression", "improvement", "change" };

static const struct pr_col cols[] = {
	{ "verdict", "VERDICT" },
	{ "group", "GROUP" },
	{ "metric", "METRIC" },
	{ "baseline", "BASELINE", PR_REAL },
	{ "candidate", "CANDIDATE", PR_REAL },
	{ "delta", "DELTA", PR_REAL, "%.4g" },
	{ "rel_change", "CHANGE", PR_REAL },
	{ "p_adjusted", "P(ADJ)", PR_REAL, "%.2g" },
	{ "runs_needed", "RUNS?", PR_INT },
	{ "ci_low", "CI LOW", PR_REAL, "%.4g" },
	{ "ci_high", "CI HIGH", PR_REAL, "%.4g" },
	{ "unit", "UNIT" },
	{ "unconfirmed", "UNCONFIRMED", PR_BOOL, NULL, PR_NOTEXT },
	{ "explanation", "EXPLANATION", PR_STR, NULL, PR_BELOW },
};

static const char *verdict(json_t *f)
{
	return json_string_value(json_object_get(f, "verdict")) ?: "";
}

bool finding_flagged(json_t *f)
{
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(verdict(f), flagged_order[i]))
			return true;
	return false;
}

static void value(struct pr *p, const struct sl_metric *m, json_t *v)
{
	char buf[32];

	if (!m || !json_is_number(v)) {
		pr_json(p, v);
		return;
	}
	sl_metric_format(m, json_number_value(v), buf, sizeof(buf));
	pr_json_text(p, v, buf);
}

static void row(struct pr *p, json_t *f)
{
	const struct sl_metric *m =
		sl_metric_find(json_string_value(json_object_get(f, "metric")) ?: "");
	json_t *rel = json_object_get(f, "rel_change");
	char buf[32];

	pr_row(p);
	pr_json(p, json_object_get(f, "verdict"));
	pr_json(p, json_object_get(f, "group"));
	pr_json(p, json_object_get(f, "metric"));
	value(p, m, json_object_get(f, "baseline"));
	value(p, m, json_object_get(f, "candidate"));
	pr_json(p, json_object_get(f, "delta"));
	/* lib keeps a relative change from 0 as null (it is infinite) */
	if (json_is_number(rel))
		snprintf(buf, sizeof(buf), "%+.1f%%", 100 * json_number_value(rel));
	else
		snprintf(buf, sizeof(buf),
			 json_is_number(json_object_get(f, "delta")) ? "new" : "-");
	pr_json_text(p, rel, buf);
	pr_json(p, json_object_get(f, "p_adjusted"));
	pr_json(p, json_object_get(f, "runs_needed"));
	pr_json(p, json_object_get(f, "ci_low"));
	pr_json(p, json_object_get(f, "ci_high"));
	pr_json(p, json_object_get(f, "unit"));
	pr_json(p, json_object_get(f, "unconfirmed"));
	pr_json(p, json_object_get(f, "explanation"));
}

static double severity(json_t *f)
{
	json_t *v = json_object_get(f, "severity");

	return json_is_number(v) ? json_number_value(v) : -1;
}

static int by_severity(const void *a, const void *b)
{
	double x = severity(*(json_t *const *)a), y = severity(*(json_t *const *)b);

	return (x < y) - (x > y);
}

void print_findings(struct pr *p, json_t *findings, bool flagged_only)
{
	size_t n = json_array_size(findings), k;
	json_t **fl = malloc(sizeof(*fl) * (n ? n : 1));

	pr_table(p, "findings", NULL, cols, sizeof(cols) / sizeof(cols[0]), 0);
	for (size_t o = 0; o < 3; o++) {
		k = 0;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(verdict(json_array_get(findings, i)), flagged_order[o])) {
				if (fl)
					fl[k++] = json_array_get(findings, i);
				else
					row(p, json_array_get(findings, i));
			}
		if (fl) {
			/* qsort is not stable: ties keep no order, severities rarely tie */
			qsort(fl, k, sizeof(*fl), by_severity);
			for (size_t i = 0; i < k; i++)
				row(p, fl[i]);
		}
	}
	for (size_t i = 0; !flagged_only && i < n; i++)
		if (!finding_flagged(json_array_get(findings, i)))
			row(p, json_array_get(findings, i));
	pr_table_end(p);
	free(fl);
}

static double num(json_t *f, const char *key)
{
	json_t *v = json_object_get(f, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * Without them the report read "no metric changed significantly" over a 0.01 -> 4.95 ms/s
 * LHP cost that one more run a side would likely flag. They are discoveries at a false
 * discovery rate (lib: SL_UNCONFIRMED_FDR), not at the family-wise level: the heading
 * says so, and what that means when nothing changed.
 */
void print_unconfirmed(struct pr *p, json_t *c)
{
	json_t *fs = json_object_get(c, "findings");
	size_t n = json_array_size(fs), k = 0;
	json_t **u = malloc(sizeof(*u) * (n ? n : 1));
	double level = num(json_object_get(c, "params"), "ci_level");

	if (!u)
		return;
	for (size_t i = 0; i < n; i++)
		if (json_is_true(json_object_get(json_array_get(fs, i), "unconfirmed")))
			u[k++] = json_array_get(fs, i);
	qsort(u, k, sizeof(*u), by_severity);
	if (k) {
		pr_line(p, "%s", "");
		pr_line(p,
			"unconfirmed changes (headline metrics past their margin whose %.4g%% "
			"interval excludes 0, discoveries at a %.0f%% false discovery rate but not "
			"significant after the family-wise adjustment; with nothing changed, a "
			"comparison lists any with chance of about %.0f%%):",
			100 * level, 100 * SL_UNCONFIRMED_FDR, 100 * SL_UNCONFIRMED_FDR);
	}
	for (size_t i = 0; i < k; i++) {
		int runs = (int)json_integer_value(json_object_get(u[i], "runs_needed"));

		pr_line(p,
			"  %s (p %.3g, adjusted %.3g, q %.3g; about %d%s runs a side would likely "
			"resolve it)",
			json_string_value(json_object_get(u[i], "explanation")) ?: "",
			num(u[i], "p_value"), num(u[i], "p_adjusted"), num(u[i], "q_value"), runs,
			runs >= 99 ? "+" : "");
	}
	free(u);
}
