// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the ftrace text line parser (lib/import/import-text.c): each input is
 * split into lines and parsed as a file would be. The parser must never crash, read out
 * of bounds or loop; errors are fine. Each line also goes through a second parser with the
 * fast path off: both must return the same, with the same event, error and parser state.
 * `make fuzz` builds it with clang -fsanitize=fuzzer,address,undefined and runs it on
 * tests/fuzz/corpus/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "import-text.h"

static bool same_state(const struct sl_text_parser *a, const struct sl_text_parser *b)
{
	return sl_text_parser_tgid(a) == sl_text_parser_tgid(b) &&
	       sl_text_parser_lines(a) == sl_text_parser_lines(b) &&
	       sl_text_parser_skipped(a) == sl_text_parser_skipped(b) &&
	       sl_text_parser_other(a, NULL) == sl_text_parser_other(b, NULL) &&
	       sl_text_parser_style(a) == sl_text_parser_style(b) &&
	       sl_text_parser_nsec(a) == sl_text_parser_nsec(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sl_text_parser *p, *slow;
	const char *s = (const char *)data, *e = s + size, *nl;
	struct sl_event ev, ev2;
	char msg[512];
	int r, r2;

	if (sl_text_parser_new(64, &p) < 0)
		return 0;
	if (sl_text_parser_new(64, &slow) < 0) {
		sl_text_parser_free(p);
		return 0;
	}
	sl_text_parser_set_fast(slow, false);
	for (; s < e; s = nl + 1) {
		nl = memchr(s, '\n', e - s);
		if (!nl)
			nl = e;
		memset(&ev, 0, sizeof(ev));
		memset(&ev2, 0, sizeof(ev2));
		r = sl_text_parse_line(p, s, nl - s, &ev);
		snprintf(msg, sizeof(msg), "%s", r < 0 ? sl_errmsg(r) : "");
		if (r == 1 && ev.cpu >= 64)
			__builtin_trap();
		r2 = sl_text_parse_line(slow, s, nl - s, &ev2);
		if (r != r2 || (r == 1 && memcmp(&ev, &ev2, sizeof(ev))) ||
		    (r < 0 && strcmp(msg, sl_errmsg(r2))) || !same_state(p, slow))
			__builtin_trap();
	}
	sl_text_parser_free(p);
	sl_text_parser_free(slow);
	return 0;
}
