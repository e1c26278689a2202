/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel-vs-kernel comparison (docs/statistics.md): selects a baseline and a
 * candidate set of runs (by kernel release, by run ids, or the previous kernel against
 * the current one for a workload label), loads their windows, and tests every metric of
 * lib/common/metrics.h for every group with a moderated t on run values: within-run variance from
 * a block bootstrap of each run's windows, run-to-run variance from the runs (and the
 * compared kernels' other runs), shrunk toward the database's history of comparable runs
 * or an empirical-Bayes prior over all metrics.
 * Primary metrics are Holm-adjusted, secondary ones Benjamini-Hochberg. A metric is flagged
 * when significant, past the relative threshold and past its floor; equivalent when its
 * interval lies within that margin; inconclusive otherwise. The comparison and its
 * findings can be stored (tables comparisons, comparison_runs, findings) and read back.
 */
#ifndef SL_COMPARE_H
#define SL_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "records.h"
#include "store.h"
#include "store-query.h"

enum sl_verdict {
	SL_V_REGRESSION, /* significant, large enough, in the metric's bad direction */
	SL_V_IMPROVEMENT, /* ... in its good direction */
	SL_V_CHANGE, /* ... of a neutral metric */
	SL_V_EQUIVALENT, /* the 95% interval lies within the threshold and floor: no change */
	SL_V_INCONCLUSIVE, /* neither flagged nor equivalent: more runs needed */
	SL_V_INSUFFICIENT, /* too few windows or events: no verdict */
};

/*
 * "regression", "improvement", "change", "equivalent", "inconclusive", "insufficient_data"
 * (stored comparisons from before schema 8 may also say "no_change").
 */
const char *sl_verdict_name(enum sl_verdict v);

struct sl_compare_opts {
	/* selection: kernels, or run ids, or neither (previous kernel vs current) */
	const char *baseline_kernel, *candidate_kernel;
	const int64_t *baseline_runs, *candidate_runs;
	int nr_baseline_runs, nr_candidate_runs;
	const char *label; /* workload label; NULL: the candidate's newest run's */
	/* filters on the baseline's [0] and the candidate's [1] runs, selecting by kernel
	 * only (both kernels given; they may then be one kernel when the filters differ):
	 * a side's runs pass all of its filters (store-query.h), at most SL_RUN_WHERE_MAX */
	const struct sl_run_where *where[2];
	int nr_where[2];
	bool force; /* allow runs of other topologies or labels */
	const char *const *groups; /* NULL: every group both sides have windows of */
	int nr_groups;
	uint64_t segment_ns; /* cut runs into segments this long that serve as runs; 0: no */

	/* statistics (sl_compare_opts_default) */
	uint64_t seed; /* 1 */
	int resamples; /* bootstrap resamples, 1000 (at most 400 per run's within variance) */
	double alpha; /* primary family Holm, secondary BH: 0.01 */
	double ci_level; /* the intervals' confidence level; equivalent when the interval lies
			  * within the margin: 0.95 (schedlens lab ab raises it per look) */
	double rel_threshold; /* |relative change| to flag: 0.10 */
	double floor_scale; /* multiplies every metric's absolute floor: 1 */
	double single_run_factor; /* no run-to-run variance known at all (one run a side and no
				   * history): intervals widened this much: 3 */
	int history_runs; /* comparable runs outside the comparison used for the variance
			   * prior, at most: 24; 0: none */
	size_t block_len; /* windows per moving block; 0: cube root of the run's windows */
	size_t min_windows; /* per side and group, fewer is insufficient data: 10 */
	bool store; /* write the comparison and its findings (store opened read-write) */
};

void sl_compare_opts_default(struct sl_compare_opts *o);

struct sl_finding {
	const struct sl_metric *metric;
	char grp[SL_GROUP_LEN];
	double base, cand; /* pooled values in the metric's display unit; NAN if unknown */
	double delta, rel; /* cand - base, and over base (INFINITY when base is 0) */
	double ci_lo, ci_hi; /* 95% interval of delta (moderated t) */
	double p, p_adj; /* moderated-t p-value, adjusted in its family; NAN when not tested */
	double q; /* primary: p adjusted by Benjamini-Hochberg over the primary family (the
		   * false discovery rate at which it is a discovery); NAN otherwise */
	double df; /* degrees of freedom of the moderated t (prior + residual) */
	double floor; /* the metric's floor for this group's activity, x --floor-scale */
	double margin; /* max(relative threshold * |base|, floor): the equivalence margin */
	double severity; /* |delta| / margin */
	bool primary; /* in the primary (Holm) family, else the secondary (FDR) one */
	int runs_needed; /* inconclusive: runs a side likely to resolve it (99: 99 or more) */
	enum sl_verdict verdict;
	char explanation[400];
	/* the model's inputs (compare.c) */
	int n[2]; /* units a side */
	double s2, d; /* residual run-to-run variance of unit values, its df */
	double v; /* mean within-run (bootstrap) variance of one unit's value */
};

struct sl_cmp_side {
	char desc[256]; /* "kernel=6.1.0-50 runs=1,2" */
	char kernel[128]; /* the side's kernel release, or "mixed" */
	json_t *where; /* the side's filters as {key: value}, NULL without */
	int64_t *runs;
	int nr_runs;
	int units; /* runs, or segments with segment_ns */
	size_t windows; /* of group "*" */
};

struct sl_comparison {
	int64_t id; /* comparisons.id, -1 when not stored */
	struct sl_cmp_side side[2]; /* [0] baseline, [1] candidate */
	char label[128];
	char topo_hash[32];
	bool single_run; /* nothing known of run-to-run variance: intervals were widened */
	double single_run_factor; /* by this much (1 when not single_run) */
	double rel_threshold, floor_scale; /* as applied */
	uint64_t seed;
	int resamples;
	double alpha;
	double ci_level; /* as applied */
	enum sl_verdict verdict; /* regression > improvement > change > inconclusive >
				  * equivalent */
	int regressions, improvements, changes, insufficient, equivalent, inconclusive;
	int runs_needed; /* inconclusive: the most any primary finding needs */
	double prior_s02, prior_d0; /* the variance-ratio prior (s0^2, d0); d0 0: none */
	int prior_features; /* how many (group, metric) variances it was fitted on */
	char summary[512];
	int nr_notes;
	char notes[6][256];
	size_t nr_findings;
	struct sl_finding *findings; /* by group ("*" first), then metric table order */
};

/*
 * Selects, loads and tests; stores the result when o->store. On success *ret is a
 * comparison the caller frees with sl_comparison_free() (even when its verdict is
 * insufficient data). Errors: -SL_EUSAGE (nothing matches the selection, mixed topology
 * or labels without force, a run on both sides), -SL_EDB, -ENOMEM, with a message.
 */
int sl_compare(struct sl_store *store, const struct sl_compare_opts *o, struct sl_comparison **ret);

void sl_comparison_free(struct sl_comparison *c);

/* The flagged finding a reader should see first (worst verdict, then largest severity). */
const struct sl_finding *sl_comparison_top(const struct sl_comparison *c);

/*
 * Whether f is an unconfirmed change: a headline metric, inconclusive, that moved by its
 * margin or more with an interval that excludes 0, and a discovery at a false discovery
 * rate of SL_UNCONFIRMED_FDR among the headline metrics (f->q), but not significant after
 * its family's (family-wise) adjustment. More runs would likely flag it; with nothing
 * changed a comparison lists any with chance of about SL_UNCONFIRMED_FDR (nominally at
 * most; store-query.h). Every JSON finding carries it as "unconfirmed" (stored ones
 * through its SQL twin, SL_SQL_FINDING_UNCONFIRMED in store-query.h), so the CLI, the
 * dashboard and scripts never redefine it.
 */
bool sl_finding_unconfirmed(const struct sl_finding *f);

/* The comparison as a JSON object (new reference; NULL on allocation failure). */
json_t *sl_comparison_to_json(const struct sl_comparison *c);

/*
 * Stored comparisons, newest first, at most limit (0: 50), as a JSON array of objects
 * (id, created_wall, baseline, candidate, verdict, summary, ci_level, unconfirmed_fdr and
 * the numbers of inconclusive, equivalent and unconfirmed findings). New reference in *ret.
 */
int sl_compare_list(struct sl_store *store, int limit, json_t **ret);

/*
 * One stored comparison with its runs and findings (all, or only the flagged ones), as a
 * JSON object like sl_comparison_to_json()'s. -ENOENT if there is no such comparison.
 */
int sl_compare_load(struct sl_store *store, int64_t id, bool flagged_only, json_t **ret);

/*
 * For an automatic comparison (the daemon): is a comparison of run_id's kernel still owed?
 * The baseline is the kernel of the newest earlier run on another kernel with run_id's
 * label and topology hash; the comparison is owed while no stored comparison has a run of
 * that kernel on its baseline side and a run of run_id's kernel (same label and topology)
 * on its candidate side. Deciding from the database, not from what one process saw, a
 * crash before comparing is made good by the next start on the same kernel. Sets *ret_owed
 * and, when owed, the baseline kernel in buf. 0 or -SL_EDB with a message.
 */
int sl_compare_owed(struct sl_store *store, int64_t run_id, char *buf, size_t size, bool *ret_owed);

/*
 * Repeated looks (lib/compare/compare-seq.c): sets o's alpha and interval level for one of at most
 * max_looks looks, so that the whole sequence keeps the level o had (Bonferroni).
 */
void sl_compare_spend(struct sl_compare_opts *o, int max_looks);

/* Primary findings neither flagged nor equivalent (inconclusive or insufficient data). */
int sl_comparison_open(const struct sl_comparison *c);

enum sl_seq_next {
	SL_SEQ_MORE, /* another pair of runs may close what is open */
	SL_SEQ_CONCLUSIVE, /* every primary metric flagged or equivalent */
	SL_SEQ_FUTILE, /* every open one needs more runs a side than max_runs (runs_needed) */
	SL_SEQ_BUDGET, /* runs_a_side has reached max_runs */
};

/* What a sequential experiment does after a look at runs_a_side runs of at most max_runs. */
enum sl_seq_next sl_compare_next(const struct sl_comparison *c, int runs_a_side, int max_runs);

const char *sl_seq_next_name(enum sl_seq_next n);

#endif
