/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the compare module: run selection (compare-select.c), storing and reading
 * back comparisons (compare-store.c), shared by compare.c; and the seam where windows
 * loaded from elsewhere than the database (compare-prom.c: Prometheus) meet the tests.
 */
#ifndef SL_COMPARE_LOCAL_H
#define SL_COMPARE_LOCAL_H

#include "compare.h"

/* Resolves o's selection into c->side[], c->label, c->topo_hash and notes. */
int sl_cmp_select(struct sl_store *store, const struct sl_compare_opts *o, struct sl_comparison *c);

/* Adds a note line to c (dropped silently beyond the notes array). */
void sl_cmp_note(struct sl_comparison *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes c (comparison, runs, findings) in one transaction and sets c->id. */
int sl_cmp_store(struct sl_store *store, struct sl_comparison *c);

/*
 * Windows of units (runs, or hosts) loaded from elsewhere, by group and side: freed with
 * sl_cmp_data_free() (NULL is fine).
 */
struct sl_cmp_data;
struct sl_cmp_data *sl_cmp_data_new(void);
void sl_cmp_data_free(struct sl_cmp_data *d);

/*
 * Adds window w (its grp, dur_ns, counters and latency histogram) to unit `unit` of side
 * 0 (baseline) or 1 (candidate). A unit's windows of one group come together, in time
 * order. 0, -EINVAL or -ENOMEM.
 */
int sl_cmp_data_add(struct sl_cmp_data *d, int side, int64_t unit, const struct sl_window_rec *w);

/*
 * sl_compare()'s tests, verdicts and summary over d, without a database (so no history of
 * comparable runs). The caller fills c->side[] (desc, kernel, runs) and c->label and frees
 * c with sl_comparison_free() whatever the result. 0, -SL_EUSAGE, -ENOMEM.
 */
int sl_cmp_test(const struct sl_compare_opts *o, struct sl_cmp_data *d, struct sl_comparison *c);

#endif
