/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CLI's one printing layer (iproute2's json_print.h, for tables): a command opens a
 * document, declares tables by column specs and fills rows cell by cell; the same calls
 * give an aligned table for people, CSV (RFC 4180 quoting) or one JSON object. The machine
 * formats carry raw values (integers, ns, Unix ns, unrounded shares); only the text table
 * formats them (kind, fmt) or shows a cell's display text. Unknown values: "-" in text,
 * an empty field in CSV, null in JSON.
 *
 * JSON: the document is one object; each table is a key holding an array of row objects
 * (PR_RECORD tables: one object). CSV: one table is plain CSV with a header row; a document
 * opened with PR_SECTIONS prefixes every row (header included) with the table's name in a
 * "section" column and separates tables by an empty line.
 */
#ifndef SL_CLI_PRINT_H
#define SL_CLI_PRINT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

enum pr_format { PR_TEXT, PR_CSV, PR_JSON };

/* How a table shows a column's value (JSON and CSV always get the raw value). */
enum pr_kind {
	PR_STR, /* as is, left-aligned */
	PR_INT, /* integer */
	PR_REAL, /* fmt, default "%.3g" */
	PR_PCT, /* a share in percent: fmt, default "%.1f%%" */
	PR_NS, /* a duration in ns: "850 ns", "12.3 us", "4.56 ms", "2.00 s" */
	PR_WALL, /* Unix ns: "2026-12-03 07:08:32" (UTC) */
	PR_BOOL, /* yes / no; JSON true / false; CSV 1 / 0 */
};

/* column flags */
#define PR_BELOW 0x1 /* text: on a line of its own under the row, indented; not a column */
#define PR_NOTEXT 0x2 /* CSV and JSON only: the text table leaves it out */

struct pr_col {
	const char *key; /* JSON key, CSV header */
	const char *head; /* the text table's header (NULL: key) */
	enum pr_kind kind;
	const char *fmt; /* printf format of a double for PR_REAL and PR_PCT; NULL: default */
	unsigned int flags;
};

/* table flags */
#define PR_RECORD 0x1 /* one row shown as "head  value" lines; a JSON object, not an array */

/* document flags */
#define PR_SECTIONS 0x1 /* several tables: CSV rows carry a section column */
#define PR_INDENT 0x2 /* pr_object()'s JSON indented, not on one line */

struct pr;

/* A new document written to out; NULL on allocation failure. */
struct pr *pr_open(enum pr_format format, unsigned int flags, FILE *out);
/* Writes what is left (the JSON object), frees p; 0, or -EIO when out had an error. */
int pr_close(struct pr *p);

enum pr_format pr_format(const struct pr *p);

/*
 * Starts a table; title (may be NULL) is a text-only line above it. cols must outlive the
 * table. Rows are buffered until pr_table_end(), which prints them (text needs the widths).
 */
void pr_table(struct pr *p, const char *name, const char *title, const struct pr_col *cols,
	      size_t nr_cols, unsigned int flags);
void pr_row(struct pr *p);
/* The next cell of the current row, in column order. NULL / NAN: unknown. */
void pr_str(struct pr *p, const char *s);
void pr_int(struct pr *p, int64_t v);
void pr_real(struct pr *p, double v);
void pr_bool(struct pr *p, int v);
void pr_null(struct pr *p);
/* A value taken from lib's JSON (borrowed reference; NULL: unknown). */
void pr_json(struct pr *p, json_t *v);
/* A raw value for JSON and CSV (borrowed) shown as text in the table. */
void pr_json_text(struct pr *p, json_t *v, const char *text);
/* runs.params (an object of strings): "key=value key=value" in the table, else the object. */
void pr_params(struct pr *p, json_t *params);
void pr_table_end(struct pr *p);

/*
 * A command whose answer is one object rather than tables (record's and import's summary,
 * topology, a comparison): JSON prints obj itself, compact on one line as scripts have
 * always read it (indented with PR_INDENT);
 * CSV prints its keys as the header and its values as one row (nested values as JSON
 * text); text prints nothing, the command writes its lines for people with pr_line().
 * Steals obj; not mixed with tables in one document.
 */
void pr_object(struct pr *p, json_t *obj);

/* A line for people: text only (CSV and JSON stay machine-readable). */
void pr_line(struct pr *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
