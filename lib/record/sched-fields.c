// SPDX-License-Identifier: GPL-2.0-only
/*
 * Raw sched_* record decoding for the live recorder: field offsets resolved once from the
 * kernel's formats, and the sched_switch prev_state encoding derived from its print fmt
 * (a tiny constant-expression evaluator reads the "prev_state & <expr> ? "+"" clause and
 * the __print_flags table), because TASK_REPORT_MAX moved from 1024 to 2048 to 4096 to
 * 256 across kernel versions.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "error.h"
#include "sched-fields.h"

static const char *const sched_names[SL_SE_COUNT] = {
	[SL_SE_WAKING] = "sched_waking",	 [SL_SE_WAKEUP] = "sched_wakeup",
	[SL_SE_WAKEUP_NEW] = "sched_wakeup_new", [SL_SE_SWITCH] = "sched_switch",
	[SL_SE_MIGRATE] = "sched_migrate_task",	 [SL_SE_FORK] = "sched_process_fork",
	[SL_SE_EXIT] = "sched_process_exit",	 [SL_SE_FUTEX] = "sys_enter_futex",
};

const char *sl_sched_event_name(enum sl_sched_event_kind kind)
{
	return kind < SL_SE_COUNT ? sched_names[kind] : "?";
}

const char *sl_sched_event_system(enum sl_sched_event_kind kind)
{
	return kind == SL_SE_FUTEX ? "syscalls" : "sched";
}

/* --- prev_state print fmt ------------------------------------------------------------- */

/* Recursive descent over C integer constant expressions as they appear in print fmts. */
struct expr {
	const char *p, *end;
	bool bad;
};

static void expr_skip(struct expr *e)
{
	while (e->p < e->end && isspace((unsigned char)*e->p))
		e->p++;
}

static bool expr_take(struct expr *e, const char *tok)
{
	size_t n = strlen(tok);

	expr_skip(e);
	if ((size_t)(e->end - e->p) >= n && !memcmp(e->p, tok, n)) {
		/* do not read "<<" as "<" or "|" out of "||" */
		if (n == 1 && e->p + 1 < e->end && e->p[1] == tok[0] && strchr("<>|&", tok[0]))
			return false;
		e->p += n;
		return true;
	}
	return false;
}

static uint64_t expr_or(struct expr *e);

static uint64_t expr_unary(struct expr *e)
{
	char *endp;
	uint64_t v;

	expr_skip(e);
	if (expr_take(e, "("))
		goto paren;
	if (expr_take(e, "~"))
		return ~expr_unary(e);
	if (expr_take(e, "-"))
		return -expr_unary(e);
	if (e->p < e->end && isdigit((unsigned char)*e->p)) {
		errno = 0;
		v = strtoull(e->p, &endp, 0);
		if (errno || endp > e->end)
			e->bad = true;
		e->p = endp;
		/* integer suffixes: 1UL, 0x100ull */
		while (e->p < e->end && strchr("uUlL", *e->p))
			e->p++;
		return v;
	}
	e->bad = true;
	return 0;
paren:
	v = expr_or(e);
	if (!expr_take(e, ")"))
		e->bad = true;
	return v;
}

static uint64_t expr_mul(struct expr *e)
{
	uint64_t v = expr_unary(e);

	while (!e->bad && expr_take(e, "*"))
		v *= expr_unary(e);
	return v;
}

static uint64_t expr_add(struct expr *e)
{
	uint64_t v = expr_mul(e);

	for (;;) {
		if (expr_take(e, "+"))
			v += expr_mul(e);
		else if (expr_take(e, "-"))
			v -= expr_mul(e);
		else
			return v;
	}
}

static uint64_t expr_shift(struct expr *e)
{
	uint64_t v = expr_add(e), s;

	for (;;) {
		if (expr_take(e, "<<")) {
			s = expr_add(e);
			v = s < 64 ? v << s : 0;
		} else if (expr_take(e, ">>")) {
			s = expr_add(e);
			v = s < 64 ? v >> s : 0;
		} else {
			return v;
		}
	}
}

static uint64_t expr_and(struct expr *e)
{
	uint64_t v = expr_shift(e);

	while (!e->bad && expr_take(e, "&"))
		v &= expr_shift(e);
	return v;
}

static uint64_t expr_or(struct expr *e)
{
	uint64_t v = expr_and(e);

	while (!e->bad && expr_take(e, "|"))
		v |= expr_and(e);
	return v;
}

static int eval_const(const char *start, const char *end, uint64_t *ret)
{
	struct expr e = { .p = start, .end = end };
	uint64_t v = expr_or(&e);

	expr_skip(&e);
	if (e.bad || e.p != e.end)
		return -1;
	*ret = v;
	return 0;
}

/* The letters of 4.14+ kernels, used when a format has no __print_flags table. */
static const struct {
	uint64_t bit;
	char letter;
} default_flags[] = { { 0x1, 'S' },  { 0x2, 'D' },  { 0x4, 'T' },  { 0x8, 't' },
		      { 0x10, 'X' }, { 0x20, 'Z' }, { 0x40, 'P' }, { 0x80, 'I' } };

static int parse_flags(const char *fmt, struct sl_prev_state_map *map)
{
	const char *p = strstr(fmt, "__print_flags(");
	const char *close;

	map->nr_flags = 0;
	if (!p) {
		for (size_t i = 0; i < sizeof(default_flags) / sizeof(default_flags[0]); i++) {
			map->flags[i].bit = default_flags[i].bit;
			map->flags[i].letter = default_flags[i].letter;
		}
		map->nr_flags = sizeof(default_flags) / sizeof(default_flags[0]);
		return 0;
	}
	/* entries look like { 0x00000001, "S" } and end at the call's closing ")" */
	close = strstr(p, ") :");
	if (!close)
		close = p + strlen(p);
	while ((p = strchr(p, '{')) && p < close) {
		const char *q = strchr(p, ',');
		const char *quote;
		uint64_t bit;

		if (!q || q > close)
			break;
		quote = strchr(q, '"');
		if (!quote || quote > close || eval_const(p + 1, q, &bit) < 0)
			return sl_error(-SL_EPARSE,
					"sched_switch print fmt: bad __print_flags entry");
		if (map->nr_flags == SL_PREV_STATE_MAX_FLAGS)
			return sl_error(-SL_EPARSE, "sched_switch print fmt: too many state flags");
		map->flags[map->nr_flags].bit = bit;
		map->flags[map->nr_flags].letter = quote[1];
		map->nr_flags++;
		p = quote + 1;
	}
	if (!map->nr_flags)
		return sl_error(-SL_EPARSE, "sched_switch print fmt: empty __print_flags table");
	return 0;
}

int sl_prev_state_parse(const char *print_fmt, struct sl_prev_state_map *ret_map)
{
	struct sl_prev_state_map map = { 0 };
	const char *fmt, *plus, *amp, *q;
	int ret;

	if (!print_fmt)
		return sl_error(-SL_EPARSE, "no sched_switch print fmt");
	fmt = strstr(print_fmt, "print fmt:");
	fmt = fmt ? fmt : print_fmt;
	if (!strstr(fmt, "prev_state"))
		return sl_error(-SL_EPARSE, "sched_switch print fmt does not mention prev_state");

	ret = parse_flags(fmt, &map);
	if (ret < 0)
		return ret;

	/* The preempt bit is the mask in `REC->prev_state & <expr> ? "+" : ""`. */
	plus = strstr(fmt, "\"+\"");
	if (plus) {
		q = plus;
		while (q > fmt && q[-1] != '?')
			q--;
		if (q == fmt)
			return sl_error(-SL_EPARSE,
					"sched_switch print fmt: \"+\" without a condition");
		q--; /* at the '?' */
		amp = NULL;
		for (const char *s = fmt; (s = strstr(s, "prev_state")) && s < q; s++)
			amp = s;
		if (!amp)
			return sl_error(-SL_EPARSE,
					"sched_switch print fmt: \"+\" not tied to prev_state");
		amp += strlen("prev_state");
		while (amp < q && isspace((unsigned char)*amp))
			amp++;
		if (*amp != '&' || eval_const(amp + 1, q, &map.preempt_bit) < 0 || !map.preempt_bit)
			return sl_error(-SL_EPARSE,
					"sched_switch print fmt: cannot evaluate the preempt mask");
		if (map.preempt_bit & (map.preempt_bit - 1))
			return sl_error(
				-SL_EPARSE,
				"sched_switch print fmt: preempt mask 0x%llx is not one bit",
				(unsigned long long)map.preempt_bit);
	}
	*ret_map = map;
	return 0;
}

void sl_prev_state_decode(const struct sl_prev_state_map *map, uint64_t raw, char *ret_state,
			  uint8_t *ret_preempt)
{
	uint64_t bits = map->preempt_bit ? raw & (map->preempt_bit - 1) : raw;
	uint64_t low;

	*ret_preempt = map->preempt_bit && (raw & map->preempt_bit);
	if (!bits) {
		*ret_state = 'R';
		return;
	}
	low = bits & -bits;
	for (int i = 0; i < map->nr_flags; i++) {
		if (map->flags[i].bit == low) {
			*ret_state = map->flags[i].letter;
			return;
		}
	}
	*ret_state = '?';
}

/* --- field resolution ------------------------------------------------------------------ */

static const char *const field_names[SL_SE_COUNT][SL_F_NR] = {
	[SL_SE_WAKING] = { "comm", "pid", "prio", "target_cpu" },
	[SL_SE_WAKEUP] = { "comm", "pid", "prio", "target_cpu" },
	[SL_SE_WAKEUP_NEW] = { "comm", "pid", "prio", "target_cpu" },
	[SL_SE_SWITCH] = { "prev_comm", "prev_pid", "prev_prio", NULL, "next_comm", "next_pid",
			   "next_prio", "prev_state" },
	[SL_SE_MIGRATE] = { "comm", "pid", "prio", "orig_cpu", NULL, NULL, NULL, NULL, "dest_cpu" },
	[SL_SE_FORK] = { "parent_comm", "parent_pid", NULL, NULL, "child_comm", "child_pid" },
	[SL_SE_EXIT] = { "comm", "pid", "prio" },
	[SL_SE_FUTEX] = { [SL_F_UADDR] = "uaddr", [SL_F_OP] = "op" },
};

static int set_field(struct tep_format_field *tf, struct sl_field *f)
{
	if (!tf)
		return 0;
	if (tf->offset < 0 || tf->offset > 0xffff || tf->size <= 0 || tf->size > 0xffff)
		return -1;
	f->offset = tf->offset;
	f->size = tf->size;
	f->dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
	return 0;
}

int sl_sched_fields_resolve(struct tep_handle *tep, const char *switch_fmt,
			    struct sl_sched_fields *ret)
{
	struct sl_sched_fields *sf;
	struct tep_event *any = NULL;
	int err;

	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -ENOMEM;
	memset(sf->kind_of_id, -1, sizeof(sf->kind_of_id));

	for (int k = 0; k < SL_SE_COUNT; k++) {
		struct tep_event *ev = tep_find_event_by_name(
			tep, sl_sched_event_system((enum sl_sched_event_kind)k), sched_names[k]);

		sf->id[k] = -1;
		if (!ev)
			continue;
		if (k != SL_SE_FUTEX)
			any = ev;
		sf->id[k] = ev->id;
		if (ev->id >= 0 && ev->id < (int)sizeof(sf->kind_of_id))
			sf->kind_of_id[ev->id] = k;
		for (int i = 0; i < SL_F_NR; i++) {
			if (!field_names[k][i])
				continue;
			if (set_field(tep_find_field(ev, field_names[k][i]), &sf->f[k][i]) < 0) {
				err = sl_error(-SL_EFORMAT, "%s: field '%s' has an odd layout",
					       sched_names[k], field_names[k][i]);
				goto fail;
			}
		}
	}
	if (sf->id[SL_SE_SWITCH] < 0 || (sf->id[SL_SE_WAKEUP] < 0 && sf->id[SL_SE_WAKING] < 0)) {
		err = sl_error(-SL_ETRACE, "the kernel has no sched:%s event",
			       sf->id[SL_SE_SWITCH] < 0 ? "sched_switch" : "sched_wakeup");
		goto fail;
	}
	for (int k = 0; k < SL_SE_COUNT; k++) {
		if (sf->id[k] >= (int)sizeof(sf->kind_of_id)) {
			err = sl_error(-SL_EFORMAT, "%s: event id %d is too large", sched_names[k],
				       sf->id[k]);
			goto fail;
		}
	}
	if (sf->f[SL_SE_SWITCH][SL_F_PID].size == 0 || sf->f[SL_SE_SWITCH][SL_F_STATE].size == 0 ||
	    sf->f[SL_SE_SWITCH][SL_F_PID2].size == 0) {
		err = sl_error(-SL_EFORMAT, "sched_switch lacks prev_pid, prev_state or next_pid");
		goto fail;
	}
	if (set_field(tep_find_common_field(any, "common_type"), &sf->common_type) < 0 ||
	    set_field(tep_find_common_field(any, "common_pid"), &sf->common_pid) < 0 ||
	    !sf->common_type.size || !sf->common_pid.size) {
		err = sl_error(-SL_EFORMAT, "sched events lack common_type or common_pid");
		goto fail;
	}
	/* optional: without it every waking counts as made by its task */
	if (set_field(tep_find_common_field(any, "common_flags"), &sf->common_flags) < 0 ||
	    sf->common_flags.size != 1)
		memset(&sf->common_flags, 0, sizeof(sf->common_flags));
	for (int k = 0; k < SL_SE_COUNT; k++) {
		unsigned int need = sf->common_pid.offset + sf->common_pid.size;

		for (int i = 0; i < SL_F_NR; i++)
			if (sf->f[k][i].size && sf->f[k][i].offset + sf->f[k][i].size > need)
				need = sf->f[k][i].offset + sf->f[k][i].size;
		sf->need[k] = need;
	}
	if (switch_fmt) {
		err = sl_prev_state_parse(switch_fmt, &sf->prev_state);
		if (err < 0)
			goto fail;
	} else {
		sf->prev_state.preempt_bit = 0x100;
		parse_flags("", &sf->prev_state);
	}
	*ret = *sf;
	free(sf);
	return 0;
fail:
	free(sf);
	return err;
}

/* --- decoding -------------------------------------------------------------------------- */

/*
 * SL_IRQ_* of common_flags, whose bits are the kernel's enum trace_flag_type
 * (kernel/trace/trace.h, the same values since 2.6): TRACE_FLAG_HARDIRQ 0x08,
 * TRACE_FLAG_SOFTIRQ 0x10 (serving a softirq), TRACE_FLAG_NMI 0x40.
 */
static inline uint8_t irq_of_flags(uint8_t flags)
{
	return (flags & (0x08 | 0x40) ? SL_IRQ_HARD : 0) | (flags & 0x10 ? SL_IRQ_SOFT : 0);
}

/* Live records are in host byte order, so a memcpy of the right width is enough. */
static inline int64_t rd_int(const uint8_t *d, const struct sl_field *f)
{
	switch (f->size) {
	case 1: {
		int8_t v;
		memcpy(&v, d + f->offset, 1);
		return v;
	}
	case 2: {
		int16_t v;
		memcpy(&v, d + f->offset, 2);
		return v;
	}
	case 4: {
		int32_t v;
		memcpy(&v, d + f->offset, 4);
		return v;
	}
	case 8: {
		int64_t v;
		memcpy(&v, d + f->offset, 8);
		return v;
	}
	}
	return 0;
}

static inline void rd_comm(const uint8_t *d, int size, const struct sl_field *f, char *out)
{
	const uint8_t *src = d + f->offset;
	unsigned int len = f->size;

	if (f->dynamic) {
		uint32_t loc;

		memcpy(&loc, d + f->offset, 4);
		if ((loc & 0xffff) + (loc >> 16) > (unsigned int)size) {
			out[0] = '\0';
			return;
		}
		src = d + (loc & 0xffff);
		len = loc >> 16;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && SL_COMM_LEN == 16
	if (len == SL_COMM_LEN) {
		/* the usual char[16]: two words, cut at the first NUL without a byte loop */
		uint64_t w[2];

		memcpy(w, src, 16);
		w[1] &= ~(0xffull << 56);
		for (int i = 0; i < 2; i++) {
			uint64_t z = (w[i] - 0x0101010101010101ull) & ~w[i] & 0x8080808080808080ull;

			if (z) {
				/* the lowest flagged byte is the first NUL (higher flags may be
				 * false, which does not matter) */
				int k = __builtin_ctzll(z) / 8;

				w[i] &= k ? ~0ull >> (64 - 8 * k) : 0;
				if (i == 0)
					w[1] = 0;
				break;
			}
		}
		memcpy(out, w, 16);
		return;
	}
#endif
	if (len > SL_COMM_LEN - 1)
		len = SL_COMM_LEN - 1;
	/* NUL-padded, so that consumers can compare comms as 16 bytes (the engine does) */
	len = strnlen((const char *)src, len);
	memcpy(out, src, len);
	memset(out + len, 0, SL_COMM_LEN - len);
}

int sl_sched_decode(const struct sl_sched_fields *sf, const void *data, int size,
		    struct sl_event *ev)
{
	const uint8_t *d = data;
	const struct sl_field *f;
	int id, k = -1;

	if (size < sf->common_type.offset + sf->common_type.size)
		return -1;
	id = (int)(uint16_t)rd_int(d, &sf->common_type);
	if (id < (int)sizeof(sf->kind_of_id))
		k = sf->kind_of_id[id];
	if (k < 0)
		return 0;
	f = sf->f[k];
	/* every field we read lies in the fixed part, which the format sizes */
	if ((uint32_t)size < sf->need[k])
		return -1;
	ev->common_pid = (int32_t)rd_int(d, &sf->common_pid);

	switch (k) {
	case SL_SE_WAKING:
	case SL_SE_WAKEUP:
	case SL_SE_WAKEUP_NEW:
		ev->type = k == SL_SE_WAKING ? SL_EV_WAKING :
			   k == SL_SE_WAKEUP ? SL_EV_WAKEUP :
					       SL_EV_WAKEUP_NEW;
		ev->wake.pid = rd_int(d, &f[SL_F_PID]);
		ev->wake.target_cpu = f[SL_F_TARGET].size ? rd_int(d, &f[SL_F_TARGET]) : -1;
		ev->wake.prio = rd_int(d, &f[SL_F_PRIO]);
		ev->wake.irq = sf->common_flags.size ?
				       irq_of_flags((uint8_t)rd_int(d, &sf->common_flags)) :
				       0;
		rd_comm(d, size, &f[SL_F_COMM], ev->wake.comm);
		break;
	case SL_SE_SWITCH:
		ev->type = SL_EV_SWITCH;
		ev->sw.prev_pid = rd_int(d, &f[SL_F_PID]);
		ev->sw.next_pid = rd_int(d, &f[SL_F_PID2]);
		ev->sw.prev_prio = rd_int(d, &f[SL_F_PRIO]);
		ev->sw.next_prio = rd_int(d, &f[SL_F_PRIO2]);
		sl_prev_state_decode(&sf->prev_state, (uint64_t)rd_int(d, &f[SL_F_STATE]),
				     &ev->sw.prev_state, &ev->sw.prev_preempt);
		rd_comm(d, size, &f[SL_F_COMM], ev->sw.prev_comm);
		rd_comm(d, size, &f[SL_F_COMM2], ev->sw.next_comm);
		break;
	case SL_SE_MIGRATE:
		ev->type = SL_EV_MIGRATE;
		ev->migrate.pid = rd_int(d, &f[SL_F_PID]);
		ev->migrate.orig_cpu = rd_int(d, &f[SL_F_TARGET]);
		ev->migrate.dest_cpu = rd_int(d, &f[SL_F_DEST]);
		ev->migrate.prio = rd_int(d, &f[SL_F_PRIO]);
		rd_comm(d, size, &f[SL_F_COMM], ev->migrate.comm);
		break;
	case SL_SE_FORK:
		ev->type = SL_EV_FORK;
		ev->fork.parent_pid = rd_int(d, &f[SL_F_PID]);
		ev->fork.child_pid = rd_int(d, &f[SL_F_PID2]);
		rd_comm(d, size, &f[SL_F_COMM], ev->fork.parent_comm);
		rd_comm(d, size, &f[SL_F_COMM2], ev->fork.child_comm);
		break;
	case SL_SE_EXIT:
		ev->type = SL_EV_EXIT;
		ev->exit.pid = rd_int(d, &f[SL_F_PID]);
		rd_comm(d, size, &f[SL_F_COMM], ev->exit.comm);
		break;
	case SL_SE_FUTEX:
		ev->type = SL_EV_FUTEX;
		ev->futex.uaddr = (uint64_t)rd_int(d, &f[SL_F_UADDR]);
		ev->futex.op = (uint32_t)rd_int(d, &f[SL_F_OP]);
		break;
	}
	return 1;
}
