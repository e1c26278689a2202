/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fast reader of the kernel's ring-buffer sub-buffer ("page") format, for the live
 * recorder's hot path. It walks the same records as libtraceevent's kbuffer (data records,
 * time extends, absolute time stamps, padding) and yields the same payloads, sizes and
 * timestamps, but inline and without kbuffer's per-word function pointers, which cost a
 * third of the reader's CPU time (see tests/unit/t-rb-page.c for the comparison with
 * kbuffer). Only the layout of 64-bit little-endian hosts reading their own buffers:
 * sl_rb_page_usable() says when to fall back to kbuffer.
 */
#ifndef SL_RB_PAGE_H
#define SL_RB_PAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct tep_handle;

/* A loaded sub-buffer; the page must stay valid while it is read. */
struct sl_rb_page {
	const uint8_t *data; /* first record */
	uint32_t size; /* committed bytes from data */
	uint32_t next; /* offset of the next record from data */
	uint64_t ts; /* time of the last record read */
	int64_t missed; /* events lost before this page: 0, -1 (count unknown) or the count */
};

/* True when tep describes a buffer this reader understands (host layout, 8-byte commit). */
bool sl_rb_page_usable(struct tep_handle *tep);

/*
 * Loads a page of len bytes (as read or spliced from trace_pipe_raw). Returns 0, or -1 if
 * len cannot hold the header; a commit size beyond len is clipped to len.
 */
int sl_rb_page_load(struct sl_rb_page *p, const void *page, int len);

#define SL_RB_TYPE_PADDING 29
#define SL_RB_TYPE_TIME_EXTEND 30
#define SL_RB_TYPE_TIME_STAMP 31
#define SL_RB_TS_SHIFT 27
/* absolute time stamps lack the top 5 bits: they are taken from the running time */
#define SL_RB_TS_MSB (0xf8ULL << 56)

/*
 * The next data record: returns its payload and sets *ts and *size (payload bytes, as
 * kbuffer_event_size() counts them), or returns NULL at the end of the page. A record
 * that would run past the committed size ends the page.
 */
static inline const void *sl_rb_page_next(struct sl_rb_page *p, uint64_t *ts, int *size)
{
	while (p->next + 4 <= p->size) {
		const uint8_t *rec = p->data + p->next;
		uint32_t hdr, arg, type_len, delta, len;

		memcpy(&hdr, rec, 4);
		type_len = hdr & 31;
		delta = hdr >> 5;
		if (type_len && type_len < SL_RB_TYPE_PADDING) {
			len = type_len * 4;
			if (p->next + 4 + len > p->size)
				break;
			p->next += 4 + len;
			p->ts += delta;
			*ts = p->ts;
			*size = (int)len;
			return rec + 4;
		}
		if (p->next + 8 > p->size)
			break;
		memcpy(&arg, rec + 4, 4);
		switch (type_len) {
		case 0: /* arg is the payload length plus its own 4 bytes */
			if (arg < 4)
				return NULL;
			len = ((arg - 4) + 3) & ~3u;
			/* 64-bit sums: a corrupt length must not wrap around to a small one */
			if ((uint64_t)p->next + 8 + len > p->size)
				return NULL;
			p->next += 8 + len;
			p->ts += delta;
			*ts = p->ts;
			*size = (int)len;
			return rec + 8;
		case SL_RB_TYPE_PADDING: /* a discarded record: arg is its payload length */
			if ((uint64_t)p->next + 4 + arg > p->size)
				goto end;
			p->ts += delta;
			p->next += 4 + arg;
			break;
		case SL_RB_TYPE_TIME_EXTEND:
			p->ts += ((uint64_t)arg << SL_RB_TS_SHIFT) + delta;
			p->next += 8;
			break;
		default: /* SL_RB_TYPE_TIME_STAMP */
			p->ts = (((uint64_t)arg << SL_RB_TS_SHIFT) + delta) |
				(p->ts & SL_RB_TS_MSB);
			p->next += 8;
			break;
		}
	}
end:
	p->next = p->size;
	return NULL;
}

#endif
