// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace.dat container, read from a mapped file (see dat-file.h). The layout is
 * trace-cmd's (Documentation/trace-cmd/trace-cmd.dat.v6.5.txt and .v7.5.txt), with what
 * trace-cmd 3.1 actually writes where the text is silent: a v7 section header's size is
 * 8 bytes, and a v7 BUFFER option holds the page size before the CPU count. Every read
 * goes through a cursor that stops at the end of its region and remembers the first
 * offset it could not read, so a corrupt length can only end the parse with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "dat-file.h"
#include "error.h"

#define MAGIC "\027\010\104tracing"
#define MAGIC_LEN 10
/* a decompressed section or chunk larger than this is a corrupt size field */
#define MAX_INFLATED (256u << 20)
/*
 * Nor can a chunk inflate more than this many times its size: trace data compresses about
 * 10:1, pages of mostly padding a few hundred to one; a "zip bomb" would make every CPU's
 * walk decompress and scan gigabytes.
 */
#define MAX_RATIO 4096

enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_OFFSET = 7,
	OPT_CPUCOUNT = 8,
	OPT_TIME_SHIFT = 12,
	OPT_TSC2NSEC = 14,
	OPT_HEADER_INFO = 16,
	OPT_EVENT_FORMATS = 18,
	OPT_BUFFER_TEXT = 22,
};

enum { SEC_OPTIONS = 0, SEC_BUFFER = 3, SEC_HEADER_INFO = 16, SEC_EVENT_FORMATS = 18 };

/* A bounded reader over one region; base is the region's file offset, for messages. */
struct cur {
	const uint8_t *b;
	uint64_t len, pos, base;
	bool bad;
};

static struct cur cur_at(const uint8_t *b, uint64_t len, uint64_t pos, uint64_t base)
{
	struct cur c = { .b = b, .len = len, .pos = pos, .base = base };

	c.bad = pos > len;
	return c;
}

static const uint8_t *take(struct cur *c, uint64_t n)
{
	const uint8_t *p;

	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return NULL;
	}
	p = c->b + c->pos;
	c->pos += n;
	return p;
}

/* little-endian only: sl_dat_file_parse() refuses big-endian files first */
static uint64_t get(struct cur *c, int n)
{
	const uint8_t *p = take(c, n);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, n);
	return v;
}

static const char *get_str(struct cur *c)
{
	const uint8_t *p = c->bad ? NULL : memchr(c->b + c->pos, '\0', c->len - c->pos);
	const char *s;

	if (!p) {
		c->bad = true;
		return "";
	}
	s = (const char *)c->b + c->pos;
	c->pos = p - c->b + 1;
	return s;
}

static bool get_label(struct cur *c, const char *label, size_t n)
{
	const uint8_t *p = take(c, n);

	return p && !memcmp(p, label, n);
}

/* The offset where c failed, as a file offset. */
static uint64_t at(const struct cur *c)
{
	return c->base + c->pos;
}

static int truncated(const struct cur *c, const char *what)
{
	return sl_error(-SL_EFORMAT, "trace.dat truncated or corrupt: %s at file offset %llu", what,
			(unsigned long long)at(c));
}

/* Takes n bytes of the file's inflate budget, or fails saying it is spent. */
static int charge(const struct sl_dat_file *f, uint64_t n, uint64_t off)
{
	uint64_t b = f->inflate_budget;

	if (n > b || *f->inflated > b - n)
		return sl_error(-E2BIG,
				"trace.dat: data at file offset %llu would inflate the file's "
				"compressed data beyond %llu %s in all (corrupt or hostile file)",
				(unsigned long long)off,
				(unsigned long long)(b % (1u << 20) ? b : b >> 20),
				b % (1u << 20) ? "bytes" : "MiB");
	*f->inflated += n;
	return 0;
}

static void *own(struct sl_dat_file *f, void *p)
{
	void **o;

	if (!p)
		return NULL;
	o = realloc(f->owned, (f->nr_owned + 1) * sizeof(*o));
	if (!o) {
		free(p);
		return NULL;
	}
	f->owned = o;
	f->owned[f->nr_owned++] = p;
	return p;
}

static int unsupported(struct sl_dat_file *f, const char *why)
{
	snprintf(f->unsupported, sizeof(f->unsupported), "%s", why);
	return SL_DAT_UNSUPPORTED;
}

/* A string option's value: its bytes up to the first NUL or the option's end, copied. */
static const char *opt_str(struct sl_dat_file *f, const uint8_t *p, uint32_t size)
{
	const uint8_t *nul = memchr(p, '\0', size);

	return own(f, strndup((const char *)p, nul ? (size_t)(nul - p) : size));
}

/* The trace_clock file's text: the selected clock is the one in brackets. */
static const char *selected_clock(struct sl_dat_file *f, const char *text)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

	if (!open || !close)
		return text;
	return own(f, strndup(open + 1, close - open - 1));
}

static int add_buffer(struct sl_dat_file *f, struct sl_dat_buffer **ret)
{
	struct sl_dat_buffer *b = realloc(f->buffers, (f->nr_buffers + 1) * sizeof(*b));

	if (!b)
		return -ENOMEM;
	f->buffers = b;
	*ret = &b[f->nr_buffers++];
	memset(*ret, 0, sizeof(**ret));
	(*ret)->page_size = f->page_size;
	return 0;
}

static int alloc_cpus(struct sl_dat_file *f, struct sl_dat_buffer *b, uint32_t n, uint64_t room,
		      uint64_t per_cpu)
{
	/* each CPU takes per_cpu bytes of the file: a count beyond them is corrupt */
	if (n > room / per_cpu)
		return -SL_EFORMAT;
	b->cpus = own(f, calloc(n ? n : 1, sizeof(*b->cpus)));
	if (!b->cpus)
		return -ENOMEM;
	b->nr_cpus = n;
	return 0;
}

/* v6 flyrecord: "flyrecord\0", then an offset and a size per CPU of the file's count. */
static int read_flyrecord_v6(struct sl_dat_file *f, struct cur *c, struct sl_dat_buffer *b)
{
	int err;

	if (!get_label(c, "flyrecord", 10))
		return truncated(c, "no flyrecord label");
	err = alloc_cpus(f, b, f->nr_cpus, c->len - c->pos, 16);
	if (err)
		return err == -SL_EFORMAT ? truncated(c, "CPU data table") : err;
	for (uint32_t i = 0; i < b->nr_cpus; i++) {
		b->cpus[i].cpu = i;
		b->cpus[i].offset = get(c, 8);
		b->cpus[i].size = get(c, 8);
	}
	return c->bad ? truncated(c, "CPU data table") : 0;
}

/* The header_page text from "header_page\0" <8 size> <data> "header_event\0" ... */
static int read_header_info(struct sl_dat_file *f, struct cur *c)
{
	uint64_t n;

	if (!get_label(c, "header_page", 12))
		return truncated(c, "no header_page");
	n = get(c, 8);
	f->header_page.data = (const char *)take(c, n);
	f->header_page.len = n;
	if (!f->header_page.data || !get_label(c, "header_event", 13))
		return truncated(c, "header_page");
	n = get(c, 8);
	return take(c, n) ? 0 : truncated(c, "header_event");
}

/* Event systems: <4 count> then per system "name\0" <4 count> per event <8 size> <data>. */
static int read_event_formats(struct sl_dat_file *f, struct cur *c)
{
	uint32_t systems = get(c, 4);

	for (uint32_t s = 0; s < systems && !c->bad; s++) {
		const char *name = get_str(c);
		uint32_t events = get(c, 4);
		bool sched = !strcmp(name, "sched");

		for (uint32_t e = 0; e < events && !c->bad; e++) {
			uint64_t n = get(c, 8);
			const char *text = (const char *)take(c, n);
			struct sl_dat_text *t;

			if (!text || !sched)
				continue;
			t = realloc(f->sched_formats, (f->nr_sched_formats + 1) * sizeof(*t));
			if (!t)
				return -ENOMEM;
			f->sched_formats = t;
			t[f->nr_sched_formats++] = (struct sl_dat_text){ text, n };
		}
	}
	return c->bad ? truncated(c, "event formats") : 0;
}

/* Options both versions share; v6's BUFFER option is handled by its caller. */
static int read_common_option(struct sl_dat_file *f, uint16_t id, const uint8_t *p, uint32_t size)
{
	switch (id) {
	case OPT_DATE:
		return unsupported(f,
				   "it has a date offset option (timestamps shifted on reading)");
	case OPT_OFFSET:
		return unsupported(f, "it has a timestamp offset option");
	case OPT_TIME_SHIFT:
		return unsupported(f, "it has guest time-shift data");
	case OPT_TSC2NSEC:
		return unsupported(f, "its timestamps are TSC cycles to convert");
	case OPT_TRACECLOCK:
		f->trace_clock = selected_clock(f, opt_str(f, p, size) ?: "");
		break;
	case OPT_UNAME:
		f->uname = opt_str(f, p, size);
		break;
	case OPT_CPUCOUNT:
		if (size >= 4) {
			memcpy(&f->nr_cpus, p, 4);
			break;
		}
		return -SL_EFORMAT;
	}
	return 0;
}

/* The v6 header after the magic and page size. */
static int parse_v6(struct sl_dat_file *f, struct cur *c)
{
	struct sl_dat_buffer *top;
	uint64_t n;
	uint32_t count;
	int err;

	err = read_header_info(f, c);
	if (err)
		return err;
	count = get(c, 4); /* ftrace's own event formats */
	for (uint32_t i = 0; i < count && !c->bad; i++)
		take(c, get(c, 8));
	if (c->bad)
		return truncated(c, "ftrace formats");
	err = read_event_formats(f, c);
	if (err)
		return err;
	take(c, get(c, 4)); /* kallsyms */
	take(c, get(c, 4)); /* printk formats */
	n = get(c, 8); /* saved cmdlines */
	take(c, n);
	f->nr_cpus = get(c, 4);
	if (c->bad)
		return truncated(c, "kallsyms, printk formats or cmdlines");
	if (c->len - c->pos >= 10 && !memcmp(c->b + c->pos, "options  ", 10)) {
		c->pos += 10;
		for (;;) {
			uint16_t id = get(c, 2);
			uint32_t size;
			const uint8_t *p;

			if (c->bad)
				return truncated(c, "options");
			if (id == OPT_DONE)
				break;
			size = get(c, 4);
			p = take(c, size);
			if (!p)
				return truncated(c, "option");
			if (id == OPT_BUFFER) {
				struct cur bc = cur_at(p, size, 0, at(c) - size);
				struct sl_dat_buffer *b;
				struct cur fc;
				uint64_t off = get(&bc, 8);

				err = add_buffer(f, &b);
				if (err)
					return err;
				b->name = get_str(&bc);
				if (bc.bad)
					return truncated(&bc, "buffer option");
				b->name = own(f, strdup(b->name));
				fc = cur_at(f->map, f->len, off, 0);
				err = b->name ? read_flyrecord_v6(f, &fc, b) : -ENOMEM;
			} else if (id == OPT_CPUCOUNT) {
				continue; /* v6 has the count in its header */
			} else {
				err = read_common_option(f, id, p, size);
			}
			if (err)
				return err == -SL_EFORMAT ? truncated(c, "option") : err;
		}
	}
	if (c->len - c->pos >= 10 && !memcmp(c->b + c->pos, "latency  ", 10))
		return unsupported(f, "it is a latency-mode trace (text, no events)");
	err = add_buffer(f, &top);
	if (err)
		return err;
	top->name = "";
	return read_flyrecord_v6(f, c, top);
}

/*
 * A v7 section at off: checks its id and returns a cursor over its content, inflated
 * when compressed (<4 compressed size> <4 size> <zstd data>).
 */
static int open_section(struct sl_dat_file *f, uint64_t off, uint16_t want, struct cur *ret,
			uint16_t *ret_flags)
{
	struct cur c = cur_at(f->map, f->len, off, 0);
	uint16_t id = get(&c, 2), flags = get(&c, 2);
	uint64_t size;
	const uint8_t *p;

	get(&c, 4); /* the id of its description string */
	size = get(&c, 8);
	if (c.bad || id != want)
		return sl_error(-SL_EFORMAT,
				"trace.dat corrupt: no section %u at file offset %llu (found %u)",
				want, (unsigned long long)off, id);
	if (ret_flags)
		*ret_flags = flags;
	if (!(flags & 1) || want == SEC_BUFFER) {
		/* a buffer section's size covers only its header and padding */
		*ret = cur_at(f->map + c.pos, want == SEC_BUFFER ? 0 : size, 0, c.pos);
		if (want != SEC_BUFFER && !take(&c, size))
			return truncated(&c, "section");
		return 0;
	}
	{
		uint32_t zlen = get(&c, 4), ulen = get(&c, 4);
		uint8_t *out;
		size_t r;

		int err;

		p = take(&c, zlen);
		if (!p || ulen > MAX_INFLATED || ulen / MAX_RATIO > zlen)
			return truncated(&c, "compressed section");
		if ((err = charge(f, ulen, off)) < 0)
			return err;
		out = own(f, malloc(ulen ? ulen : 1));
		if (!out)
			return -ENOMEM;
		r = ZSTD_decompress(out, ulen, p, zlen);
		if (ZSTD_isError(r) || r != ulen)
			return sl_error(-SL_EFORMAT,
					"trace.dat corrupt: section at file offset %llu does not "
					"decompress (%s)",
					(unsigned long long)off,
					ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short");
		/* offsets inside inflated data are not file offsets: name the section */
		*ret = cur_at(out, ulen, 0, off);
	}
	return 0;
}

/* v7 BUFFER option: <8 section> "name\0" "clock\0" <4 page size> <4 cpus> cpus x {4, 8, 8} */
static int read_buffer_v7(struct sl_dat_file *f, const uint8_t *p, uint32_t size, uint64_t base)
{
	struct cur c = cur_at(p, size, 0, base);
	uint64_t section = get(&c, 8);
	struct sl_dat_buffer *b;
	struct cur unused;
	uint16_t flags = 0;
	uint32_t n;
	int err;

	err = add_buffer(f, &b);
	if (err)
		return err;
	b->name = get_str(&c);
	get_str(&c); /* its clock: the trace clock option names the one in use */
	b->page_size = get(&c, 4);
	n = get(&c, 4);
	if (c.bad)
		return truncated(&c, "buffer option");
	b->name = own(f, strdup(b->name));
	if (!b->name)
		return -ENOMEM;
	err = alloc_cpus(f, b, n, c.len - c.pos, 20);
	if (err)
		return err == -SL_EFORMAT ? truncated(&c, "buffer option CPU table") : err;
	for (uint32_t i = 0; i < n; i++) {
		b->cpus[i].cpu = get(&c, 4);
		b->cpus[i].offset = get(&c, 8);
		b->cpus[i].size = get(&c, 8);
	}
	if (c.bad || c.pos != c.len)
		return unsupported(f, "its buffer option has a layout this reader does not know");
	err = open_section(f, section, SEC_BUFFER, &unused, &flags);
	if (err)
		return err;
	b->compressed = flags & 1;
	return 0;
}

/* The v7 options sections, in their chain, then the sections they point at. */
static int parse_v7(struct sl_dat_file *f, struct cur *c)
{
	const char *algo = get_str(c);
	uint64_t header_info = 0, formats = 0, next;
	struct cur sc;
	int err;

	get_str(c); /* the compression library's version */
	next = get(c, 8);
	if (c->bad)
		return truncated(c, "file header");
	if (strcmp(algo, "none") && strcmp(algo, "zstd"))
		return unsupported(f, "it is compressed with an algorithm other than zstd");
	while (next) {
		uint64_t done = 0, here = next;

		err = open_section(f, next, SEC_OPTIONS, &sc, NULL);
		if (err)
			return err;
		next = 0;
		while (!sc.bad && sc.pos < sc.len) {
			uint16_t id = get(&sc, 2);
			uint32_t size = get(&sc, 4);
			uint64_t base = at(&sc);
			const uint8_t *p = take(&sc, size);
			uint64_t v = 0;

			if (!p)
				return truncated(&sc, "option");
			if (size >= 8)
				memcpy(&v, p, 8);
			if (id == OPT_DONE) {
				done = 1;
				next = v;
				break;
			}
			if (id == OPT_HEADER_INFO)
				header_info = v;
			else if (id == OPT_EVENT_FORMATS)
				formats = v;
			else if (id == OPT_BUFFER)
				err = read_buffer_v7(f, p, size, base);
			else if (id == OPT_BUFFER_TEXT)
				err = unsupported(f,
						  "it is a latency-mode trace (text, no events)");
			else
				err = read_common_option(f, id, p, size);
			if (err)
				return err == -SL_EFORMAT ? truncated(&sc, "option") : err;
		}
		if (!done)
			return truncated(&sc, "options section without its end");
		/* trace-cmd appends sections: a chain going back would loop */
		if (next && next <= here)
			return sl_error(
				-SL_EFORMAT,
				"trace.dat corrupt: options section at %llu points back to %llu",
				(unsigned long long)here, (unsigned long long)next);
	}
	if (!header_info || !formats)
		return sl_error(-SL_EFORMAT,
				"trace.dat corrupt: no header or event format section");
	err = open_section(f, header_info, SEC_HEADER_INFO, &sc, NULL);
	if (!err)
		err = read_header_info(f, &sc);
	if (!err)
		err = open_section(f, formats, SEC_EVENT_FORMATS, &sc, NULL);
	return err ? err : read_event_formats(f, &sc);
}

int sl_dat_file_parse(struct sl_dat_file *f, const void *map, uint64_t len)
{
	return sl_dat_file_parse_budget(f, map, len, 0);
}

int sl_dat_file_parse_budget(struct sl_dat_file *f, const void *map, uint64_t len, uint64_t budget)
{
	struct cur c = cur_at(map, len, 0, 0);
	const char *version;
	uint8_t big_endian, long_size;
	int err;

	memset(f, 0, sizeof(*f));
	f->map = map;
	f->len = len;
	f->inflate_budget = budget ? budget : SL_DAT_INFLATE_BUDGET;
	f->inflated = own(f, calloc(1, sizeof(*f->inflated)));
	if (!f->inflated)
		return -ENOMEM;
	if (!get_label(&c, MAGIC, MAGIC_LEN))
		return sl_error(-SL_EFORMAT, "not a trace.dat (no trace-cmd magic)");
	version = get_str(&c);
	big_endian = get(&c, 1);
	long_size = get(&c, 1);
	f->page_size = get(&c, 4);
	if (c.bad)
		return truncated(&c, "file header");
	f->version = !strcmp(version, "6") ? 6 : !strcmp(version, "7") ? 7 : 0;
	if (!f->version)
		return unsupported(f, "its file version is neither 6 nor 7");
	if (big_endian || long_size != 8)
		return unsupported(f, "it was recorded on a big-endian or 32-bit host");
	/* the kernel's sub-buffers are whole pages: 4 KiB at the least */
	if (f->page_size < 4096 || f->page_size % 4096 || f->page_size > (1u << 20))
		return sl_error(-SL_EFORMAT, "trace.dat corrupt: page size %u", f->page_size);
	err = f->version == 6 ? parse_v6(f, &c) : parse_v7(f, &c);
	if (err)
		return err;
	if (!f->nr_sched_formats)
		return sl_error(-SL_ETRACE, "the trace.dat has no sched event formats");
	for (int i = 0; i < f->nr_buffers; i++) {
		struct sl_dat_buffer *b = &f->buffers[i];

		if (b->page_size < 4096 || b->page_size % 4096 || b->page_size > (1u << 20))
			return sl_error(-SL_EFORMAT, "trace.dat corrupt: buffer '%s' page size %u",
					b->name, b->page_size);
		for (uint32_t k = 0; k < b->nr_cpus; k++) {
			const struct sl_dat_cpu_data *d = &b->cpus[k];

			if (d->offset > len || d->size > len - d->offset)
				return sl_error(-SL_EFORMAT,
						"trace.dat truncated: CPU %u data of %llu bytes at "
						"file offset %llu runs past its end (%llu bytes)",
						d->cpu, (unsigned long long)d->size,
						(unsigned long long)d->offset,
						(unsigned long long)len);
			f->data_bytes += d->size;
		}
	}
	return 0;
}

void sl_dat_file_free(struct sl_dat_file *f)
{
	for (int i = 0; i < f->nr_owned; i++)
		free(f->owned[i]);
	free(f->owned);
	free(f->buffers);
	free(f->sched_formats);
	memset(f, 0, sizeof(*f));
}

int sl_dat_pages_init(struct sl_dat_pages *it, const struct sl_dat_file *f,
		      const struct sl_dat_buffer *b, uint32_t i)
{
	const struct sl_dat_cpu_data *d = &b->cpus[i];

	memset(it, 0, sizeof(*it));
	it->f = f;
	it->cpu = d;
	it->page_size = b->page_size;
	it->compressed = b->compressed;
	if (!d->size)
		return 0;
	if (!it->compressed) {
		it->data = f->map + d->offset;
		it->len = d->size;
		it->region_offset = d->offset;
		return 0;
	}
	if (d->size < 4)
		return sl_error(-SL_EFORMAT, "trace.dat corrupt: CPU %u chunk table at %llu",
				d->cpu, (unsigned long long)d->offset);
	memcpy(&it->chunks_left, f->map + d->offset, 4);
	it->next_chunk = d->offset + 4;
	it->zctx = ZSTD_createDCtx();
	return it->zctx ? 0 : -ENOMEM;
}

/* Inflates the next chunk: <4 compressed size> <4 size> <zstd data>, within the CPU data. */
static int next_chunk(struct sl_dat_pages *it)
{
	const struct sl_dat_cpu_data *d = it->cpu;
	/* trace-cmd 3.1's size counts the chunks, not the chunk count before them */
	uint64_t end = d->offset + 4 + d->size, off = it->next_chunk;
	uint32_t zlen, ulen;
	size_t r;

	if (end > it->f->len)
		end = it->f->len;
	if (off + 8 > end)
		goto corrupt;
	memcpy(&zlen, it->f->map + off, 4);
	memcpy(&ulen, it->f->map + off + 4, 4);
	if (zlen > end - off - 8 || ulen > MAX_INFLATED || ulen / MAX_RATIO > zlen)
		goto corrupt;
	if (ulen > it->chunk_cap) {
		uint8_t *p;
		int err = charge(it->f, ulen - it->chunk_cap, off);

		if (err < 0)
			return err;
		p = realloc(it->chunk, ulen);
		if (!p) {
			*it->f->inflated -= ulen - it->chunk_cap;
			return -ENOMEM;
		}
		it->chunk = p;
		it->chunk_cap = ulen;
	}
	r = ZSTD_decompressDCtx(it->zctx, it->chunk, ulen, it->f->map + off + 8, zlen);
	if (ZSTD_isError(r) || r != ulen)
		goto corrupt;
	it->data = it->chunk;
	it->len = ulen;
	it->pos = 0;
	it->region_offset = off;
	it->next_chunk = off + 8 + zlen;
	it->consumed = it->next_chunk - d->offset;
	it->chunks_left--;
	return 0;
corrupt:
	return sl_error(-SL_EFORMAT,
			"trace.dat corrupt: CPU %u data chunk at file offset %llu is damaged",
			d->cpu, (unsigned long long)off);
}

int sl_dat_pages_next(struct sl_dat_pages *it, const uint8_t **page, uint32_t *len)
{
	uint64_t left;

	while (it->pos >= it->len) {
		int err;

		if (!it->compressed || !it->chunks_left)
			return 0;
		err = next_chunk(it);
		if (err)
			return err;
	}
	left = it->len - it->pos;
	*page = it->data + it->pos;
	*len = left < it->page_size ? (uint32_t)left : it->page_size;
	it->pos += *len;
	if (!it->compressed)
		it->consumed = it->pos;
	return 1;
}

void sl_dat_pages_where(const struct sl_dat_pages *it, const void *rec, char *buf, size_t size)
{
	uint64_t page_pos = it->pos ? it->pos - 1 - (it->pos - 1) % it->page_size : 0;
	uint64_t pos = page_pos;

	/* the record's own offset when it lies in the page last returned */
	if (rec && (const uint8_t *)rec >= it->data + page_pos &&
	    (const uint8_t *)rec < it->data + it->pos)
		pos = (const uint8_t *)rec - it->data;
	if (it->compressed)
		snprintf(buf, size, "CPU %u chunk at file offset %llu, byte %llu of its data",
			 it->cpu->cpu, (unsigned long long)it->region_offset,
			 (unsigned long long)pos);
	else
		snprintf(buf, size, "file offset %llu",
			 (unsigned long long)(it->region_offset + pos));
}

void sl_dat_pages_free(struct sl_dat_pages *it)
{
	if (it->chunk_cap && it->f && it->f->inflated)
		*it->f->inflated -= it->chunk_cap;
	it->chunk_cap = 0;
	ZSTD_freeDCtx(it->zctx);
	free(it->chunk);
	it->zctx = NULL;
	it->chunk = NULL;
}
