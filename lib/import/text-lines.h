/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A text file, line by line, through one buffer that read(2) refills. Not an mmap: on this
 * project's VMs the first touch of every mapped page of a large text (a TLB fill under the
 * hypervisor's shadow page tables) made the search for line ends cost three times what it
 * costs in a buffer that stays in cache (78 MB, 577 k lines: 50 ms mapped, 15 ms read in
 * 256 KiB pieces); the kernel's copy goes through its own huge-page mapping.
 */
#ifndef SL_IMPORT_TEXT_LINES_H
#define SL_IMPORT_TEXT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longer lines are an error: no trace line comes near it, and memory stays bounded. */
#define SL_TEXT_LINE_MAX (16u << 20)

struct sl_text_lines;

/* Opens path (O_CLOEXEC) for reading; *ret_size is its size in bytes. */
int sl_text_lines_open(const char *path, struct sl_text_lines **ret, uint64_t *ret_size);
void sl_text_lines_close(struct sl_text_lines *r);

/*
 * The next line: 1 with *line (valid until the next call) and *len (without its newline;
 * the last line may have none) and *nul_free (false: the line holds a NUL byte), 0 at the
 * end of the file, or a negative code with a message naming the file (a read error, a line
 * over SL_TEXT_LINE_MAX).
 */
int sl_text_lines_next(struct sl_text_lines *r, const char **line, size_t *len, bool *nul_free);

/* The file offset of the line last returned (of the one that failed, after an error). */
uint64_t sl_text_lines_offset(const struct sl_text_lines *r);

#endif
