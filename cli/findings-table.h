/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The findings table that `schedlens diff` and `schedlens findings ID` share: one row per
 * finding of lib's comparison JSON (sl_comparison_to_json(), sl_compare_load()), flagged
 * ones first (regressions, improvements, changes), each with its sentence under it in the
 * text table.
 */
#ifndef SL_CLI_FINDINGS_TABLE_H
#define SL_CLI_FINDINGS_TABLE_H

#include <jansson.h>
#include <stdbool.h>

#include "print.h"

/* Prints the findings array as table "findings"; flagged_only leaves out the rest. */
void print_findings(struct pr *p, json_t *findings, bool flagged_only);

/* True if the finding's verdict is regression, improvement or change. */
bool finding_flagged(json_t *f);

/*
 * The unconfirmed changes of comparison c (its JSON, with "findings" and "params"),
 * largest severity first, under a heading that says what they are and their error rate;
 * nothing without any. Text only.
 */
void print_unconfirmed(struct pr *p, json_t *c);

#endif
