// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading of ring-buffer pages for the inline reader in rb-page.h: the page header (time
 * stamp, commit word with the missed-events flags) and the check that this host's buffers
 * have the layout the reader assumes.
 */
#include <traceevent/event-parse.h>

#include "rb-page.h"

#define RB_MISSED_EVENTS (1ULL << 31)
#define RB_MISSED_STORED (1ULL << 30)
#define RB_COMMIT_MASK ((1ULL << 27) - 1)
#define RB_HEADER 16 /* u64 time stamp, 8-byte commit word */

bool sl_rb_page_usable(struct tep_handle *tep)
{
	const uint16_t probe = 1;
	uint8_t first;

	memcpy(&first, &probe, 1);
	/* 0 means tep did not read header_page: kbuffer then assumes the host's long too */
	return first == 1 && sizeof(long) == 8 && !tep_is_file_bigendian(tep) &&
	       (tep_get_header_page_size(tep) == 8 || tep_get_header_page_size(tep) == 0) &&
	       tep_get_long_size(tep) == 8;
}

int sl_rb_page_load(struct sl_rb_page *p, const void *page, int len)
{
	const uint8_t *b = page;
	uint64_t commit;

	if (len < RB_HEADER)
		return -1;
	memcpy(&p->ts, b, 8);
	memcpy(&commit, b + 8, 8);
	p->data = b + RB_HEADER;
	p->size = (uint32_t)(commit & RB_COMMIT_MASK);
	p->next = 0;
	p->missed = 0;
	if (commit & RB_MISSED_EVENTS) {
		p->missed = -1;
		if ((commit & RB_MISSED_STORED) && RB_HEADER + p->size + 8 <= (uint32_t)len)
			memcpy(&p->missed, p->data + p->size, 8);
	}
	if (p->size > (uint32_t)len - RB_HEADER)
		p->size = (uint32_t)len - RB_HEADER;
	return 0;
}
