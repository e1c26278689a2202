// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for our trace.dat reader (lib/import/dat-file.c): each input is parsed as a
 * whole file, and when it parses, every page of every CPU of every buffer is walked with
 * the ring-buffer page reader (lib/record/rb-page.h) and every record's payload is read. Nothing
 * may crash, read outside the input or loop; errors are fine, but each must come with a
 * message. `make fuzz` runs it seeded with the zstd and instance fixtures and corpus-dat/,
 * with an inflate budget small enough for an input to exceed (fuzz-dat.h), so that the
 * refusal path (-E2BIG) is fuzzed too: corpus-dat/budget-many-sections.dat exceeds it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dat-file.h"
#include "error.h"
#include "fuzz-dat.h"
#include "rb-page.h"

static volatile uint8_t sink;

static void walk(const struct sl_dat_file *f)
{
	for (int i = 0; i < f->nr_buffers; i++) {
		for (uint32_t c = 0; c < f->buffers[i].nr_cpus; c++) {
			struct sl_dat_pages it;
			const uint8_t *page;
			uint32_t len;
			int r = sl_dat_pages_init(&it, f, &f->buffers[i], c);

			while (r >= 0 && (r = sl_dat_pages_next(&it, &page, &len)) > 0) {
				struct sl_rb_page pg;
				const uint8_t *rec;
				uint64_t ts;
				int size;
				char where[160];

				sl_dat_pages_where(&it, page, where, sizeof(where));
				if (sl_rb_page_load(&pg, page, len) < 0)
					continue;
				while ((rec = sl_rb_page_next(&pg, &ts, &size)))
					for (int k = 0; k < size; k++)
						sink ^= rec[k];
			}
			if (r < 0 && !sl_errmsg(r)[0])
				abort(); /* an error without a message */
			sl_dat_pages_free(&it);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, so that ASan sees any read past the end */
	uint8_t *copy = malloc(size ? size : 1);
	struct sl_dat_file f;
	int r;

	memcpy(copy, data, size);
	sl_error_clear();
	r = sl_dat_file_parse_budget(&f, copy, size, FUZZ_DAT_INFLATE_BUDGET);
	if (r < 0 && !sl_errmsg(r)[0])
		abort();
	if (r == 0)
		walk(&f);
	sl_dat_file_free(&f);
	free(copy);
	return 0;
}
