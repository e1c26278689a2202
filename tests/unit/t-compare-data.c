// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seam between loading and testing (compare-local.h): windows handed to sl_cmp_data_add
 * unit by unit and tested by sl_cmp_test give exactly sl_compare()'s findings over the same
 * runs (every finding's verdict, values, p-value and interval, the verdict and the summary),
 * so the fleet diff (compare-prom.c) runs the local diff's statistics and not a copy. Also:
 * sl_cmp_data_add refuses a side that is neither 0 nor 1, and bad settings are refused.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../synth/synth-windows.h"
#include "compare-local.h"
#include "error.h"
#include "hist.h"
#include "store.h"
#include "tap.h"
#include "window-counters.h"

static int64_t win_run(struct sl_store *st, const char *kernel, uint64_t seed, double share)
{
	struct synth_win_config cfg;
	int64_t id = -1;

	synth_win_default(&cfg);
	cfg.kernel_release = kernel;
	cfg.seed = seed;
	cfg.waker_same = share;
	if (synth_win_to_store(st, &cfg, &id)) {
		diag("synth_win_to_store failed");
		exit(2);
	}
	return id;
}

/* The run's windows, as a loader outside compare.c would hand them over. */
static int add_run(struct sl_store *st, struct sl_cmp_data *d, int side, int64_t run)
{
	sqlite3_stmt *q;
	struct sl_window_rec *w = malloc(sizeof(*w));
	int err = 0;

	if (!w || sqlite3_prepare_v2(sl_store_db(st),
				     "SELECT grp, start_ns, dur_ns" SL_WINDOW_COLUMNS
				     ", lat_hist FROM windows WHERE run_id = ?1 ORDER BY grp, "
				     "start_ns",
				     -1, &q, NULL) != SQLITE_OK) {
		free(w);
		return -1;
	}
	sqlite3_bind_int64(q, 1, run);
	while (!err && sqlite3_step(q) == SQLITE_ROW) {
		int c = 1;

		memset(w, 0, sizeof(*w));
		snprintf(w->grp, sizeof(w->grp), "%s", (const char *)sqlite3_column_text(q, 0));
		w->start_ns = (uint64_t)sqlite3_column_int64(q, c++);
		w->dur_ns = (uint64_t)sqlite3_column_int64(q, c++);
		for (int i = 0; i < SL_WIN_NR; i++)
			SL_WIN_VALUE(w, i) = (uint64_t)sqlite3_column_int64(q, c++);
		err = sl_hist_decode(sqlite3_column_blob(q, c), (size_t)sqlite3_column_bytes(q, c),
				     &w->latency);
		if (!err && w->dur_ns)
			err = sl_cmp_data_add(d, side, run, w);
	}
	sqlite3_finalize(q);
	free(w);
	return err;
}

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

int main(void)
{
	char db[512];
	struct sl_store *st;
	int64_t b[2], k[2];
	struct sl_compare_opts o;
	struct sl_comparison *local = NULL, *seam = calloc(1, sizeof(*seam));
	struct sl_cmp_data *d = sl_cmp_data_new();
	struct sl_window_rec *w = calloc(1, sizeof(*w));
	size_t differ = 0;

	snprintf(db, sizeof(db), "%s/seam.db", tap_tmpdir());
	if (!seam || !d || !w || sl_store_open(db, SL_STORE_CREATE, &st)) {
		ok(0, "open %s", db);
		return done_testing();
	}
	b[0] = win_run(st, "6.1", 11, 44);
	b[1] = win_run(st, "6.1", 12, 49);
	k[0] = win_run(st, "6.12", 13, 27);
	k[1] = win_run(st, "6.12", 14, 27);

	sl_compare_opts_default(&o);
	o.baseline_runs = b;
	o.nr_baseline_runs = 2;
	o.candidate_runs = k;
	o.nr_candidate_runs = 2;
	o.history_runs = 0; /* the seam has no database to draw a history from */
	is_int(sl_compare(st, &o, &local), 0, "sl_compare over 2 runs a side");

	ok(!add_run(st, d, 0, b[0]) && !add_run(st, d, 0, b[1]) && !add_run(st, d, 1, k[0]) &&
		   !add_run(st, d, 1, k[1]),
	   "the same runs' windows through sl_cmp_data_add");
	if (local)
		for (int s = 0; s < 2; s++) {
			snprintf(seam->side[s].kernel, sizeof(seam->side[s].kernel), "%s",
				 local->side[s].kernel);
			seam->side[s].nr_runs = local->side[s].nr_runs;
		}
	is_int(sl_cmp_test(&o, d, seam), 0, "sl_cmp_test over them");
	if (!local)
		return done_testing();
	is_int((int)seam->nr_findings, (int)local->nr_findings, "as many findings (%zu)",
	       local->nr_findings);
	for (size_t i = 0; i < local->nr_findings && i < seam->nr_findings; i++) {
		const struct sl_finding *x = &local->findings[i], *y = &seam->findings[i];

		if (x->metric != y->metric || strcmp(x->grp, y->grp) || x->verdict != y->verdict ||
		    !same(x->base, y->base) || !same(x->cand, y->cand) || !same(x->p, y->p) ||
		    !same(x->p_adj, y->p_adj) || !same(x->ci_lo, y->ci_lo) ||
		    !same(x->ci_hi, y->ci_hi)) {
			diag("%s %s: %s vs %s", x->grp, x->metric->name,
			     sl_verdict_name(x->verdict), sl_verdict_name(y->verdict));
			differ++;
		}
	}
	is_int((int)differ, 0, "every finding identical: metric, group, verdict, values, p, CI");
	is_str(sl_verdict_name(seam->verdict), sl_verdict_name(local->verdict), "same verdict");
	is_str(seam->summary, local->summary, "same summary");
	ok(local->regressions + local->changes > 0, "and the comparison flags something (%s)",
	   local->summary);

	snprintf(w->grp, sizeof(w->grp), "*");
	w->dur_ns = 1;
	is_int(sl_cmp_data_add(d, 2, 1, w), -EINVAL, "side 2 refused");
	o.resamples = 10;
	{
		struct sl_comparison *bad = calloc(1, sizeof(*bad));

		is_int(sl_cmp_test(&o, d, bad), -SL_EUSAGE, "10 resamples refused");
		sl_comparison_free(bad);
	}
	free(w);
	sl_cmp_data_free(d);
	sl_comparison_free(seam);
	sl_comparison_free(local);
	sl_store_close(st);
	return done_testing();
}
