// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metric table of the comparison and the arithmetic and wording around it (see
 * metrics.h). A change must be at least its metric's floor, in the display unit, to be
 * flagged, whatever its significance. Shares and latencies have absolute floors (a share is
 * already relative to the group's activity); counting rates have a floor relative to the
 * group's switch-outs per second with a small absolute least value; costs (ms of waiting
 * per s) are absolute: 0.5 ms/s is 0.05% of one CPU's time. docs/metrics.md lists them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"

/* The optional last argument of a row: PRIMARY or HEADLINE (metrics.h). */
#define SHARE(n, nu, de, pol, fl, t, ...)                                            \
	{                                                                            \
		.name = n, .kind = SL_MK_SHARE, .num = nu, .den = de, .unit = "%",   \
		.polarity = pol, .floor = fl, .min_den = 200, .text = t, __VA_ARGS__ \
	}
#define RATE(n, nu, sc, u, pol, fl, ps, t, ...)                                             \
	{                                                                                   \
		.name = n, .kind = SL_MK_RATE, .num = nu, .den = SL_WC_DUR_NS, .scale = sc, \
		.unit = u, .polarity = pol, .floor = fl, .per_switch = ps, .min_den = 0,    \
		.text = t, __VA_ARGS__                                                      \
	}
#define QUANT(n, qq, fl, t, ...)                                                                  \
	{                                                                                         \
		.name = n, .kind = SL_MK_QUANTILE, .den = SL_WC_LAT_COUNT, .q = qq, .unit = "us", \
		.polarity = SL_MPOL_WORSE_UP, .floor = fl, .min_den = 200, .text = t, __VA_ARGS__ \
	}
/*
 * PRIMARY: the small primary (Holm) family, one headline metric per question the product
 * answers (idle CPUs missed, placement relative to the waker, latency, preemption,
 * lock-holder preemption); near-duplicates (policy_affine_share measures almost what
 * waker_same_share does) stay secondary (FDR). HEADLINE: secondary, but shown beside them
 * without --all. Both are the dashboard's headline metrics.
 */
#define PRIMARY .primary = true, .headline = true
#define HEADLINE .headline = true

#define UP SL_MPOL_WORSE_UP
#define NEUTRAL SL_MPOL_NEUTRAL

const struct sl_metric sl_metrics[] = {
	/* target-CPU choice */
	SHARE("missed_idle_rate", SL_WC_MISSED_IDLE, SL_WC_KNOWN_STATE, UP, 2.0,
	      "wakeups of {g} landed on a busy CPU while an idle CPU sat in the same LLC in {v} "
	      "of wakeups",
	      PRIMARY),
	SHARE("missed_smt_rate", SL_WC_MISSED_SMT, SL_WC_KNOWN_STATE, UP, 2.0,
	      "wakeups of {g} landed on a busy CPU while its SMT sibling was idle in {v} of "
	      "wakeups"),
	SHARE("stacking_rate", SL_WC_STACKED, SL_WC_KNOWN_STATE, UP, 1.0,
	      "wakeups of {g} were stacked onto an idle CPU another wakee had already claimed in "
	      "{v} of wakeups"),
	SHARE("prev_same_share", SL_WC_PREV_SAME, SL_WC_PREV_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed on the CPU the task last ran on"),
	SHARE("prev_smt_share", SL_WC_PREV_SMT, SL_WC_PREV_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed on the SMT sibling of the task's previous CPU"),
	SHARE("prev_llc_share", SL_WC_PREV_LLC, SL_WC_PREV_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed on another core of the previous CPU's LLC"),
	SHARE("prev_package_share", SL_WC_PREV_PACKAGE, SL_WC_PREV_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed in another LLC of the previous CPU's package"),
	SHARE("prev_remote_share", SL_WC_PREV_REMOTE, SL_WC_PREV_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed on another package than the previous CPU's"),
	SHARE("waker_same_share", SL_WC_WAKER_SAME, SL_WC_WAKER_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed on the waker's CPU", PRIMARY),
	SHARE("waker_smt_share", SL_WC_WAKER_SMT, SL_WC_WAKER_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed on the SMT sibling of the waker's CPU"),
	SHARE("waker_llc_share", SL_WC_WAKER_LLC, SL_WC_WAKER_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed on another core of the waker's LLC"),
	SHARE("waker_package_share", SL_WC_WAKER_PACKAGE, SL_WC_WAKER_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed in another LLC of the waker's package"),
	SHARE("waker_remote_share", SL_WC_WAKER_REMOTE, SL_WC_WAKER_KNOWN, NEUTRAL, 2.0,
	      "{v} of wakeups of {g} were placed on another package than the waker's"),
	QUANT("latency_p50", 0.5, 5.0, "the median wakeup latency of {g} was {v}", PRIMARY),
	QUANT("latency_p99", 0.99, 50.0, "the 99th-percentile wakeup latency of {g} was {v}",
	      HEADLINE),
	/* preemption and lock-holder preemption */
	SHARE("preempt_share", SL_WC_PREEMPT_ALL, SL_WC_SWITCHES, UP, 2.0,
	      "{v} of the switch-outs of {g} were preemptions of a still runnable task", PRIMARY),
	RATE("preempt_wakeup_rate", SL_WC_PREEMPT_WAKEUP, 1, "/s", UP, 1.0, 0.02,
	     "preemptions of {g} by woken tasks ran at {v}"),
	RATE("preempt_tick_rate", SL_WC_PREEMPT_TICK, 1, "/s", UP, 1.0, 0.02,
	     "preemptions of {g} at the tick or by the balancer ran at {v}"),
	RATE("same_group_preempt_rate", SL_WC_PREEMPT_SAME, 1, "/s", UP, 1.0, 0.02,
	     "preemptions of {g} by a task of the same group ran at {v}"),
	RATE("lhp_rate", SL_WC_LHP_COUNT, 1, "/s", UP, 0.1, 0.0005,
	     "preemptions of lock holders of {g} while others waited on them ran at {v}"),
	RATE("lhp_cost", SL_WC_LHP_COST_NS, 1e-6, "ms/s", UP, 0.5, 0,
	     "preempted lock holders of {g} kept their waiters waiting {v}", PRIMARY),
	RATE("hub_preempt_rate", SL_WC_HUB_PREEMPT, 1, "/s", UP, 0.1, 0.0005,
	     "preemptions of hubs of {g} (tasks that wake many others) ran at {v}"),
	RATE("spin_lhp_rate", SL_WC_SPIN_COUNT, 1, "/s", UP, 0.1, 0.0005,
	     "preemptions of {g} while others of it spun or backed off by timer ran at {v}"),
	RATE("spin_lhp_cost", SL_WC_SPIN_COST_NS, 1e-6, "ms/s", UP, 0.5, 0,
	     "preempted lock holders of {g} kept spinning waiters waiting {v}"),
	RATE("migration_rate", SL_WC_MIGRATIONS, 1, "/s", NEUTRAL, 1.0, 0.05,
	     "migrations of {g} ran at {v}"),
	/* policy fingerprint */
	SHARE("policy_prev_idle_share", SL_WC_POL_PREV_IDLE, SL_WC_POLICY_KNOWN, NEUTRAL, 2.0,
	      "the prev-if-idle policy would have chosen the kernel's CPU for {v} of wakeups of "
	      "{g}"),
	SHARE("policy_affine_share", SL_WC_POL_AFFINE, SL_WC_POLICY_KNOWN, NEUTRAL, 2.0,
	      "the affine-to-waker policy would have chosen the kernel's CPU for {v} of wakeups "
	      "of {g}"),
	SHARE("policy_llc_scan_share", SL_WC_POL_LLC_SCAN, SL_WC_POLICY_KNOWN, NEUTRAL, 2.0,
	      "the full-LLC-scan policy would have chosen the kernel's CPU for {v} of wakeups of "
	      "{g}"),
	SHARE("policy_buddy_share", SL_WC_POL_BUDDY, SL_WC_POLICY_KNOWN, NEUTRAL, 2.0,
	      "the 3.6 buddy rule would have chosen the kernel's CPU for {v} of wakeups of {g}"),
	SHARE("policy_smt_first_share", SL_WC_POL_SMT_FIRST, SL_WC_POLICY_KNOWN, NEUTRAL, 2.0,
	      "the idle-core-first policy would have chosen the kernel's CPU for {v} of wakeups "
	      "of {g}"),
};

const size_t sl_nr_metrics = sizeof(sl_metrics) / sizeof(sl_metrics[0]);

bool sl_metric_primary(const struct sl_metric *m)
{
	return m->primary;
}

const struct sl_metric *sl_metric_find(const char *name)
{
	for (size_t i = 0; i < sl_nr_metrics; i++)
		if (!strcmp(sl_metrics[i].name, name))
			return &sl_metrics[i];
	return NULL;
}

double sl_metric_floor(const struct sl_metric *m, double switch_rate)
{
	double rel = switch_rate > 0 ? m->per_switch * switch_rate : 0;

	return rel > m->floor ? rel : m->floor;
}

const char *sl_polarity_name(enum sl_polarity p)
{
	switch (p) {
	case SL_MPOL_WORSE_UP:
		return "worse_up";
	case SL_MPOL_WORSE_DOWN:
		return "worse_down";
	default:
		return "neutral";
	}
}

/* The metric columns that are sums of a range of counters, and the range. */
static const struct {
	enum sl_wcol col, first, last;
} sums[] = {
	{ SL_WC_KNOWN_STATE, SL_WC_STATE_IDLE, SL_WC_STATE_CLAIMED },
	{ SL_WC_PREV_KNOWN, SL_WC_PREV_SAME, SL_WC_PREV_REMOTE },
	{ SL_WC_WAKER_KNOWN, SL_WC_WAKER_SAME, SL_WC_WAKER_REMOTE },
	{ SL_WC_PREEMPT_ALL, SL_WC_PREEMPT_WAKEUP, SL_WC_PREEMPT_TICK },
};

void sl_metrics_columns(const struct sl_window_rec *w, double *c)
{
	c[SL_WC_DUR_NS] = (double)w->dur_ns;
	for (int i = 0; i < SL_WIN_NR; i++)
		c[SL_WC_EVENTS + i] = (double)SL_WIN_CVALUE(w, i);
	for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++) {
		c[sums[k].col] = 0;
		for (int i = sums[k].first; i <= (int)sums[k].last; i++)
			c[sums[k].col] += c[i];
	}
	c[SL_WC_LAT_COUNT] = (double)w->latency.total;
}

size_t sl_wcol_columns(enum sl_wcol col, const char **ret_cols, size_t max)
{
	size_t n = 0;

	if (col == SL_WC_DUR_NS || col == SL_WC_LAT_COUNT) {
		if (max)
			ret_cols[n++] = col == SL_WC_DUR_NS ? "dur_ns" : "lat_count";
		return n;
	}
	if (col >= SL_WC_EVENTS && col < SL_WC_EVENTS + SL_WIN_NR) {
		if (max)
			ret_cols[n++] = sl_window_counters[col - SL_WC_EVENTS].column;
		return n;
	}
	for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++)
		if (sums[k].col == col)
			for (int i = sums[k].first; i <= (int)sums[k].last && n < max; i++)
				ret_cols[n++] = sl_window_counters[i - SL_WC_EVENTS].column;
	return n;
}

_Static_assert(SL_WC_KNOWN_STATE == SL_WC_EVENTS + SL_WIN_NR, "one SL_WC_ per counter");

double sl_metric_value(const struct sl_metric *m, const double *s, const struct sl_hist *lat)
{
	switch (m->kind) {
	case SL_MK_SHARE:
		return s[m->den] > 0 ? 100.0 * s[m->num] / s[m->den] : NAN;
	case SL_MK_RATE:
		return s[SL_WC_DUR_NS] > 0 ? s[m->num] * m->scale / (s[SL_WC_DUR_NS] / 1e9) : NAN;
	case SL_MK_QUANTILE:
		return lat && lat->total ? (double)sl_hist_quantile_ns(lat, m->q) / 1e3 : NAN;
	}
	return NAN;
}

/* Column col of the metric table, summed from the windows columns it is made of. */
static double named_column(enum sl_wcol col, double (*get)(void *ctx, const char *col), void *ctx)
{
	const char *cols[SL_WC_COUNT];
	size_t n = sl_wcol_columns(col, cols, SL_WC_COUNT);
	double v = 0;

	for (size_t i = 0; i < n; i++)
		v += get(ctx, cols[i]);
	return v;
}

double sl_metric_value_named(const struct sl_metric *m, double (*get)(void *ctx, const char *col),
			     void *ctx)
{
	double s[SL_WC_COUNT] = {};

	if (m->kind == SL_MK_QUANTILE)
		return NAN;
	s[m->num] = named_column(m->num, get, ctx);
	s[m->den] = named_column(m->den, get, ctx);
	s[SL_WC_DUR_NS] = named_column(SL_WC_DUR_NS, get, ctx);
	return sl_metric_value(m, s, NULL);
}

void sl_metric_format(const struct sl_metric *m, double v, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else if (m->kind == SL_MK_SHARE)
		snprintf(buf, size, "%.1f%%", v);
	else if (m->kind == SL_MK_QUANTILE)
		snprintf(buf, size, "%.0f us", v);
	else if (!strcmp(m->unit, "ms/s"))
		snprintf(buf, size, "%.2f ms/s", v);
	else
		snprintf(buf, size, "%.1f/s", v);
}

/* A delta in the metric's unit with its sign: "+28.9 pts", "-3.20 ms per s". */
static void format_delta(const struct sl_metric *m, double d, char *buf, size_t size)
{
	char v[32];

	if (m->kind == SL_MK_SHARE) {
		snprintf(buf, size, "%+.1f pts", d);
		return;
	}
	sl_metric_format(m, fabs(d), v, sizeof(v));
	snprintf(buf, size, "%s%s", d < 0 ? "-" : "+", v);
}

static void range_text(const struct sl_metric *m, double lo, double hi, char *buf, size_t size)
{
	int prec = m->kind == SL_MK_SHARE || !strcmp(m->unit, "/s") ? 1 :
		   m->kind == SL_MK_QUANTILE			    ? 0 :
								      2;

	snprintf(buf, size, "%.*f..%.*f", prec, lo, prec, hi);
}

/* Decimals for a ratio of at least 1.5: two significant digits, none from 10 up. */
static int ratio_digits(double r)
{
	return r < 9.95 ? 1 : 0;
}

void sl_metric_explain(const struct sl_metric *m, const char *grp, double base, double cand,
		       double lo, double hi, double level, char *buf, size_t size)
{
	char g[SL_GROUP_LEN + 16], v[32], was[32], d[40], rel[32] = "", ci[64];
	size_t o = 0;

	if (!strcmp(grp, SL_GROUP_ALL))
		snprintf(g, sizeof(g), "all tasks");
	else
		snprintf(g, sizeof(g), "%.*s", SL_GROUP_LEN - 1, grp);
	sl_metric_format(m, cand, v, sizeof(v));
	sl_metric_format(m, base, was, sizeof(was));
	format_delta(m, cand - base, d, sizeof(d));
	/* a large change reads best as a ratio: "2.8x as often", "3.1x less often", "580x
	 * as long" (%.2g alone printed "5.8e+02x") */
	if (base > 0 && cand > 0 && (cand / base >= 1.5 || base / cand >= 1.5))
		snprintf(rel, sizeof(rel), ", %.*fx %s",
			 ratio_digits(fmax(cand / base, base / cand)),
			 fmax(cand / base, base / cand),
			 m->kind == SL_MK_QUANTILE || !strcmp(m->unit, "ms/s") ?
				 (cand > base ? "as long" : "shorter") :
				 (cand > base ? "as often" : "less often"));
	else if (m->kind != SL_MK_SHARE && base > 0)
		snprintf(rel, sizeof(rel), " (%+.0f%%)", 100 * (cand - base) / base);
	range_text(m, lo, hi, ci, sizeof(ci));
	for (const char *t = m->text; *t && o + 1 < size;) {
		const char *sub = NULL;

		if (!strncmp(t, "{g}", 3))
			sub = g;
		else if (!strncmp(t, "{v}", 3))
			sub = v;
		if (sub) {
			o += (size_t)snprintf(buf + o, size - o, "%s", sub);
			if (o >= size)
				o = size - 1;
			t += 3;
		} else {
			buf[o++] = *t++;
		}
	}
	buf[o] = 0;
	snprintf(buf + o, size - o, " (was %s, %s%s, %.3g%% CI %s)", was, d, rel, 100 * level, ci);
}
