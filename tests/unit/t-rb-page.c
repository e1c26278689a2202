// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inline ring-buffer page reader (lib/record/rb-page.h) must walk a page exactly as
 * libtraceevent's kbuffer does: same payload pointers, sizes and timestamps, same missed
 * events. Pages are built by hand with every record type the kernel writes: short and
 * long data records, time extends, absolute time stamps, padding (discarded records),
 * and the missed-events flags in the commit word; then random pages of the same mix, and
 * lengths near 4 GiB that must end the page rather than wrap the offset.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/kbuffer.h>

#include "rb-page.h"
#include "tap.h"

#define PAGE 4096

struct builder {
	uint8_t page[PAGE];
	uint32_t off; /* from the data start */
};

static void put4(struct builder *b, uint32_t v)
{
	memcpy(b->page + 16 + b->off, &v, 4);
	b->off += 4;
}

static void data_rec(struct builder *b, uint32_t delta, uint32_t len)
{
	if (len <= 28 * 4 && len % 4 == 0 && len) {
		put4(b, delta << 5 | len / 4);
	} else {
		put4(b, delta << 5);
		put4(b, len + 4);
		len = (len + 3) & ~3u;
	}
	for (uint32_t i = 0; i < len; i += 4)
		put4(b, 0xabc00000u + b->off);
}

static void page_header(struct builder *b, uint64_t ts, uint64_t flags)
{
	uint64_t commit = b->off | flags;

	memcpy(b->page, &ts, 8);
	memcpy(b->page + 8, &commit, 8);
}

/* Walks the page both ways; returns the number of records, -1 on the first difference. */
static int compare(const struct builder *b, const char *name)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct sl_rb_page pg;
	unsigned long long kts;
	const void *mine;
	uint64_t ts;
	void *theirs;
	int n = 0, size;

	kbuffer_load_subbuffer(kb, (void *)b->page);
	sl_rb_page_load(&pg, b->page, PAGE);
	if (pg.missed != kbuffer_missed_events(kb)) {
		diag("%s: missed %lld vs kbuffer %d", name, (long long)pg.missed,
		     kbuffer_missed_events(kb));
		n = -1;
		goto out;
	}
	theirs = kbuffer_read_event(kb, &kts);
	for (;;) {
		mine = sl_rb_page_next(&pg, &ts, &size);
		if (!mine || !theirs) {
			if (mine != NULL || theirs != NULL) {
				diag("%s: record %d: one reader ended early", name, n);
				n = -1;
			}
			break;
		}
		if (mine != theirs || ts != kts || size != kbuffer_event_size(kb)) {
			diag("%s: record %d differs: ts %llu/%llu size %d/%d", name, n,
			     (unsigned long long)ts, kts, size, kbuffer_event_size(kb));
			n = -1;
			break;
		}
		n++;
		theirs = kbuffer_next_event(kb, &kts);
	}
out:
	kbuffer_free(kb);
	return n;
}

static void test_every_type(void)
{
	struct builder b = { 0 };

	data_rec(&b, 0, 48); /* sched_waking-sized */
	data_rec(&b, 1000, 64); /* sched_switch-sized */
	put4(&b, (5u << 5) | SL_RB_TYPE_TIME_EXTEND); /* +5 + (3 << 27) */
	put4(&b, 3);
	data_rec(&b, 7, 40);
	put4(&b, (11u << 5) | SL_RB_TYPE_PADDING); /* a discarded 32-byte record */
	put4(&b, 32);
	b.off += 28;
	data_rec(&b, 13, 200); /* too long for type_len: length word */
	data_rec(&b, 2, 6); /* odd length: rounded up */
	put4(&b, (17u << 5) | SL_RB_TYPE_TIME_STAMP); /* absolute */
	put4(&b, 9);
	data_rec(&b, 0, 44);
	page_header(&b, 123456789ull, 0);
	is_int(compare(&b, "every type"), 6, "every record type: same records as kbuffer");

	page_header(&b, 1ull << 60, 0);
	is_int(compare(&b, "high ts"), 6, "absolute stamp keeps the running time's top bits");

	page_header(&b, 5, 1ull << 31);
	is_int(compare(&b, "missed"), 6, "missed events, count unknown");

	memset(b.page + 16 + b.off, 0, 8);
	*(uint64_t *)(b.page + 16 + b.off) = 77;
	page_header(&b, 5, (1ull << 31) | (1ull << 30));
	is_int(compare(&b, "missed stored"), 6, "missed events with a stored count");

	b = (struct builder){ 0 };
	page_header(&b, 5, 0);
	is_int(compare(&b, "empty"), 0, "an empty page has no records");
}

static void test_random_pages(void)
{
	int bad = 0, total = 0;

	srandom(42);
	for (int p = 0; p < 2000; p++) {
		struct builder b = { 0 };

		while (b.off < PAGE - 16 - 300) {
			int kind = random() % 10;
			uint32_t delta = random() % (1u << 27);

			if (kind < 6) {
				data_rec(&b, delta, 4 * (1 + random() % 28));
			} else if (kind == 6) {
				data_rec(&b, delta, 1 + random() % 250);
			} else if (kind == 7) {
				put4(&b, delta << 5 | SL_RB_TYPE_TIME_EXTEND);
				put4(&b, random() % 1000);
			} else if (kind == 8) {
				put4(&b, delta << 5 | SL_RB_TYPE_PADDING);
				put4(&b, 8);
				b.off += 4;
			} else {
				put4(&b, delta << 5 | SL_RB_TYPE_TIME_STAMP);
				put4(&b, random() % 100000);
			}
		}
		page_header(&b, (uint64_t)random() << 20, 0);
		int n = compare(&b, "random");

		if (n < 0)
			bad++;
		else
			total += n;
	}
	is_int(bad, 0, "2000 random pages (%d records) read as kbuffer reads them", total);
}

/* Lengths near 4 GiB in a corrupt page (a trace.dat's): the walk ends, it never wraps. */
static void test_corrupt_lengths(void)
{
	static const uint32_t args[] = { 0xffffffffu, 0xfffffffcu, 0xfffffff0u, 0x80000000u };

	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		for (int padding = 0; padding < 2; padding++) {
			struct builder b = { 0 };
			struct sl_rb_page pg;
			uint64_t ts;
			int size, n = 0;

			data_rec(&b, 1, 16);
			put4(&b, padding ? SL_RB_TYPE_PADDING : 0);
			put4(&b, args[i]);
			data_rec(&b, 1, 16);
			page_header(&b, 1, 0);
			sl_rb_page_load(&pg, b.page, PAGE);
			while (sl_rb_page_next(&pg, &ts, &size) && n < 1000)
				n++;
			is_int(n, 1, "%s of length %#x: the page ends after the record before it",
			       padding ? "padding" : "a data record", args[i]);
		}
	}
}

int main(void)
{
	test_every_type();
	test_random_pages();
	test_corrupt_lengths();
	return done_testing();
}
