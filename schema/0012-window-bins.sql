-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 12: the windows summed per run, group and 10-minute bin, so that a
-- question about a whole run (or whole bins of it) reads a few hundred rows instead of
-- every 1 s window (a 7-day run has 604,800 per group). Documented in schema/README.md.
--
-- window_bins: one row per (run, group, bin), bin_ns = start_ns - start_ns % 600 s (on the
--   run's trace clock); windows, first_ns and last_ns: how many windows the bin sums and the
--   first and last one's start_ns; every counter of windows summed (lat_p50_ns and
--   lat_p99_ns: the largest of the bin's windows'), lat_hist: their histograms merged.
--   Written when a run ends (lib/store/store-bins.c), all of the run's bins at once; a run
--   with no rows here (a live run, one that was killed) is read from its windows.
-- The migration fills them for every run already stored, after this file, in its
-- transaction: in C (store-bins.c), which merges the histograms and sums one bin at a time
-- (an INSERT ... SELECT ... GROUP BY here sorted every window in memory first).
CREATE TABLE window_bins (
	run_id INTEGER NOT NULL,
	grp TEXT NOT NULL,
	bin_ns INTEGER NOT NULL,
	windows INTEGER NOT NULL,
	first_ns INTEGER NOT NULL,
	last_ns INTEGER NOT NULL,
	dur_ns INTEGER NOT NULL,
	events INTEGER NOT NULL,
	wakeups INTEGER NOT NULL,
	wakeups_new INTEGER NOT NULL,
	prev_same INTEGER NOT NULL,
	prev_smt INTEGER NOT NULL,
	prev_llc INTEGER NOT NULL,
	prev_package INTEGER NOT NULL,
	prev_remote INTEGER NOT NULL,
	prev_unknown INTEGER NOT NULL,
	waker_same INTEGER NOT NULL,
	waker_smt INTEGER NOT NULL,
	waker_llc INTEGER NOT NULL,
	waker_package INTEGER NOT NULL,
	waker_remote INTEGER NOT NULL,
	waker_unknown INTEGER NOT NULL,
	state_idle INTEGER NOT NULL,
	state_busy INTEGER NOT NULL,
	state_claimed INTEGER NOT NULL,
	state_unknown INTEGER NOT NULL,
	missed_idle INTEGER NOT NULL,
	missed_smt INTEGER NOT NULL,
	stacked INTEGER NOT NULL,
	migrations INTEGER NOT NULL,
	switches INTEGER NOT NULL,
	preempt_wakeup INTEGER NOT NULL,
	preempt_tick INTEGER NOT NULL,
	preempt_same_group INTEGER NOT NULL,
	lhp_count INTEGER NOT NULL,
	lhp_cost_ns INTEGER NOT NULL,
	hub_preemptions INTEGER NOT NULL,
	lost_events INTEGER NOT NULL,
	policy_known INTEGER NOT NULL,
	pol_prev_idle INTEGER NOT NULL,
	pol_affine INTEGER NOT NULL,
	pol_llc_scan INTEGER NOT NULL,
	pol_buddy INTEGER NOT NULL,
	pol_smt_first INTEGER NOT NULL,
	spin_count INTEGER NOT NULL,
	spin_cost_ns INTEGER NOT NULL,
	lat_count INTEGER NOT NULL,
	lat_p50_ns INTEGER,
	lat_p99_ns INTEGER,
	lat_hist BLOB NOT NULL,
	PRIMARY KEY (run_id, grp, bin_ns)
) WITHOUT ROWID;
