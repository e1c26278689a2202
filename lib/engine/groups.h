/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Group names interned to small ids, so per-task state and per-window accumulators carry
 * a uint16_t instead of a string. Id 0 is "*" (every task); the number of distinct groups
 * is bounded, and names beyond the bound share the id of "(other)".
 */
#ifndef SL_GROUPS_H
#define SL_GROUPS_H

#include <stdint.h>

#include "records.h"

#define SL_GROUPS_MAX 4096
#define SL_GROUP_OTHER "(other)"

struct sl_groups {
	int nr;
	char (*names)[SL_GROUP_LEN];
	int16_t *hash; /* open addressing over ids, 2 * SL_GROUPS_MAX slots, -1 empty */
};

int sl_groups_init(struct sl_groups *g);
void sl_groups_free(struct sl_groups *g);

/* The id of name (truncated to SL_GROUP_LEN - 1), interning it if new. */
uint16_t sl_groups_intern(struct sl_groups *g, const char *name);

static inline const char *sl_groups_name(const struct sl_groups *g, uint16_t id)
{
	return g->names[id];
}

#endif
