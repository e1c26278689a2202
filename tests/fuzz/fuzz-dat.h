/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inflate budget the trace.dat fuzz harness (fuzz-dat.c) parses with. The reader's own,
 * SL_DAT_INFLATE_BUDGET (1 GiB), cannot be reached from an input of -max_len=131072 bytes
 * (each section or chunk inflates at most 4096 times its size), so the harness uses 1 MiB:
 * the seed corpus-dat/budget-many-sections.dat exceeds it, and the guest16 fixtures (5556
 * bytes of sections, chunks of a few pages) fit. tests/unit/t-dat-file.c checks both.
 */
#ifndef SL_FUZZ_DAT_H
#define SL_FUZZ_DAT_H

#define FUZZ_DAT_INFLATE_BUDGET (1ull << 20)

#endif
