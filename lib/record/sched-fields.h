/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Decoding of raw sched_* trace records into struct sl_event. Field offsets are resolved
 * once per event type from the kernel's format files (tep_find_field), so the hot path
 * never looks a field up by name. The sched_switch prev_state encoding (which bit is the
 * "R+" preemption bit, which bit is which letter) differs across kernels; it is derived
 * from the event's print fmt text rather than hard-coded.
 */
#ifndef SL_SCHED_FIELDS_H
#define SL_SCHED_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct tep_handle;

#define SL_PREV_STATE_MAX_FLAGS 16

/* How one kernel encodes sched_switch prev_state. */
struct sl_prev_state_map {
	uint64_t preempt_bit; /* TASK_REPORT_MAX (or TASK_STATE_MAX); 0: none on this kernel */
	int nr_flags;
	struct {
		uint64_t bit;
		char letter;
	} flags[SL_PREV_STATE_MAX_FLAGS];
};

/*
 * Derives the map from sched_switch's print fmt (the whole format file or just its
 * "print fmt:" text). Without a "+" clause the preempt bit is 0; without __print_flags
 * the letters of current kernels are assumed. Returns 0 or -SL_EPARSE with a message.
 */
int sl_prev_state_parse(const char *print_fmt, struct sl_prev_state_map *ret_map);

/* Normalizes a raw prev_state: 'R' when no state bit is set, else the lowest bit's letter
 * ('?' if the map does not name it); *ret_preempt is 1 for the preempt bit. */
void sl_prev_state_decode(const struct sl_prev_state_map *map, uint64_t raw, char *ret_state,
			  uint8_t *ret_preempt);

/* A field's place in the raw record; size 0 when the kernel does not have it. */
struct sl_field {
	uint16_t offset;
	uint16_t size;
	bool dynamic; /* __data_loc: the record holds (len << 16 | offset) */
};

enum sl_sched_event_kind {
	SL_SE_WAKING,
	SL_SE_WAKEUP,
	SL_SE_WAKEUP_NEW,
	SL_SE_SWITCH,
	SL_SE_MIGRATE,
	SL_SE_FORK,
	SL_SE_EXIT,
	SL_SE_FUTEX, /* syscalls/sys_enter_futex: optional, for lock-holder preemption */
	SL_SE_COUNT
};

/* Fields of every event kind, indexed by the generic names below. */
enum {
	SL_F_COMM,
	SL_F_PID,
	SL_F_PRIO,
	SL_F_TARGET, /* target_cpu, orig_cpu */
	SL_F_COMM2,
	SL_F_PID2,
	SL_F_PRIO2,
	SL_F_STATE, /* prev_state */
	SL_F_DEST, /* dest_cpu */
	SL_F_UADDR, /* a futex call's uaddr */
	SL_F_OP, /* and its op */
	SL_F_NR
};

struct sl_sched_fields {
	struct sl_field common_type;
	struct sl_field common_pid;
	struct sl_field common_flags; /* size 0 if the kernel has none */
	int id[SL_SE_COUNT]; /* tep event id; -1 when the kernel lacks the event */
	struct sl_field f[SL_SE_COUNT][SL_F_NR];
	struct sl_prev_state_map prev_state;
	/* Bytes a record of each kind must have to hold every field we read (and common_*):
	 * one comparison per record instead of one per field. */
	uint32_t need[SL_SE_COUNT];
	/* Lookup from event id to kind, for ids below 4096 (else a scan). */
	int8_t kind_of_id[4096];
};

/* Name of the tracepoint for a kind: "sched_waking", ... */
const char *sl_sched_event_name(enum sl_sched_event_kind kind);
/* Its system: "sched", "syscalls" for the futex call. */
const char *sl_sched_event_system(enum sl_sched_event_kind kind);

/*
 * Resolves ids and fields of every sched event tep knows, and the prev_state map from
 * switch_fmt (the sched_switch format text; NULL: current kernels' encoding). Missing
 * events get id -1; no sched_switch, or neither sched_waking nor sched_wakeup, is an
 * error (-SL_ETRACE).
 */
int sl_sched_fields_resolve(struct tep_handle *tep, const char *switch_fmt,
			    struct sl_sched_fields *ret);

/*
 * Decodes one raw record of size bytes into ev (ts_ns and cpu are the caller's). Returns
 * 1 if it was a sched event we use, 0 for any other event, -1 for a truncated record.
 */
int sl_sched_decode(const struct sl_sched_fields *sf, const void *data, int size,
		    struct sl_event *ev);

#endif
