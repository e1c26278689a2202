/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event segments: the per-event rows of one run and one table (sched_slices, wakeups,
 * preemptions, sched_facts), a few thousand at a time, packed into one SQLite blob
 * (schema/0013-segments.sql). Each row is its columns in table order (run_id, the same for
 * the whole segment, left out), each stored as the LEB128 varint of its zigzagged
 * difference from the same column of the previous row, plus one: 0 is NULL. Times, pids
 * and CPUs change little from row to row, so most columns take one byte, and writing a row
 * is a few dozen instructions instead of a B-tree insert. The row tables the documented SQL
 * reads are virtual tables over the segments (store-segments.c).
 */
#ifndef SL_SEGMENT_H
#define SL_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records.h"

/* The tables stored as segments. The numbers are stored in no database. */
enum sl_seg_kind {
	SL_SEG_SLICE,
	SL_SEG_WAKEUP,
	SL_SEG_PREEMPT,
	SL_SEG_FACT,
	SL_SEG_KINDS,
};

#define SL_SEG_ROWS 4096 /* rows per segment at most, as the writer and the migration cut them */
#define SL_SEG_MAX_COLS 20 /* columns after run_id: wakeups has 19 */
#define SL_SEG_NULL INT64_MIN /* a NULL column */
#define SL_SEG_TEXT_MAX 16 /* sched_facts.txt: a comm (SL_COMM_LEN) */
#define SL_SEG_MAX_ROW (SL_SEG_MAX_COLS * 10 + SL_SEG_TEXT_MAX + 1) /* bytes, encoded */

struct sl_seg_col {
	const char *name;
	const char *decl; /* its SQL type and constraints, as the row table declared it */
	bool text; /* an integer code in the blob, TEXT in SQL (sl_seg_text_*) */
};

struct sl_seg_table {
	const char *name; /* the virtual table, named as the row table was */
	const char *store; /* the table of its segments */
	int time_col; /* the column (index in cols) segments keep the min and max of */
	int ncols; /* after run_id */
	const struct sl_seg_col *cols;
};

extern const struct sl_seg_table sl_seg_tables[SL_SEG_KINDS];

/* A segment being written. Zero it (or sl_seg_reset()) before the first row. */
struct sl_seg_buf {
	int64_t run_id;
	uint32_t rows;
	int64_t min_ns, max_ns;
	int64_t prev[SL_SEG_MAX_COLS];
	uint8_t *data;
	size_t len, cap;
};

/* Empties b for the next segment, keeping its memory. */
void sl_seg_reset(struct sl_seg_buf *b);
void sl_seg_free(struct sl_seg_buf *b);

/*
 * Appends a row of kind's ncols values (SL_SEG_NULL: NULL) and, for sched_facts, its txt
 * (NULL or "": none). Returns 0 or -ENOMEM.
 */
int sl_seg_append(struct sl_seg_buf *b, int kind, const int64_t *vals, const char *txt);

/* Reading a segment's blob row by row. */
struct sl_seg_reader {
	const uint8_t *p, *end;
	int ncols;
	bool has_text;
	int64_t prev[SL_SEG_MAX_COLS];
};

void sl_seg_reader_init(struct sl_seg_reader *r, int kind, const void *data, size_t len);

/*
 * The next row into vals (and txt, SL_SEG_TEXT_MAX + 1 bytes, "" for none, for
 * sched_facts). Returns 1, 0 at the end, -EINVAL for a damaged blob.
 */
int sl_seg_next(struct sl_seg_reader *r, int64_t *vals, char *txt);

/* sched_slices.end_state ('R', 'R+', 'S', ...) as the integer a segment stores, and back. */
int64_t sl_seg_text_code(const char *s);
void sl_seg_text_decode(int64_t code, char out[3]);

/* A record as the values of its table's columns, in sl_seg_tables order. */
void sl_seg_from_slice(const struct sl_slice_rec *r, int64_t *vals);
void sl_seg_from_wakeup(const struct sl_wakeup_rec *r, int64_t *vals);
void sl_seg_from_preempt(const struct sl_preempt_rec *r, int64_t *vals);
struct sl_fact_rec;
void sl_seg_from_fact(const struct sl_fact_rec *r, int64_t *vals);

#endif
