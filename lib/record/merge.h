/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * K-way merge by timestamp: a binary min-heap of (timestamp, source) pairs, one entry per
 * source (a CPU's queue of events) whose head is known. Ties are broken by the source
 * number so a merge is deterministic. O(log k) per event, where a linear scan would cost
 * O(k) with k up to thousands of CPUs.
 */
#ifndef SL_MERGE_H
#define SL_MERGE_H

#include <stdbool.h>
#include <stdint.h>

struct sl_merge_entry {
	uint64_t ts_ns;
	uint32_t src;
};

struct sl_merge {
	struct sl_merge_entry *heap;
	uint32_t n;
	uint32_t cap;
};

/* Prepares a heap for up to max_sources entries. Returns 0 or -ENOMEM; free with
 * sl_merge_free() (which accepts a zeroed struct). */
int sl_merge_init(struct sl_merge *m, uint32_t max_sources);
void sl_merge_free(struct sl_merge *m);

/* Adds a source whose head event has timestamp ts_ns. Returns 0 or -ENOSPC when full. */
int sl_merge_push(struct sl_merge *m, uint64_t ts_ns, uint32_t src);

/* The earliest entry; false when the heap is empty. */
static inline bool sl_merge_peek(const struct sl_merge *m, struct sl_merge_entry *ret)
{
	if (!m->n)
		return false;
	*ret = m->heap[0];
	return true;
}

/* The top source has a new head at ts_ns (its old head was consumed). */
void sl_merge_replace_top(struct sl_merge *m, uint64_t ts_ns);
/* The top source has no known head any more. */
void sl_merge_pop(struct sl_merge *m);

static inline uint32_t sl_merge_count(const struct sl_merge *m)
{
	return m->n;
}

#endif
