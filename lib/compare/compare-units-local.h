/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A comparison's data as compare.c loads it (a group's windows per side, in units: a run
 * or a segment of one) and the within-run moving-block bootstrap over it (compare-boot.c),
 * private to lib/compare/.
 */
#ifndef SL_COMPARE_UNITS_LOCAL_H
#define SL_COMPARE_UNITS_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "stats.h"

#define NC SL_WC_COUNT
#define MAX_METRICS 64

/*
 * A run with at least this many 10-minute bins of window_bins (about 17 hours) is loaded
 * and resampled by its bins instead of its 1 s windows (docs/statistics.md): two 7-day
 * runs have 4.8 M windows in four groups, and loading and resampling them took 35-41 s,
 * against about 8,000 bins. Blocks of cbrt(100) or more bins (50 minutes and up) still
 * leave 20 or more blocks for the variance, and keep the hour-scale ups and downs of a
 * day's load inside a block.
 */
#define CMP_MIN_BINS 100

/* One bucket of a window's (or a bin's) latency histogram, sparse. */
struct hbin {
	uint16_t bucket;
	uint32_t count;
};

/*
 * A run, or a segment of one: its windows of one group in time order (or its bins, each
 * the sums of up to 600 windows: n then counts bins).
 */
struct unit {
	int64_t run_id;
	uint64_t seg;
	size_t n, cap;
	double *cols; /* n * NC */
	size_t *hoff; /* window i's bins: bins[hoff[i] .. hoff[i + 1]) */
	struct hbin *bins;
	size_t nr_bins, cap_bins;
};

struct gside {
	struct unit *u;
	int nr;
	size_t windows;
};

struct group {
	char name[SL_GROUP_LEN];
	struct gside side[2];
};

/* Prefix sums of one unit: columns, and latency counts in the group's compact buckets. */
struct prefix {
	size_t n;
	double *c; /* (n + 1) * NC */
	double *h; /* (n + 1) * nb */
	size_t len; /* block length */
};

/*
 * Quantiles are found in two steps so a resample does not add up every histogram bucket
 * for every block: the prefix rows carry, after the NC columns, the counts of "super
 * bins" of SUPER compact buckets each; a quantile first finds its super bin from those
 * sums, then adds up only that super bin's buckets over the resample's blocks.
 */
#define SUPER 16

struct blk {
	const struct prefix *u;
	size_t s, len;
};

struct boot_ctx {
	const struct sl_compare_opts *o;
	const int *map; /* histogram bucket -> compact index, -1 if never used */
	const uint16_t *unmap; /* compact index -> bucket */
	int nb;
	int nsb; /* super bins */
	int width; /* NC + nsb: a prefix row */
};

/* Maps the histogram buckets either side of g uses to compact indices for the bootstrap. */
void cmp_ctx_init(const struct sl_compare_opts *o, const struct group *g, int *map, uint16_t *unmap,
		  struct boot_ctx *bc);
/*
 * Observed metric values of one side into obs[m], and B resamples into boot[m * B + i]
 * (B 0: observed values only). sums_out gets the observed column sums (for the
 * minimum-denominator checks).
 */
int cmp_side_boot(const struct boot_ctx *b, const struct gside *gs, struct sl_rng *rng, int B,
		  double *obs, double *boot, double *sums_out);
/*
 * Every unit of gs on its own: its metric values y[i * MAX_METRICS + m] and the moving-block
 * bootstrap variance of each, w[...] (NAN when undefined): the within-run variance.
 */
int cmp_unit_stats(const struct boot_ctx *bc, const struct gside *gs, struct sl_rng *rng, double *y,
		   double *w);

/* Every group's windows of a comparison (compare.c). */
struct loaded {
	struct group *g;
	int nr;
};

/* Loads side's runs (their windows, grouped, in units) as side s of l. */
int cmp_load_side(struct sl_store *store, const struct sl_compare_opts *o, struct sl_cmp_side *side,
		  int s, struct loaded *l);
void cmp_free_loaded(struct loaded *l);
/* FNV-1a of a group name: each group's resamples get a seed of their own. */
uint64_t cmp_name_hash(const char *s);
/*
 * The random-effects model's inputs for metric m from the units of up to two sides: the
 * residual variance of unit values about their side's mean (*s2 on *d degrees of freedom)
 * and the mean within-run variance of one unit's value (*v). Units whose value is
 * undefined are left out.
 */
void cmp_unit_model(const double *const y[2], const double *const w[2], const int nr[2], size_t m,
		    int n_out[2], double *s2, double *d, double *v);

/* The history (compare-history.c). */
/*
 * A group's run-to-run variance in the history (own false: replicates of other
 * configurations) or in the compared configurations' own runs outside the comparison (own
 * true): sums of squares and df per metric.
 */
struct hgroup {
	char name[SL_GROUP_LEN];
	bool own;
	double ss[MAX_METRICS], df[MAX_METRICS];
};

/*
 * Variance-ratio features (s2 / v on d degrees of freedom) for the common prior, and the
 * history's pooled run-to-run variance per group and metric.
 */
struct features {
	double *r, *d;
	size_t n, cap;
	struct hgroup *hg;
	int nr_hg;
};

/* fs's history group of that name and kind; added (zeroed) when add, else NULL when absent. */
struct hgroup *cmp_find_hgroup(struct features *fs, const char *name, bool own, bool add);
/* A variance ratio s2 / v on d degrees of freedom for the prior (skipped when undefined). */
int cmp_add_feature(struct features *fs, double s2, double d, double v);
/*
 * The database's history: comparable runs (c's label and topology) outside the comparison,
 * newest first, at most o->history_runs. Where a side's runs are all of one configuration,
 * that configuration's runs outside the comparison with the side's params are the side's
 * replicates: their residuals into fs's own hgroups. Other configurations with two or more
 * such runs: features and the history's variance into fs. None with --force (no label or
 * topology) or with segments.
 */
int cmp_history_features(struct sl_store *store, const struct sl_compare_opts *o,
			 const struct sl_comparison *c, struct features *fs);

#endif
