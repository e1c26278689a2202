/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ftrace text line parser: turns one line of the kernel's /sys/kernel/tracing/trace
 * output (the events' own print formats: "prev_comm=... prev_state=R+ ==> next_comm=...")
 * or of `trace-cmd report`'s default output (its sched plugin: "postgres:104 [120] R+ ==>
 * swapper/5:0 [120]", "postgres:104 [120] CPU:003") into a struct sl_event. It accepts
 * comms with spaces and dashes, the "(tgid)" column of the record-tgid option, the
 * irq/preempt flags column present or absent, and microsecond or nanosecond timestamps.
 * Lines that are not sched events (headers, comments, other events, garbage) are skipped
 * and counted; a line that names one of the sched events read here (sched_switch,
 * sched_waking, ...) but does not parse, or carries absurd values or an out-of-range
 * timestamp, is an error naming the line number and the field. Timestamps must not go backwards on a CPU.
 */
#ifndef SL_IMPORT_TEXT_H
#define SL_IMPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* Values above these are "absurd": the kernel cannot produce them. */
#define SL_TEXT_PID_MAX 4194304 /* PID_MAX_LIMIT */
#define SL_TEXT_PRIO_MIN (-1)
#define SL_TEXT_PRIO_MAX 200
/* Timestamps are stored as signed 64-bit nanoseconds: seconds above this are errors. */
#define SL_TEXT_SEC_MAX 9223372035ll

enum sl_text_style {
	SL_TEXT_UNKNOWN,
	SL_TEXT_KERNEL, /* the events' print formats (tracefs trace, trace-cmd report -R is close) */
	SL_TEXT_PLUGIN, /* trace-cmd report's sched plugin: "comm:pid [prio] ..." */
};

struct sl_text_parser;

/*
 * Creates a parser. max_cpus bounds the CPU column and every CPU field (events naming a
 * CPU at or above it are errors); 0 means SL_TOPO_MAX_CPUS. Free with
 * sl_text_parser_free().
 */
int sl_text_parser_new(int max_cpus, struct sl_text_parser **ret_parser);
void sl_text_parser_free(struct sl_text_parser *p);

/*
 * Parses the next line (len bytes, no newline needed; NULs are errors). Returns 1 and
 * fills *ev for a sched event or a lost-events marker, 0 for a line without one, or a
 * negative code with a message "line N: ..." (-SL_EPARSE, -SL_ERANGE).
 */
int sl_text_parse_line(struct sl_text_parser *p, const char *line, size_t len, struct sl_event *ev);
/*
 * sl_text_parse_line() for a caller that has made sure the line holds no NUL byte: the
 * parser's own memchr per line costs as much as the search for the line's end, which
 * read_text() does with strchrnul(), finding a NUL in the same pass.
 */
int sl_text_parse_line_nul_checked(struct sl_text_parser *p, const char *line, size_t len,
				   struct sl_event *ev);

/* The "(tgid)" column of the last event line, or -1 when it had none. */
int32_t sl_text_parser_tgid(const struct sl_text_parser *p);
/* Lines consumed so far (the number of the last line). */
uint64_t sl_text_parser_lines(const struct sl_text_parser *p);
/* Lines skipped: not sched events (blank lines and comments included). */
uint64_t sl_text_parser_skipped(const struct sl_text_parser *p);
/*
 * Of those, the lines that were neither blank, comments ('#') nor trace-cmd report's
 * headers: other events and lines that do not parse. The number of the first in
 * *ret_first_line (0 if none; may be NULL).
 */
uint64_t sl_text_parser_other(const struct sl_text_parser *p, uint64_t *ret_first_line);
/* The style of the sched lines seen so far (the first event line decides). */
enum sl_text_style sl_text_parser_style(const struct sl_text_parser *p);
/* Whether any timestamp had nanosecond precision (9 fractional digits). */
bool sl_text_parser_nsec(const struct sl_text_parser *p);

/*
 * Lines the kernel itself wrote take a fast path that falls back to the general parser for
 * anything else; off, every line takes the general path. Only for tests comparing the two.
 */
void sl_text_parser_set_fast(struct sl_text_parser *p, bool on);

#endif
