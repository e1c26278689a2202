/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Synthesizer runs into a schedlens database: the synthesized event stream goes through
 * a session (engine -> writer -> SQLite) exactly as a live recording does, labelled with
 * a workload and a made-up kernel release, so comparisons, `schedlens diff` and its tests
 * work on runs whose ground truth is known.
 */
#ifndef SYNTH_DB_H
#define SYNTH_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "synth.h"

struct synth_db_opts {
	const char *db_path; /* created if missing */
	const char *kernel_release; /* NULL: "synth-<policy>" */
	const char *workload; /* NULL: "synth-pgbench" */
	const char *hostname; /* NULL: "synth" */
	const char *params; /* runs.params as JSON text (what was run), NULL: none */
	const char *preempt_mode; /* runs.preempt_mode, NULL: none */
	uint64_t window_ns; /* engine window; 0: the engine's default (1 s) */
	bool windows_only; /* store windows (and tasks) only, as the daemon does */
};

/*
 * Runs cfg into the database; *ret_run_id (may be NULL) is the stored run, *ret_truth
 * (may be NULL; free with synth_truth_free()) the run's truth. Returns 0 or a negative
 * code with a message (sl_errmsg()).
 */
int synth_to_db(const struct synth_config *cfg, const struct synth_db_opts *o, int64_t *ret_run_id,
		struct synth_truth *ret_truth);

#endif
