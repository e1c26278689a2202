// SPDX-License-Identifier: GPL-2.0-only
/*
 * The printing layer of print.h. Cells are kept as jansson values (the raw value, and a
 * display text when the caller gave one) so that one buffered table can become any of the
 * three formats; text tables are buffered anyway because their widths depend on every row.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "print.h"

struct pr {
	enum pr_format format;
	unsigned int flags;
	FILE *out;
	json_t *doc; /* JSON: the document */
	json_t *object; /* JSON: pr_object()'s, printed instead of doc */
	bool printed; /* text or CSV: something is on out already */
	/* the open table */
	const char *name, *title;
	const struct pr_col *cols;
	size_t nr_cols;
	unsigned int tflags;
	json_t *rows; /* [[raw, ...], ...] */
	json_t *texts; /* per row: [text or null, ...] */
};

struct pr *pr_open(enum pr_format format, unsigned int flags, FILE *out)
{
	struct pr *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->format = format;
	p->flags = flags;
	p->out = out;
	if (format == PR_JSON && !(p->doc = json_object())) {
		free(p);
		return NULL;
	}
	return p;
}

enum pr_format pr_format(const struct pr *p)
{
	return p->format;
}

int pr_close(struct pr *p)
{
	int err;

	if (!p)
		return 0;
	if (p->rows)
		pr_table_end(p);
	if (p->object) {
		json_dumpf(p->object, p->out,
			   p->flags & PR_INDENT ? JSON_INDENT(2) | JSON_REAL_PRECISION(10) :
						  JSON_COMPACT);
		fputc('\n', p->out);
		json_decref(p->object);
	} else if (p->doc) {
		json_dumpf(p->doc, p->out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		fputc('\n', p->out);
	}
	json_decref(p->doc);
	err = fflush(p->out) || ferror(p->out) ? -EIO : 0;
	free(p);
	return err;
}

void pr_table(struct pr *p, const char *name, const char *title, const struct pr_col *cols,
	      size_t nr_cols, unsigned int flags)
{
	if (p->rows)
		pr_table_end(p);
	p->name = name;
	p->title = title;
	p->cols = cols;
	p->nr_cols = nr_cols;
	p->tflags = flags;
	p->rows = json_array();
	p->texts = json_array();
}

void pr_row(struct pr *p)
{
	json_array_append_new(p->rows, json_array());
	json_array_append_new(p->texts, json_array());
}

/* Appends a cell (stealing v) to the current row; cells beyond the columns are dropped. */
static void cell(struct pr *p, json_t *v, const char *text)
{
	json_t *row = json_array_get(p->rows, json_array_size(p->rows) - 1);
	json_t *trow = json_array_get(p->texts, json_array_size(p->texts) - 1);

	if (!row || json_array_size(row) >= p->nr_cols) {
		json_decref(v);
		return;
	}
	json_array_append_new(row, v ? v : json_null());
	json_array_append_new(trow, text ? json_string(text) : json_null());
}

void pr_str(struct pr *p, const char *s)
{
	cell(p, s ? json_string(s) : json_null(), NULL);
}

void pr_int(struct pr *p, int64_t v)
{
	cell(p, json_integer(v), NULL);
}

void pr_real(struct pr *p, double v)
{
	cell(p, isnan(v) || isinf(v) ? json_null() : json_real(v), NULL);
}

void pr_bool(struct pr *p, int v)
{
	cell(p, json_boolean(v), NULL);
}

void pr_null(struct pr *p)
{
	cell(p, json_null(), NULL);
}

void pr_json(struct pr *p, json_t *v)
{
	cell(p, v ? json_incref(v) : json_null(), NULL);
}

void pr_json_text(struct pr *p, json_t *v, const char *text)
{
	cell(p, v ? json_incref(v) : json_null(), text);
}

void pr_params(struct pr *p, json_t *params)
{
	const char *key;
	json_t *v;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	if (!json_object_size(params) || !(f = open_memstream(&buf, &size))) {
		pr_null(p);
		return;
	}
	json_object_foreach(params, key, v)
	{
		fprintf(f, "%s%s=%s", ftell(f) ? " " : "", key, json_string_value(v) ?: "");
	}
	fclose(f);
	pr_json_text(p, params, buf);
	free(buf);
}

void pr_line(struct pr *p, const char *fmt, ...)
{
	va_list ap;

	if (p->format != PR_TEXT)
		return;
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
	fputc('\n', p->out);
	p->printed = true;
}

static void fmt_ns(char *buf, size_t size, double ns)
{
	if (ns < 1e3)
		snprintf(buf, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.2f s", ns / 1e9);
}

/* Column formats are constants of the commands' column tables, never user text. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* What the text table shows for a cell. */
static void text_of(const struct pr_col *c, json_t *v, json_t *text, char *buf, size_t size)
{
	double d = json_number_value(v);

	if (json_is_string(text)) {
		snprintf(buf, size, "%s", json_string_value(text));
		return;
	}
	if (json_is_null(v) || !v) {
		snprintf(buf, size, "-");
		return;
	}
	if (json_is_string(v)) {
		snprintf(buf, size, "%s", json_string_value(v));
		return;
	}
	if (json_is_boolean(v) || c->kind == PR_BOOL) {
		snprintf(buf, size, "%s", json_is_true(v) || d != 0 ? "yes" : "no");
		return;
	}
	switch (c->kind) {
	case PR_REAL:
		snprintf(buf, size, c->fmt ? c->fmt : "%.3g", d);
		break;
	case PR_PCT:
		snprintf(buf, size, c->fmt ? c->fmt : "%.1f%%", d);
		break;
	case PR_NS:
		fmt_ns(buf, size, d);
		break;
	case PR_WALL: {
		time_t t = (time_t)(d / 1e9);
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
		else
			snprintf(buf, size, "-");
		break;
	}
	default:
		if (json_is_integer(v))
			snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		else
			snprintf(buf, size, "%.0f", d);
	}
}

#define CELL_MAX 512

static void text_record(struct pr *p, json_t *row, json_t *trow)
{
	const char *indent = p->title ? "  " : "";
	char buf[CELL_MAX];
	int w = 0;

	for (size_t i = 0; i < p->nr_cols; i++) {
		const char *h = p->cols[i].head ? p->cols[i].head : p->cols[i].key;

		if ((int)strlen(h) > w && !(p->cols[i].flags & PR_NOTEXT))
			w = (int)strlen(h);
	}
	for (size_t i = 0; i < p->nr_cols; i++) {
		const struct pr_col *c = &p->cols[i];

		if (c->flags & PR_NOTEXT)
			continue;
		text_of(c, json_array_get(row, i), json_array_get(trow, i), buf, sizeof(buf));
		fprintf(p->out, "%s%-*s  %s\n", indent, w, c->head ? c->head : c->key, buf);
	}
}

static void text_table(struct pr *p)
{
	size_t nr = json_array_size(p->rows), last = 0;
	int *w = calloc(p->nr_cols, sizeof(*w));
	char buf[CELL_MAX];

	if (!w)
		return;
	for (size_t i = 0; i < p->nr_cols; i++) {
		const struct pr_col *c = &p->cols[i];

		if (c->flags & (PR_BELOW | PR_NOTEXT))
			continue;
		w[i] = (int)strlen(c->head ? c->head : c->key);
		last = i;
		for (size_t r = 0; r < nr; r++) {
			text_of(c, json_array_get(json_array_get(p->rows, r), i),
				json_array_get(json_array_get(p->texts, r), i), buf, sizeof(buf));
			if ((int)strlen(buf) > w[i])
				w[i] = (int)strlen(buf);
		}
	}
	for (long r = -1; r < (long)nr; r++) {
		json_t *row = json_array_get(p->rows, r), *trow = json_array_get(p->texts, r);
		const char *sep = p->title ? "  " : "";

		for (size_t i = 0; i < p->nr_cols; i++) {
			const struct pr_col *c = &p->cols[i];
			bool left = c->kind == PR_STR || c->kind == PR_WALL || c->kind == PR_BOOL;

			if (c->flags & (PR_BELOW | PR_NOTEXT))
				continue;
			if (r < 0)
				snprintf(buf, sizeof(buf), "%s", c->head ? c->head : c->key);
			else
				text_of(c, json_array_get(row, i), json_array_get(trow, i), buf,
					sizeof(buf));
			fprintf(p->out, "%s%*s", sep, left ? -(i == last ? 0 : w[i]) : w[i], buf);
			sep = "  ";
		}
		fputc('\n', p->out);
		for (size_t i = 0; r >= 0 && i < p->nr_cols; i++) {
			if (!(p->cols[i].flags & PR_BELOW))
				continue;
			text_of(&p->cols[i], json_array_get(row, i), json_array_get(trow, i), buf,
				sizeof(buf));
			if (strcmp(buf, "-") && *buf)
				fprintf(p->out, "%s    %s\n", p->title ? "  " : "", buf);
		}
	}
	free(w);
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled. */
static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_value(FILE *out, json_t *v)
{
	if (json_is_string(v))
		csv_str(out, json_string_value(v));
	else if (json_is_integer(v))
		fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		fprintf(out, "%.10g", json_real_value(v));
	else if (json_is_boolean(v))
		fputc(json_is_true(v) ? '1' : '0', out);
	else if (json_is_object(v) || json_is_array(v)) {
		/* runs.params, a summary's nested values: their JSON, one field */
		char *text = json_dumps(v, JSON_COMPACT);

		if (text)
			csv_str(out, text);
		free(text);
	}
}

static void csv_table(struct pr *p)
{
	bool sections = p->flags & PR_SECTIONS;

	if (sections && p->printed)
		fputc('\n', p->out);
	for (long r = -1; r < (long)json_array_size(p->rows); r++) {
		json_t *row = json_array_get(p->rows, r);

		if (sections) {
			csv_str(p->out, r < 0 ? "section" : p->name);
			fputc(',', p->out);
		}
		for (size_t i = 0; i < p->nr_cols; i++) {
			if (i)
				fputc(',', p->out);
			if (r < 0)
				csv_str(p->out, p->cols[i].key);
			else
				csv_value(p->out, json_array_get(row, i));
		}
		fputc('\n', p->out);
	}
}

static void json_table(struct pr *p)
{
	json_t *arr = json_array();

	for (size_t r = 0; r < json_array_size(p->rows); r++) {
		json_t *row = json_array_get(p->rows, r), *o = json_object();

		for (size_t i = 0; i < p->nr_cols; i++) {
			json_t *v = json_array_get(row, i);

			if (p->cols[i].kind == PR_BOOL && json_is_integer(v))
				v = json_boolean(json_integer_value(v));
			else
				v = v ? json_incref(v) : json_null();
			json_object_set_new(o, p->cols[i].key, v);
		}
		json_array_append_new(arr, o);
	}
	if (p->tflags & PR_RECORD) {
		json_object_set(p->doc, p->name,
				json_array_size(arr) ? json_array_get(arr, 0) : json_null());
		json_decref(arr);
	} else {
		json_object_set_new(p->doc, p->name, arr);
	}
}

void pr_object(struct pr *p, json_t *obj)
{
	const char *key;
	json_t *v;
	bool first = true;

	if (!obj)
		return;
	switch (p->format) {
	case PR_JSON:
		json_decref(p->object);
		p->object = obj;
		return;
	case PR_CSV:
		json_object_foreach(obj, key, v)
		{
			fputs(first ? "" : ",", p->out);
			csv_str(p->out, key);
			first = false;
		}
		fputc('\n', p->out);
		first = true;
		json_object_foreach(obj, key, v)
		{
			fputs(first ? "" : ",", p->out);
			csv_value(p->out, v);
			first = false;
		}
		fputc('\n', p->out);
		p->printed = true;
		break;
	case PR_TEXT:
		break;
	}
	json_decref(obj);
}

void pr_table_end(struct pr *p)
{
	if (!p->rows)
		return;
	switch (p->format) {
	case PR_JSON:
		json_table(p);
		break;
	case PR_CSV:
		csv_table(p);
		break;
	case PR_TEXT:
		if (p->printed)
			fputc('\n', p->out);
		if (p->title)
			fprintf(p->out, "%s\n", p->title);
		if (p->tflags & PR_RECORD) {
			if (json_array_size(p->rows))
				text_record(p, json_array_get(p->rows, 0),
					    json_array_get(p->texts, 0));
		} else if (json_array_size(p->rows)) {
			text_table(p);
		} else {
			fprintf(p->out, "%s(none)\n", p->title ? "  " : "");
		}
		break;
	}
	p->printed = true;
	json_decref(p->rows);
	json_decref(p->texts);
	p->rows = p->texts = NULL;
}
