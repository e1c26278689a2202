/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the compare module: run selection (compare-select.c), storing and reading
 * back comparisons (compare-store.c), shared by compare.c.
 */
#ifndef SL_COMPARE_LOCAL_H
#define SL_COMPARE_LOCAL_H

#include <sqlite3.h>

#include "compare.h"

/* Resolves o's selection into c->side[], c->label, c->topo_hash and notes. */
int sl_cmp_select(sqlite3 *db, const struct sl_compare_opts *o, struct sl_comparison *c);

/* Adds a note line to c (dropped silently beyond the notes array). */
void sl_cmp_note(struct sl_comparison *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes c (comparison, runs, findings) in one transaction and sets c->id. */
int sl_cmp_store(sqlite3 *db, struct sl_comparison *c);

#endif
