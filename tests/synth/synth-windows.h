/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Window-level synthetic runs for calibrating the comparison: instead of simulating a
 * scheduler (synth.h), draws each window's counts of groups "*" and "postgres" from a
 * model with a run-level random effect. Every share gets its own run effect on the logit
 * scale and every rate its own on the log scale (normal, sd run_sd), then a window effect
 * (sd window_sd), then binomial or Poisson counts. Two runs of one configuration differ
 * as two real runs do: by more than their windows alone say. Known effects (shift_pts on
 * the waker-placement shares, lhp_factor on lock-holder preemption) give power.
 */
#ifndef SYNTH_WINDOWS_H
#define SYNTH_WINDOWS_H

#include <stdint.h>

#include "store.h"

struct synth_win_config {
	const char *kernel_release; /* required */
	const char *workload; /* NULL: "synth-windows" */
	uint64_t seed;
	int windows; /* per group; 20 */
	uint64_t window_ns; /* 1 s */
	double wakeups; /* mean wakeups of postgres per window: 2000 */
	double run_sd; /* run effect, logit or log scale: 0.10 (about 2.5 pts at 45%) */
	double window_sd; /* window effect: 0.10 */
	double shift_pts; /* added to postgres' waker-same share (points, moved from llc) */
	double lhp_factor; /* multiplies postgres' lock-holder preemption rate: 1 */
	double waker_same; /* > 0: postgres' waker-same share of this run, exactly (no run
			    * effect), in percent */
	double warmup; /* a warm-up every run repeats: every share and rate ramps linearly by
			* this much on the logit/log scale from the first window to the last
			* (the lab's pgbench: postgres' waker-same share 5% -> 44% in one run,
			* 29.0% and 28.8% for two runs' values); 0: stationary windows */
	double small_group; /* > 0: also a group "kworker" with this fraction of postgres'
			     * events (its own run effects); 0: none */
};

void synth_win_default(struct synth_win_config *cfg);

/*
 * Adds one run to the store (opened read-write) on a fixed synthetic host; *ret_run_id
 * is its id. 0 or a negative code with a message.
 */
int synth_win_to_store(struct sl_store *store, const struct synth_win_config *cfg,
		       int64_t *ret_run_id);

#endif
