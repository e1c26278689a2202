/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Our own reader of the trace.dat container (trace-cmd's file versions 6 and 7,
 * uncompressed or zstd), over a file mapped in memory: the header_page, the sched
 * system's event formats, the uname, trace clock and CPU count options, and where each
 * buffer's per-CPU ring-buffer pages lie. It reads only what an import needs, so opening
 * a file costs microseconds where libtracecmd parses every format, kallsyms and the
 * printk formats. Everything is bounds-checked against the mapping: a corrupt file is an
 * error naming the file offset, never a read outside it. Features whose timestamps
 * libtracecmd would rewrite (date, offset, TSC and guest time-shift options), other
 * compression algorithms, big-endian or 32-bit files and latency-mode files are reported
 * as unsupported, so that the caller can fall back to libtracecmd.
 */
#ifndef SL_DAT_FILE_H
#define SL_DAT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* sl_dat_file_parse(): the file is well formed but needs libtracecmd (see ->unsupported) */
#define SL_DAT_UNSUPPORTED 1

/*
 * The inflated data one file may hold at once, in total: its decompressed sections (kept
 * until sl_dat_file_free()) plus every page walk's chunk buffer. Each section or chunk is
 * also capped at 256 MiB; without a total, a crafted file with many sections could demand
 * many times that. A real file's sections are small (5556 bytes in all in the guest16 v7
 * fixture) and a chunk holds a few ring-buffer pages, so 1 GiB refuses no real trace and
 * bounds what a hostile one costs.
 */
#define SL_DAT_INFLATE_BUDGET (1ull << 30)

/* Where one CPU's pages lie in the file. */
struct sl_dat_cpu_data {
	uint32_t cpu;
	uint64_t offset, size;
};

/* The top buffer (name "") or a buffer instance (`trace-cmd record -B name`). */
struct sl_dat_buffer {
	const char *name;
	uint32_t page_size;
	bool compressed; /* the pages are in zstd chunks */
	uint32_t nr_cpus;
	struct sl_dat_cpu_data *cpus;
};

struct sl_dat_text {
	const char *data;
	size_t len;
};

struct sl_dat_file {
	const uint8_t *map;
	uint64_t len;
	unsigned int version; /* 6 or 7 */
	uint32_t page_size;
	struct sl_dat_text header_page;
	struct sl_dat_text *sched_formats; /* the event formats of the "sched" system */
	int nr_sched_formats;
	const char *uname; /* NULL if absent */
	const char *trace_clock; /* the selected clock; NULL if absent */
	uint32_t nr_cpus;
	struct sl_dat_buffer *buffers; /* in file order; the top buffer may be absent */
	int nr_buffers;
	uint64_t data_bytes; /* the CPU data's bytes in the file, over all buffers */
	char unsupported[160]; /* why the caller should use libtracecmd */
	/* memory owned: decompressed sections and copies of strings */
	void **owned;
	int nr_owned;
	uint64_t inflate_budget; /* SL_DAT_INFLATE_BUDGET unless parsed with another */
	/* bytes of inflated data held now (sections, the walks' chunk buffers): owned, and
	 * updated by walks that only have a const f */
	uint64_t *inflated;
};

/*
 * Parses the container of a trace.dat mapped at map (len bytes; it must stay mapped while
 * f is used). Returns 0, SL_DAT_UNSUPPORTED (f->unsupported says why) or a negative code
 * with a message naming the offset at fault. Free f with sl_dat_file_free() in every case.
 */
int sl_dat_file_parse(struct sl_dat_file *f, const void *map, uint64_t len);
/*
 * The same with another inflate budget (0: SL_DAT_INFLATE_BUDGET): beyond it, parsing or a
 * page walk fails with -E2BIG and a message saying so. For tests.
 */
int sl_dat_file_parse_budget(struct sl_dat_file *f, const void *map, uint64_t len, uint64_t budget);
void sl_dat_file_free(struct sl_dat_file *f);

/* Walks one CPU's pages of one buffer, decompressing its zstd chunks as it goes. */
struct sl_dat_pages {
	const struct sl_dat_file *f;
	const struct sl_dat_cpu_data *cpu;
	uint32_t page_size;
	bool compressed;
	const uint8_t *data; /* the current region: the raw data or a decompressed chunk */
	size_t len, pos;
	uint64_t region_offset; /* its file offset (compressed: the chunk's) */
	uint64_t next_chunk; /* file offset of the next chunk header */
	uint32_t chunks_left;
	uint64_t consumed; /* file bytes of this CPU's data read so far */
	uint8_t *chunk; /* the decompressed chunk */
	size_t chunk_cap;
	void *zctx;
};

/* Returns 0 or a negative code with a message (the CPU's data is outside the file). */
int sl_dat_pages_init(struct sl_dat_pages *it, const struct sl_dat_file *f,
		      const struct sl_dat_buffer *b, uint32_t i);
/*
 * The next page: returns 1 and sets *page and *len (the page size, or less for a short last
 * page), 0 at the end, or a negative code with a message (a corrupt chunk).
 */
int sl_dat_pages_next(struct sl_dat_pages *it, const uint8_t **page, uint32_t *len);
/*
 * Where the record at rec (in the page last returned; NULL: the page itself) lies, for
 * messages: "file offset N", or the chunk and the byte of its inflated data.
 */
void sl_dat_pages_where(const struct sl_dat_pages *it, const void *rec, char *buf, size_t size);
void sl_dat_pages_free(struct sl_dat_pages *it);

#endif
