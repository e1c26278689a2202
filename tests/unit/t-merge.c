// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the merge heap: k sorted streams with random gaps and duplicate
 * timestamps come out in (ts, source) order, every element exactly once.
 */
#include <stdlib.h>

#include "merge.h"
#include "tap.h"

#define K 37
#define LEN 500

static uint64_t streams[K][LEN];

int main(void)
{
	struct sl_merge m = { 0 };
	struct sl_merge_entry e, prev = { 0 };
	uint32_t pos[K] = { 0 };
	unsigned int seed = 12345;
	size_t out = 0, disorder = 0;

	for (int s = 0; s < K; s++) {
		uint64_t t = rand_r(&seed) % 100;

		for (int i = 0; i < LEN; i++) {
			t += rand_r(&seed) % 3; /* 0: duplicate timestamps within a stream */
			streams[s][i] = t;
		}
	}
	is_int(sl_merge_init(&m, K), 0, "init");
	for (uint32_t s = 0; s < K; s++)
		sl_merge_push(&m, streams[s][0], s);
	is_int(sl_merge_push(&m, 0, 99), -28 /* -ENOSPC */, "push beyond capacity fails");
	while (sl_merge_peek(&m, &e)) {
		if (out && (e.ts_ns < prev.ts_ns || (e.ts_ns == prev.ts_ns && e.src < prev.src)))
			disorder++;
		prev = e;
		out++;
		if (++pos[e.src] < LEN)
			sl_merge_replace_top(&m, streams[e.src][pos[e.src]]);
		else
			sl_merge_pop(&m);
	}
	is_int(out, (int64_t)K * LEN, "every element came out once");
	is_int(disorder, 0, "output is ordered by (ts, source)");
	is_int(sl_merge_count(&m), 0, "heap empty at the end");
	sl_merge_pop(&m);
	ok(!sl_merge_peek(&m, &e), "pop and peek on an empty heap are safe");
	sl_merge_free(&m);
	sl_merge_free(&m);
	ok(!m.heap && sl_merge_count(&m) == 0 && !sl_merge_peek(&m, &e),
	   "free twice is safe: the heap stays empty and usable");
	return done_testing();
}
