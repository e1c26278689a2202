/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The comparison's metric table: every metric `schedlens diff` tests, defined once as a
 * numerator and a denominator over window columns (or a quantile of the windows' latency
 * histograms), with its unit, polarity, absolute floor and the sentence that explains a
 * finding. The comparison, the CLI, the stored findings and README.md's table all follow
 * this one table (docs/metrics.md, docs/statistics.md).
 */
#ifndef SL_METRICS_H
#define SL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records.h"

#define SL_WC_ID(f, ID, doc, prom) SL_WC_##ID,
#define SL_WC_ID_E(idx, sfx, SFX, PREFIX) SL_WC_##PREFIX##_##SFX,
#define SL_WC_ID_A(f, n, NAMES, prefix, PREFIX, doc, prom) NAMES(SL_WC_ID_E, PREFIX)

/* Per-window columns the metrics are built from, summed over windows (never averaged). */
enum sl_wcol {
	SL_WC_DUR_NS,
	/* every window counter in window-counters.h's order: SL_WC_EVENTS ... SL_WC_SPIN_COST_NS */
	SL_WINDOW_COUNTERS(SL_WC_ID, SL_WC_ID_A)
	/* sums of consecutive counters (sums[] in metrics.c) */
	SL_WC_KNOWN_STATE, /* target state idle + busy + claimed */
	SL_WC_PREV_KNOWN, /* class_prev not unknown */
	SL_WC_WAKER_KNOWN,
	SL_WC_PREEMPT_ALL, /* preempt_wakeup + preempt_tick */
	SL_WC_LAT_COUNT,
	SL_WC_COUNT
};

enum sl_metric_kind {
	SL_MK_SHARE, /* sum(num) / sum(den), shown in percent; deltas in points */
	SL_MK_RATE, /* sum(num) * scale / (sum(dur_ns) / 1e9): per second */
	SL_MK_QUANTILE, /* quantile q of the merged latency histogram, in us */
};

/* Which direction is bad (the findings table's polarity column). */
enum sl_polarity {
	SL_MPOL_WORSE_UP, /* "worse_up": an increase is a regression */
	SL_MPOL_WORSE_DOWN, /* "worse_down": a decrease is a regression */
	SL_MPOL_NEUTRAL, /* "neutral": a change is reported, neither good nor bad */
};

struct sl_metric {
	const char *name; /* stable id, e.g. "missed_idle_rate" (findings.metric) */
	enum sl_metric_kind kind;
	enum sl_wcol num, den; /* SL_MK_SHARE: both; SL_MK_RATE: num; SL_MK_QUANTILE: den
				* (the count that must reach min_den) */
	double q; /* SL_MK_QUANTILE */
	double scale; /* SL_MK_RATE: multiplies num (1e-6 turns ns into ms) */
	const char *unit; /* "%", "/s", "ms/s", "us" */
	enum sl_polarity polarity;
	double floor; /* smallest |delta| that counts, in the display unit (pts for shares);
		       * for counting rates the least floor, see per_switch */
	double per_switch; /* counting rates (/s): the floor is also at least this fraction
			    * of the group's switch-outs per second, so it scales with the
			    * workload (a 600-tps guest and a 100 k-tps host); 0: absolute */
	double min_den; /* fewer than this (den summed per side) is insufficient data */
	/* The finding's sentence: "{g}" becomes the group phrase, "{v}" the candidate value. */
	const char *text;
	bool primary; /* in the primary (Holm) family; else secondary (FDR) */
	bool headline; /* shown without asking for all: diff's summary, the dashboard */
};

extern const struct sl_metric sl_metrics[];
extern const size_t sl_nr_metrics;

/* The metric named name, or NULL. */
const struct sl_metric *sl_metric_find(const char *name);

/* In the small primary (headline, Holm) family; the others are secondary (FDR). */
bool sl_metric_primary(const struct sl_metric *m);

/*
 * The metric's floor for a group that switches out switch_rate times per second (the mean
 * of both sides), before --floor-scale: max(floor, per_switch * switch_rate).
 */
double sl_metric_floor(const struct sl_metric *m, double switch_rate);

/* "worse_up", "worse_down", "neutral". */
const char *sl_polarity_name(enum sl_polarity p);

/* Fills cols[SL_WC_COUNT] from one window row. */
void sl_metrics_columns(const struct sl_window_rec *w, double *cols);

/*
 * The windows columns whose sum is metric column col ("missed_idle"; "state_idle",
 * "state_busy", "state_claimed" for SL_WC_KNOWN_STATE): up to max of them in ret_cols
 * (static strings); returns how many.
 */
size_t sl_wcol_columns(enum sl_wcol col, const char **ret_cols, size_t max);

/*
 * The metric's value from summed columns (and, for quantiles, a latency histogram),
 * in its display unit. NAN when the denominator is 0.
 */
double sl_metric_value(const struct sl_metric *m, const double *sums, const struct sl_hist *lat);

/*
 * The same for sums kept by column name (a stored row, a row of the API's JSON): get(ctx,
 * "missed_idle") returns that windows column summed. Shares and rates; NAN for a quantile,
 * which needs the histogram. Lets a view that is not a struct sl_window_rec divide by the
 * metric's own denominator rather than restating it.
 */
double sl_metric_value_named(const struct sl_metric *m, double (*get)(void *ctx, const char *col),
			     void *ctx);

/* Formats a value in the metric's unit ("31.0%", "1234.5/s", "2.31 ms/s", "42 us"). */
void sl_metric_format(const struct sl_metric *m, double v, char *buf, size_t size);

/*
 * The sentence of a finding, e.g. "wakeups of postgres landed on a busy CPU while an idle
 * CPU sat in the same LLC in 31.0% of wakeups (was 2.1%, +28.9 pts, 95% CI 27.5..30.2)";
 * level is the interval's confidence level (0.95).
 */
void sl_metric_explain(const struct sl_metric *m, const char *grp, double base, double cand,
		       double lo, double hi, double level, char *buf, size_t size);

#endif
