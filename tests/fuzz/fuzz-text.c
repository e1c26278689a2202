// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the ftrace text line parser (lib/import-text.c): each input is
 * split into lines and parsed as a file would be. The parser must never crash, read out
 * of bounds or loop; errors are fine. `make fuzz` builds it with clang
 * -fsanitize=fuzzer,address,undefined and runs it on tests/fuzz/corpus/.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "import-text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sl_text_parser *p;
	const char *s = (const char *)data, *e = s + size, *nl;
	struct sl_event ev;

	if (sl_text_parser_new(64, &p) < 0)
		return 0;
	for (; s < e; s = nl + 1) {
		nl = memchr(s, '\n', e - s);
		if (!nl)
			nl = e;
		if (sl_text_parse_line(p, s, nl - s, &ev) == 1 && ev.cpu >= 64)
			__builtin_trap();
	}
	sl_text_parser_free(p);
	return 0;
}
