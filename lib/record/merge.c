// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timestamp heap behind the k-way merge of per-CPU event streams.
 */
#include <errno.h>
#include <stdlib.h>

#include "merge.h"

static inline bool before(const struct sl_merge_entry *a, const struct sl_merge_entry *b)
{
	return a->ts_ns < b->ts_ns || (a->ts_ns == b->ts_ns && a->src < b->src);
}

int sl_merge_init(struct sl_merge *m, uint32_t max_sources)
{
	m->n = 0;
	m->cap = max_sources ? max_sources : 1;
	m->heap = calloc(m->cap, sizeof(*m->heap));
	return m->heap ? 0 : -ENOMEM;
}

void sl_merge_free(struct sl_merge *m)
{
	if (!m)
		return;
	free(m->heap);
	m->heap = NULL;
	m->n = m->cap = 0;
}

static void sift_down(struct sl_merge *m, uint32_t i)
{
	struct sl_merge_entry e = m->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= m->n)
			break;
		if (c + 1 < m->n && before(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!before(&m->heap[c], &e))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = e;
}

int sl_merge_push(struct sl_merge *m, uint64_t ts_ns, uint32_t src)
{
	struct sl_merge_entry e = { .ts_ns = ts_ns, .src = src };
	uint32_t i;

	if (m->n == m->cap)
		return -ENOSPC;
	i = m->n++;
	while (i) {
		uint32_t p = (i - 1) / 2;

		if (!before(&e, &m->heap[p]))
			break;
		m->heap[i] = m->heap[p];
		i = p;
	}
	m->heap[i] = e;
	return 0;
}

void sl_merge_replace_top(struct sl_merge *m, uint64_t ts_ns)
{
	m->heap[0].ts_ns = ts_ns;
	sift_down(m, 0);
}

void sl_merge_pop(struct sl_merge *m)
{
	if (!m->n)
		return;
	m->heap[0] = m->heap[--m->n];
	if (m->n)
		sift_down(m, 0);
}
