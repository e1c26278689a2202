// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the text import's line reader (lib/import/text-lines.c): every line of a
 * file comes back whole, with its offset, wherever the 256 KiB refills cut it; a last line
 * without a newline; NUL bytes flagged in the line that holds them and nowhere else; lines
 * that grow the buffer; a line over SL_TEXT_LINE_MAX refused with its number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixture.h"
#include "tap.h"
#include "text-lines.h"

static const char *write_file(const char *name, const char *data, size_t len)
{
	const char *path = fixture_path(name);
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
	return path;
}

/* A file of lines of lengths 0, 1, ... (mod 300) and the same lines read back. */
static void every_line_whole(void)
{
	size_t n = 0, cap = 3u << 20, nr = 0, bad = 0, lines_read = 0;
	char *data = malloc(cap);
	uint64_t *starts = malloc(sizeof(*starts) * 40000);
	struct sl_text_lines *r;
	const char *path, *s;
	uint64_t size;
	size_t len;
	bool nul_free;
	int ret;

	while (n + 400 < cap && nr < 40000) {
		size_t l = nr % 300;

		starts[nr++] = n;
		for (size_t i = 0; i < l; i++)
			data[n++] = 'a' + (nr + i) % 26;
		data[n++] = '\n';
	}
	path = write_file("lines", data, n);
	ok(sl_text_lines_open(path, &r, &size) == 0 && size == n, "opened, size %zu", n);
	while ((ret = sl_text_lines_next(r, &s, &len, &nul_free)) > 0) {
		size_t i = lines_read++;

		if (i >= nr || len != i % 300 || !nul_free ||
		    sl_text_lines_offset(r) != starts[i] || memcmp(s, data + starts[i], len))
			bad++;
	}
	is_int(ret, 0, "end of file");
	is_int(lines_read, nr, "%zu lines over %zu refills", nr, n / (256u << 10) + 1);
	is_int(bad, 0, "each line whole, at its offset, no NUL");
	is_int(sl_text_lines_next(r, &s, &len, &nul_free), 0, "still the end");
	sl_text_lines_close(r);
	free(starts);
	free(data);
}

static void last_line_and_nul(void)
{
	static const char text[] = "one\ntw\0o\nthree";
	struct sl_text_lines *r;
	const char *s;
	uint64_t size;
	size_t len;
	bool nul_free;

	if (sl_text_lines_open(write_file("nul", text, sizeof(text) - 1), &r, &size) < 0)
		abort();
	ok(sl_text_lines_next(r, &s, &len, &nul_free) == 1 && len == 3 && nul_free &&
		   !memcmp(s, "one", 3),
	   "first line");
	ok(sl_text_lines_next(r, &s, &len, &nul_free) == 1 && len == 4 && !nul_free &&
		   !memcmp(s, "tw\0o", 4) && sl_text_lines_offset(r) == 4,
	   "a NUL byte: the whole line, flagged");
	ok(sl_text_lines_next(r, &s, &len, &nul_free) == 1 && len == 5 && nul_free &&
		   !memcmp(s, "three", 5) && sl_text_lines_offset(r) == 9,
	   "a last line without its newline");
	is_int(sl_text_lines_next(r, &s, &len, &nul_free), 0, "then the end");
	sl_text_lines_close(r);
}

/* A 1 MiB line grows the buffer; one over SL_TEXT_LINE_MAX is an error naming it. */
static void long_lines(void)
{
	size_t big = 1u << 20, huge = SL_TEXT_LINE_MAX + 10, n = 0;
	char *data = malloc(huge + big + 16);
	struct sl_text_lines *r;
	const char *s, *path;
	uint64_t size;
	size_t len;
	bool nul_free;
	int ret;

	memcpy(data, "x\n", 2);
	n = 2;
	memset(data + n, 'b', big);
	n += big;
	data[n++] = '\n';
	memset(data + n, 'h', huge);
	n += huge;
	data[n++] = '\n';
	path = write_file("long", data, n);
	if (sl_text_lines_open(path, &r, &size) < 0)
		abort();
	ok(sl_text_lines_next(r, &s, &len, &nul_free) == 1 && len == 1, "short line");
	ok(sl_text_lines_next(r, &s, &len, &nul_free) == 1 && len == big && s[0] == 'b' &&
		   s[big - 1] == 'b' && sl_text_lines_offset(r) == 2,
	   "a 1 MiB line, whole");
	ret = sl_text_lines_next(r, &s, &len, &nul_free);
	is_int(ret, -SL_EPARSE, "a line over %u MiB: error", SL_TEXT_LINE_MAX >> 20);
	ok(strstr(sl_errmsg(0), "line 3 is longer than 16 MiB") != NULL, "message: %s",
	   sl_errmsg(0));
	is_int(sl_text_lines_offset(r), 2 + big + 1, "its offset");
	sl_text_lines_close(r);
	free(data);
}

static void missing_file(void)
{
	struct sl_text_lines *r;
	uint64_t size;

	is_int(sl_text_lines_open(fixture_path("absent"), &r, &size), -ENOENT, "missing file");
	ok(strstr(sl_errmsg(0), "cannot open") != NULL, "message: %s", sl_errmsg(0));
}

int main(void)
{
	every_line_whole();
	last_line_and_nul();
	long_lines();
	missing_file();
	return done_testing();
}
