// SPDX-License-Identifier: GPL-2.0-only
/*
 * Repeated looks at a growing experiment (schedlens lab ab): a comparison after every new
 * pair of runs, stopping once every primary metric is flagged or equivalent. Looking
 * again and again at plain alpha would flag a change that is not there far more often
 * than alpha says, and call a real one equivalent too soon; so the error rates are spent
 * over the looks planned (Bonferroni: each of K looks at alpha/K, with intervals at
 * 1 - (1 - level)/K). By the union bound the experiment as a whole keeps alpha and the
 * level whenever it stops. Conservative (it ignores that the looks are correlated), but
 * simple, valid for any stopping rule, and measured on A/A experiments by
 * `make calibrate` (docs/statistics.md). Stopping early never adds a false flag (it only
 * drops looks), so the experiment also stops when what is still open needs more runs than
 * the budget has: then more runs would be spent for nothing.
 */
#include "compare.h"

void sl_compare_spend(struct sl_compare_opts *o, int max_looks)
{
	if (max_looks < 1)
		max_looks = 1;
	o->alpha /= max_looks;
	o->ci_level = 1 - (1 - o->ci_level) / max_looks;
}

int sl_comparison_open(const struct sl_comparison *c)
{
	int n = 0;

	for (size_t i = 0; i < c->nr_findings; i++)
		n += c->findings[i].primary && (c->findings[i].verdict == SL_V_INCONCLUSIVE ||
						c->findings[i].verdict == SL_V_INSUFFICIENT);
	return n;
}

enum sl_seq_next sl_compare_next(const struct sl_comparison *c, int runs_a_side, int max_runs)
{
	int fewest = 0;

	for (size_t i = 0; i < c->nr_findings; i++) {
		const struct sl_finding *f = &c->findings[i];

		if (!f->primary || f->verdict != SL_V_INCONCLUSIVE)
			continue;
		if (!fewest || f->runs_needed < fewest)
			fewest = f->runs_needed;
	}
	if (!sl_comparison_open(c))
		return SL_SEQ_CONCLUSIVE;
	if (runs_a_side >= max_runs)
		return SL_SEQ_BUDGET;
	/* insufficient data alone, or nothing that the runs left could resolve */
	if (!fewest || fewest > max_runs)
		return SL_SEQ_FUTILE;
	return SL_SEQ_MORE;
}

const char *sl_seq_next_name(enum sl_seq_next n)
{
	static const char *const names[] = {
		[SL_SEQ_MORE] = "more runs",
		[SL_SEQ_CONCLUSIVE] = "every primary metric flagged or equivalent",
		[SL_SEQ_FUTILE] = "what is still open needs more runs than the budget has",
		[SL_SEQ_BUDGET] = "--max-runs reached",
	};

	return n <= SL_SEQ_BUDGET ? names[n] : "?";
}
