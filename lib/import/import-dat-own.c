// SPDX-License-Identifier: GPL-2.0-only
/*
 * Our own trace.dat reader (import-dat.c's fast path): the file is mapped, its container
 * parsed by dat-file.c, and every buffer's per-CPU pages walked with rb-page.h, merged by
 * timestamp in libtracecmd's order (ties to the earlier buffer, top first, then the lower
 * CPU), so both paths yield the same events.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "error.h"
#include "import-dat-local.h"
#include "rb-page.h"
#include "topo.h"

/* One CPU's records of one buffer, for the merge: rec is the next one, at ts. */
struct stream {
	struct sl_dat_pages pages;
	struct sl_rb_page page;
	uint64_t ts;
	const void *rec;
	int size;
	long long missed; /* events lost before rec (the first of its page) */
};

/*
 * Moves s to its next record, loading pages as needed: 1, 0 at the end of its data, or a
 * negative code. *consumed grows by the file bytes of the pages loaded.
 */
static int stream_next(struct stream *s, uint64_t *consumed)
{
	for (;;) {
		uint64_t before = s->pages.consumed;
		const uint8_t *page;
		uint32_t len;
		int r;

		s->rec = sl_rb_page_next(&s->page, &s->ts, &s->size);
		if (s->rec)
			return 1;
		r = sl_dat_pages_next(&s->pages, &page, &len);
		*consumed += s->pages.consumed - before;
		if (r <= 0)
			return r;
		/* a piece shorter than a page header holds no records */
		if (sl_rb_page_load(&s->page, page, len) == 0)
			s->missed = s->page.missed;
	}
}

/* Merge order: by timestamp, ties to the stream made first (top buffer, lower CPU). */
static bool before(const struct stream *a, const struct stream *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a < b);
}

static void sift_down(struct stream **heap, int n, int i)
{
	for (;;) {
		int m = i, l = 2 * i + 1, r = l + 1;
		struct stream *t;

		if (l < n && before(heap[l], heap[m]))
			m = l;
		if (r < n && before(heap[r], heap[m]))
			m = r;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

/*
 * The streams of every buffer's CPUs, top buffer first, each on its first record; heap
 * holds those that have one. Returns the number of streams made, or a negative code.
 */
static int streams_open(struct sl_dat *d, struct stream *st, struct stream **heap, int *ret_n,
			uint64_t *consumed)
{
	const struct sl_dat_file *f = &d->file;
	int n = 0, nheap = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < f->nr_buffers; i++) {
			const struct sl_dat_buffer *b = &f->buffers[i];

			if ((pass == 0) != (b->name[0] == '\0'))
				continue;
			for (uint32_t c = 0; c < b->nr_cpus; c++) {
				struct stream *s = &st[n];
				int r = sl_dat_pages_init(&s->pages, f, b, c);

				n++;
				if (!r)
					r = stream_next(s, consumed);
				if (r < 0) {
					*ret_n = n;
					return r;
				}
				if (r)
					heap[nheap++] = s;
			}
		}
	}
	for (int i = nheap / 2 - 1; i >= 0; i--)
		sift_down(heap, nheap, i);
	*ret_n = n;
	return nheap;
}

int dat_read_own(struct sl_dat *d, int max_cpus,
		 int (*batch)(void *ctx, const struct sl_event *ev, size_t n), void *ctx,
		 uint64_t *ret_records)
{
	const struct sl_dat_file *f = &d->file;
	/* progress: the headers are read */
	uint64_t consumed = f->len > f->data_bytes ? f->len - f->data_bytes : 0;
	struct walk *w = dat_walk_new(d, max_cpus, batch, ctx);
	struct stream *st = NULL, **heap = NULL;
	int total = 0, n = 0, nheap;

	for (int i = 0; i < f->nr_buffers; i++)
		total += f->buffers[i].nr_cpus;
	if (w) {
		st = calloc(total ? total : 1, sizeof(*st));
		heap = calloc(total ? total : 1, sizeof(*heap));
	}
	if (!w || !st || !heap) {
		free(st);
		free(heap);
		return w ? (dat_walk_end(w, NULL), -ENOMEM) : -ENOMEM;
	}
	nheap = streams_open(d, st, heap, &n, &consumed);
	if (nheap < 0)
		w->err = nheap;
	while (nheap > 0 && !w->err) {
		struct stream *s = heap[0], *next = NULL;
		int r = 0;

		if (nheap > 1)
			next = nheap > 2 && before(heap[2], heap[1]) ? heap[2] : heap[1];
		w->rec_pages = &s->pages;
		/* the first stream's records until another one's comes first */
		do {
			if (dat_emit(w, s->pages.cpu->cpu, s->ts, s->rec, s->size, s->missed))
				break;
			s->missed = 0;
			r = stream_next(s, &consumed);
		} while (r > 0 && (!next || before(s, next)));
		d->offset = consumed;
		if (w->err)
			break;
		if (r < 0)
			w->err = r;
		else if (r == 0)
			heap[0] = heap[--nheap];
		sift_down(heap, nheap, 0);
	}
	for (int i = 0; i < n; i++)
		sl_dat_pages_free(&st[i].pages);
	free(st);
	free(heap);
	return dat_walk_end(w, ret_records);
}

/* A tep of just the file's header_page and sched formats, as the recorder builds its own. */
static int own_tep(struct sl_dat *d)
{
	const struct sl_dat_file *f = &d->file;
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return -ENOMEM;
	d->own_tep = tep;
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, f->page_size);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_header_page(tep, (char *)f->header_page.data, f->header_page.len, 8) < 0)
		return sl_error(-SL_EFORMAT, "trace.dat: cannot parse its header_page format");
	for (int i = 0; i < f->nr_sched_formats; i++)
		/* a bad format is reported by the fields it lacks */
		tep_parse_event(tep, f->sched_formats[i].data, f->sched_formats[i].len, "sched");
	if (!sl_rb_page_usable(tep))
		return SL_DAT_UNSUPPORTED;
	d->tep = tep;
	return 0;
}

/*
 * Opens path with our own reader. Returns 0, SL_DAT_UNSUPPORTED (use libtracecmd) or a
 * negative code with a message; on anything but 0 the caller closes d.
 */
int dat_open_own(struct sl_dat *d, const char *path)
{
	struct sl_dat_file *f = &d->file;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		err = sl_error(-errno, "cannot open '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return err;
	}
	d->map_len = st.st_size;
	d->map = d->map_len ? mmap(NULL, d->map_len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (d->map == MAP_FAILED) {
		d->map = NULL;
		return sl_error(-errno, "cannot map '%s': %s", path, strerror(errno));
	}
	err = sl_dat_file_parse(f, d->map, d->map_len);
	if (err)
		return err;
	err = own_tep(d);
	if (err)
		return err;
	err = dat_resolve_fields(d, path);
	if (err < 0)
		return err;
	d->own = true;
	d->info.file_version = f->version;
	/* a count or CPU beyond our limit is only metadata here: its records are refused */
	d->info.nr_cpus = f->nr_cpus < SL_TOPO_MAX_CPUS ? (int)f->nr_cpus : SL_TOPO_MAX_CPUS;
	for (int i = 0; i < f->nr_buffers; i++) {
		d->info.nr_instances += f->buffers[i].name[0] != '\0';
		for (uint32_t c = 0; c < f->buffers[i].nr_cpus; c++) {
			uint32_t cpu = f->buffers[i].cpus[c].cpu;

			if (cpu < SL_TOPO_MAX_CPUS && (int)cpu >= d->info.nr_cpus)
				d->info.nr_cpus = cpu + 1;
		}
	}
	d->info.trace_clock = f->trace_clock;
	d->info.has_waking = d->sf.id[SL_SE_WAKING] >= 0;
	dat_parse_uname(d, f->uname);
	return 0;
}

/* Undoes dat_open_own(), for the fallback to libtracecmd. */
void dat_close_own(struct sl_dat *d)
{
	sl_dat_file_free(&d->file);
	if (d->own_tep)
		tep_free(d->own_tep);
	if (d->map)
		munmap(d->map, d->map_len);
	free(d->uname);
	d->uname = NULL;
	d->own_tep = NULL;
	d->tep = NULL;
	d->map = NULL;
	d->own = false;
	memset(&d->info, 0, sizeof(d->info));
	memset(&d->sf, 0, sizeof(d->sf));
}
