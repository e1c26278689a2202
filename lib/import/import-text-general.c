// SPDX-License-Identifier: GPL-2.0-only
/*
 * The general path of the ftrace text parser: the context columns, the event name and the
 * bodies of both styles (the events' own print formats and trace-cmd report's sched
 * plugin), for every event read here, with an error naming the line and the field for
 * anything that does not parse. The fast path (import-text.c) hands it every line it does
 * not take. Comms may hold spaces, dashes, colons and brackets, so fields are found from the
 * right, by the key that follows a comm, never by splitting on spaces.
 */
#include <string.h>

#include "import-text-local.h"

static int copy_comm(const struct line *l, const char *s, const char *e, char *out)
{
	if (e < s || e - s > SL_COMM_LEN - 1)
		return bad(l, -SL_ERANGE, "comm longer than 15 characters");
	memcpy(out, s, e - s);
	out[e - s] = '\0';
	return 0;
}

static __attribute__((noinline, cold)) int field_err(const struct line *l, const char *s,
						     const char *e, int64_t lo, int64_t hi,
						     const char *name)
{
	int64_t v;

	if (parse_num(s, e, &v) < 0) {
		sl_error(-SL_EPARSE, "line %llu: bad %s", (unsigned long long)l->p->lineno, name);
		return -SL_EPARSE;
	}
	sl_error(-SL_ERANGE, "line %llu: %s %lld out of range [%lld, %lld]",
		 (unsigned long long)l->p->lineno, name, (long long)v, (long long)lo,
		 (long long)hi);
	return -SL_ERANGE;
}

/* [s, e) is a number in [lo, hi], else an error naming the field. */
static inline __attribute__((always_inline)) int field_num(const struct line *l, const char *s,
							   const char *e, int64_t lo, int64_t hi,
							   const char *name, int64_t *ret)
{
	if (__builtin_expect(parse_num(s, e, ret) < 0 || *ret < lo || *ret > hi, 0))
		return field_err(l, s, e, lo, hi, name);
	return 0;
}

/* key=value where value runs to the next space or e: the value's end. */
static const char *value_end(const char *v, const char *e)
{
	while (v < e && *v != ' ')
		v++;
	return v;
}

#define PID(l, s, e, name, out)                                             \
	do {                                                                \
		int64_t v_ = 0;                                             \
		int r_ = field_num(l, s, e, 0, SL_TEXT_PID_MAX, name, &v_); \
		if (r_ < 0)                                                 \
			return r_;                                          \
		(out) = (int32_t)v_;                                        \
	} while (0)
#define PRIO(l, s, e, name, out)                                                            \
	do {                                                                                \
		int64_t v_ = 0;                                                             \
		int r_ = field_num(l, s, e, SL_TEXT_PRIO_MIN, SL_TEXT_PRIO_MAX, name, &v_); \
		if (r_ < 0)                                                                 \
			return r_;                                                          \
		(out) = (int16_t)v_;                                                        \
	} while (0)
#define CPU(l, s, e, name, out)                                                  \
	do {                                                                     \
		int64_t v_ = 0;                                                  \
		int r_ = field_num(l, s, e, 0, (l)->p->max_cpus - 1, name, &v_); \
		if (r_ < 0)                                                      \
			return r_;                                               \
		(out) = (int32_t)v_;                                             \
	} while (0)

/* --- prev_state --------------------------------------------------------------------------- */

static int parse_state(const struct line *l, const char *s, const char *e, bool plugin,
		       struct sl_ev_switch *sw)
{
	char c;

	if (s >= e || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return bad(l, -SL_EPARSE, "bad prev_state");
	c = *s;
	/* the plugin's letter table is the pre-4.14 one: 128 (TASK_IDLE's bit) prints W */
	if (plugin && c == 'W')
		c = 'I';
	sw->prev_state = c;
	sw->prev_preempt = memchr(s, '+', e - s) != NULL;
	return 0;
}

/* --- bodies ------------------------------------------------------------------------------- */

/* prev_comm=A prev_pid=1 prev_prio=120 prev_state=R+ ==> next_comm=B next_pid=2 next_prio=120 */
static int kernel_switch(const struct line *l, const char *b, const char *e, struct sl_event *ev)
{
	struct sl_ev_switch *sw = &ev->sw;
	const char *arrow, *ps, *pr, *pp, *np, *nd, *r;
	int err;

	arrow = find(b, e, " ==> next_comm=");
	if (!arrow)
		return bad(l, -SL_EPARSE, "sched_switch without ' ==> next_comm='");
	ps = rfind(b, arrow, " prev_state=");
	pr = ps ? rfind(b, ps, " prev_prio=") : NULL;
	pp = pr ? rfind(b, pr, " prev_pid=") : NULL;
	if (!pp || pp < b + 10)
		return bad(l, -SL_EPARSE, "sched_switch: prev fields missing");
	if ((err = copy_comm(l, b + 10, pp, sw->prev_comm)) < 0)
		return err;
	PID(l, pp + 10, pr, "prev_pid", sw->prev_pid);
	PRIO(l, pr + 11, ps, "prev_prio", sw->prev_prio);
	if ((err = parse_state(l, ps + 12, arrow, false, sw)) < 0)
		return err;
	r = arrow + 15;
	np = rfind(r, e, " next_prio=");
	nd = np ? rfind(r, np, " next_pid=") : NULL;
	if (!nd)
		return bad(l, -SL_EPARSE, "sched_switch: next fields missing");
	if ((err = copy_comm(l, r, nd, sw->next_comm)) < 0)
		return err;
	PID(l, nd + 10, np, "next_pid", sw->next_pid);
	PRIO(l, np + 11, value_end(np + 11, e), "next_prio", sw->next_prio);
	ev->type = SL_EV_SWITCH;
	return 1;
}

/* "comm:pid [prio]" ending at e: the plugin's task notation. */
static int plugin_task(const struct line *l, const char *s, const char *e, char *comm, int32_t *pid,
		       int16_t *prio)
{
	const char *br = rfind(s, e, " [");
	const char *colon;
	int err;

	if (!br || e[-1] != ']')
		return bad(l, -SL_EPARSE, "expected 'comm:pid [prio]'");
	colon = rfind(s, br, ":");
	if (!colon)
		return bad(l, -SL_EPARSE, "expected 'comm:pid'");
	if ((err = copy_comm(l, s, colon, comm)) < 0)
		return err;
	PID(l, colon + 1, br, "pid", *pid);
	PRIO(l, br + 2, e - 1, "prio", *prio);
	return 0;
}

/* A:1 [120] R+ ==> B:2 [120] */
static int plugin_switch(const struct line *l, const char *b, const char *e, struct sl_event *ev)
{
	struct sl_ev_switch *sw = &ev->sw;
	const char *arrow = find(b, e, " ==> ");
	const char *st;
	int err;

	if (!arrow)
		return bad(l, -SL_EPARSE, "sched_switch without ' ==> '");
	st = rfind(b, arrow, "] ");
	if (!st)
		return bad(l, -SL_EPARSE, "sched_switch: no prev state");
	if ((err = plugin_task(l, b, st + 1, sw->prev_comm, &sw->prev_pid, &sw->prev_prio)) < 0)
		return err;
	if ((err = parse_state(l, st + 2, arrow, true, sw)) < 0)
		return err;
	while (e > arrow && e[-1] == ' ')
		e--;
	if ((err = plugin_task(l, arrow + 5, e, sw->next_comm, &sw->next_pid, &sw->next_prio)) < 0)
		return err;
	ev->type = SL_EV_SWITCH;
	return 1;
}

/* comm=A pid=1 prio=120 [success=1 ]target_cpu=003 */
static int kernel_wake(const struct line *l, const char *b, const char *e, struct sl_event *ev)
{
	struct sl_ev_wake *w = &ev->wake;
	const char *tc, *pr, *pd, *stop;
	int64_t v = 0;
	int err;

	if (!starts(b, e, "comm="))
		return bad(l, -SL_EPARSE, "wakeup event without 'comm='");
	tc = rfind(b, e, " target_cpu=");
	if (!tc)
		return bad(l, -SL_EPARSE, "wakeup event without target_cpu");
	pr = rfind(b, tc, " prio=");
	pd = pr ? rfind(b, pr, " pid=") : NULL;
	if (!pd || pd < b + 5)
		return bad(l, -SL_EPARSE, "wakeup event without pid or prio");
	if ((err = copy_comm(l, b + 5, pd, w->comm)) < 0)
		return err;
	PID(l, pd + 5, pr, "pid", w->pid);
	stop = value_end(pr + 6, tc);
	PRIO(l, pr + 6, stop, "prio", w->prio);
	/* sched_waking names the task's CPU before selection: -1 when it had none */
	if ((err = field_num(l, tc + 12, value_end(tc + 12, e), -1, l->p->max_cpus - 1,
			     "target_cpu", &v)) < 0)
		return err;
	w->target_cpu = (int32_t)v;
	return 1;
}

/* A:1 [120] [success=1 ]CPU:003 */
static int plugin_wake(const struct line *l, const char *b, const char *e, struct sl_event *ev)
{
	struct sl_ev_wake *w = &ev->wake;
	const char *cpu = rfind(b, e, " CPU:");
	const char *te;
	int err;

	if (!cpu)
		return bad(l, -SL_EPARSE, "wakeup event without 'CPU:'");
	te = rfind(b, cpu + 1, "]");
	if (!te)
		return bad(l, -SL_EPARSE, "wakeup event without '[prio]'");
	if ((err = plugin_task(l, b, te + 1, w->comm, &w->pid, &w->prio)) < 0)
		return err;
	CPU(l, cpu + 5, value_end(cpu + 5, e), "CPU", w->target_cpu);
	return 1;
}

/* comm=A pid=1 prio=120 orig_cpu=1 dest_cpu=2 */
static int kernel_migrate(const struct line *l, const char *b, const char *e, struct sl_event *ev)
{
	struct sl_ev_migrate *m = &ev->migrate;
	const char *dc, *oc, *pr, *pd;
	int err;

	dc = rfind(b, e, " dest_cpu=");
	oc = dc ? rfind(b, dc, " orig_cpu=") : NULL;
	pr = oc ? rfind(b, oc, " prio=") : NULL;
	pd = pr ? rfind(b, pr, " pid=") : NULL;
	if (!starts(b, e, "comm=") || !pd || pd < b + 5)
		return bad(l, -SL_EPARSE, "sched_migrate_task: fields missing");
	if ((err = copy_comm(l, b + 5, pd, m->comm)) < 0)
		return err;
	PID(l, pd + 5, pr, "pid", m->pid);
	PRIO(l, pr + 6, oc, "prio", m->prio);
	CPU(l, oc + 10, dc, "orig_cpu", m->orig_cpu);
	CPU(l, dc + 10, value_end(dc + 10, e), "dest_cpu", m->dest_cpu);
	ev->type = SL_EV_MIGRATE;
	return 1;
}

/* comm=A pid=1 child_comm=B child_pid=2 */
static int kernel_fork(const struct line *l, const char *b, const char *e, struct sl_event *ev)
{
	struct sl_ev_fork *f = &ev->fork;
	const char *cp, *cc, *pd;
	int err;

	cp = rfind(b, e, " child_pid=");
	cc = cp ? rfind(b, cp, " child_comm=") : NULL;
	pd = cc ? rfind(b, cc, " pid=") : NULL;
	if (!starts(b, e, "comm=") || !pd || pd < b + 5)
		return bad(l, -SL_EPARSE, "sched_process_fork: fields missing");
	if ((err = copy_comm(l, b + 5, pd, f->parent_comm)) < 0)
		return err;
	PID(l, pd + 5, cc, "pid", f->parent_pid);
	if ((err = copy_comm(l, cc + 12, cp, f->child_comm)) < 0)
		return err;
	PID(l, cp + 11, value_end(cp + 11, e), "child_pid", f->child_pid);
	ev->type = SL_EV_FORK;
	return 1;
}

/* comm=A pid=1 prio=120[ group_dead=1] */
static int kernel_exit(const struct line *l, const char *b, const char *e, struct sl_event *ev)
{
	const char *pr, *pd;
	int err;

	pr = rfind(b, e, " prio=");
	pd = pr ? rfind(b, pr, " pid=") : NULL;
	if (!starts(b, e, "comm=") || !pd || pd < b + 5)
		return bad(l, -SL_EPARSE, "sched_process_exit: fields missing");
	if ((err = copy_comm(l, b + 5, pd, ev->exit.comm)) < 0)
		return err;
	PID(l, pd + 5, pr, "pid", ev->exit.pid);
	ev->type = SL_EV_EXIT;
	return 1;
}

/* --- the line ------------------------------------------------------------------------------ */

/*
 * The optional flags column, then "<sec>.<frac>:", from q: ev->ts_ns, and the parser's irq
 * and nsec; *ret_end is just past the ':'.
 */
static int parse_time(struct line *l, const char *q, struct sl_event *ev, const char **ret_end)
{
	const char *e = l->end;
	int64_t sec = 0;
	uint64_t frac = 0;
	int digits = 0;

	for (int tries = 0; tries < 2; tries++) {
		const char *t;

		while (q < e && *q == ' ')
			q++;
		for (t = q; t < e && is_digit(*t); t++)
			;
		if (t > q && t < e && *t == '.') {
			const char *f = t + 1, *fe = f;

			while (fe < e && is_digit(*fe))
				fe++;
			if (fe < e && *fe == ':' && fe > f) {
				if (t - q > 11 || fe - f > 9)
					return bad(l, -SL_ERANGE, "timestamp out of range");
				parse_num(q, t, &sec);
				/* ts_ns is stored as a signed 64-bit integer: no wrap, no sign */
				if (sec > SL_TEXT_SEC_MAX)
					return bad(l, -SL_ERANGE, "timestamp out of range");
				for (const char *c = f; c < fe; c++)
					frac = frac * 10 + (*c - '0');
				digits = fe - f;
				q = fe + 1;
				break;
			}
		}
		if (tries == 1)
			return bad(l, -SL_EPARSE, "no timestamp after the CPU column");
		/* flags like "d..2." or "dNh1." */
		t = q;
		while (q < e && *q != ' ')
			q++;
		l->p->irq = flags_irq(t, q);
	}
	for (int i = digits; i < 9; i++)
		frac *= 10;
	if (digits == 9)
		l->p->nsec = true;
	ev->ts_ns = (uint64_t)sec * 1000000000ull + frac;
	*ret_end = q;
	return 0;
}

/* A hex number "0x..." (or plain hex digits) up to the next ',' or e: its value. */
static int hex_field(const struct line *l, const char *s, const char *e, const char *name,
		     uint64_t *ret)
{
	const char *q = s;
	uint64_t v = 0;

	if (e - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	for (; q < e && *q != ','; q++) {
		int d = is_digit(*q)				 ? *q - '0' :
			(*q | 0x20) >= 'a' && (*q | 0x20) <= 'f' ? (*q | 0x20) - 'a' + 10 :
								   -1;

		if (d < 0 || v >> 60) {
			sl_error(-SL_EPARSE, "line %llu: bad %s", (unsigned long long)l->p->lineno,
				 name);
			return -SL_EPARSE;
		}
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return 0;
}

/*
 * A futex(2) call: the kernel's "sys_futex(uaddr: 0x..., op: 0x..., ...)" (b after
 * "uaddr:") or a report's "sys_enter_futex: uaddr: 0x..., op: 0x..., ..." (b at "uaddr:").
 */
static int futex_call(const struct line *l, const char *b, const char *e, struct sl_event *ev)
{
	const char *op, *op_end;
	uint64_t v;
	int ret;

	while (b < e && *b == ' ')
		b++;
	if (starts(b, e, "uaddr:"))
		b += 6;
	while (b < e && *b == ' ')
		b++;
	op = find(b, e, ", op: ");
	if (!op)
		return bad(l, -SL_EPARSE, "futex call without 'op: '");
	ret = hex_field(l, b, op, "futex uaddr", &ev->futex.uaddr);
	if (ret < 0)
		return ret;
	op += 6;
	op_end = find(op, e, ",");
	ret = hex_field(l, op, op_end ? op_end : e, "futex op", &v);
	if (ret < 0)
		return ret;
	if (v > UINT32_MAX)
		return bad(l, -SL_ERANGE, "futex op out of range");
	ev->futex.op = (uint32_t)v;
	ev->type = SL_EV_FUTEX;
	return 1;
}

/*
 * The context columns: "<comm>-<pid> [(<tgid>) ][<cpu>] [<flags> ]<sec>.<frac>: <event>: ".
 * The CPU column is the first "[digits]" whose left side ends in "-<pid>" (or a tgid
 * column); the comm before it may contain anything, so it is not parsed.
 */
static int parse_context(struct line *l, struct sl_event *ev, const char **ret_body,
			 const char **ret_name, const char **ret_name_end)
{
	const char *s = l->start, *e = l->end, *limit = s + 96 < e ? s + 96 : e;
	const char *q, *cpu_end = NULL, *tgid_s = NULL, *tgid_e = NULL;
	int64_t v, pid = -1;
	int ret;

	for (const char *b = s; b < limit && !cpu_end; b++) {
		const char *d, *j;

		b = memchr(b, '[', limit - b);
		if (!b)
			break;
		for (d = b + 1; d < e && is_digit(*d); d++)
			;
		if (d == b + 1 || d >= e || *d != ']')
			continue;
		j = b;
		while (j > s && j[-1] == ' ')
			j--;
		tgid_s = tgid_e = NULL;
		if (j > s && j[-1] == ')') {
			const char *open = rfind(s, j, "(");

			if (!open)
				continue;
			tgid_s = open + 1;
			tgid_e = j - 1;
			j = open;
			while (j > s && j[-1] == ' ')
				j--;
		}
		q = j;
		while (q > s && is_digit(q[-1]))
			q--;
		if (q == j || q == s || q[-1] != '-' || parse_num(q, j, &pid) < 0)
			continue;
		if (parse_num(b + 1, d, &v) < 0)
			continue;
		if (v >= l->p->max_cpus || v > 0xffff)
			return bad(l, -SL_ERANGE, "CPU column beyond the topology");
		ev->cpu = (uint16_t)v;
		cpu_end = d + 1;
	}
	if (!cpu_end)
		return 0;
	l->p->irq = 0;
	if (pid > SL_TEXT_PID_MAX)
		return bad(l, -SL_ERANGE, "pid column out of range");
	ev->common_pid = (int32_t)pid;
	l->p->tgid = -1;
	if (tgid_s) {
		while (tgid_s < tgid_e && *tgid_s == ' ')
			tgid_s++;
		if (parse_num(tgid_s, tgid_e, &v) == 0 && v >= 0 && v <= SL_TEXT_PID_MAX)
			l->p->tgid = (int32_t)v;
	}

	/* optional flags column, then the timestamp */
	ret = parse_time(l, cpu_end, ev, &q);
	if (ret < 0)
		return ret;

	while (q < e && *q == ' ')
		q++;
	*ret_name = q;
	if (e - q > 6 && !memcmp(q, "sched_", 6))
		q += 6; /* holds neither ':' nor ' ' */
	while (q < e && *q != ':' && *q != ' ')
		q++;
	if (q >= e || *q != ':')
		return bad(l, -SL_EPARSE, "no event name after the timestamp");
	*ret_name_end = q;
	q++;
	while (q < e && *q == ' ')
		q++;
	*ret_body = q;
	return 1;
}

static inline __attribute__((always_inline)) bool name_is(const char *s, const char *e,
							  const char *name)
{
	return (size_t)(e - s) == strlen(name) && !memcmp(s, name, e - s);
}

/* The events this parser reads, as their names appear in a line: "<name>:". */
static const char *const sched_names[] = {
	"sched_switch:",       "sched_waking:",	      "sched_wakeup:",	     "sched_wakeup_new:",
	"sched_migrate_task:", "sched_process_fork:", "sched_process_exit:",
};

/*
 * Whether a line whose context columns did not parse names one of our events: such a line
 * is a damaged event, not another kind of line, so skipping it would lose an event.
 */
static __attribute__((noinline, cold)) bool names_sched_event(const char *s, const char *e)
{
	for (const char *q = s; (q = memmem(q, e - q, "sched_", 6)); q += 6) {
		if (q > s && q[-1] != ' ' && q[-1] != '\t')
			continue;
		for (size_t i = 0; i < sizeof(sched_names) / sizeof(sched_names[0]); i++) {
			size_t n = strlen(sched_names[i]);

			if ((size_t)(e - q) >= n && !memcmp(q, sched_names[i], n))
				return true;
		}
	}
	return false;
}

/*
 * A line that is not one of our events: counted as skipped, and as "other" (reported to
 * the user, stored with the run) unless it is a header trace-cmd report prints ("cpus=16",
 * "version = 7", "CPU 3 is empty").
 */
static __attribute__((noinline)) int skip_other(struct sl_text_parser *p, const char *s,
						const char *e)
{
	p->skipped++;
	if (starts(s, e, "cpus=") || starts(s, e, "version =") ||
	    (starts(s, e, "CPU ") && e - s >= 9 && !memcmp(e - 9, " is empty", 9)))
		return 0;
	if (!p->other++)
		p->first_other = p->lineno;
	return 0;
}

/* Out of line (its own file), so that the fast path's caller stays small. */
int text_general_line(struct line *l, const char *s, struct sl_event *ev,
		      enum sl_text_style *ret_style)
{
	const char *body = NULL, *name = NULL, *name_end = NULL;
	enum sl_text_style style;
	int ret;

	ret = parse_context(l, ev, &body, &name, &name_end);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		if (names_sched_event(s, l->end))
			return bad(
				l, -SL_EPARSE,
				"sched event without a readable 'comm-pid [cpu] seconds:' context");
		return skip_other(l->p, s, l->end);
	}
	/* the kernel prints a syscall's entry as "sys_futex(uaddr: ...)", reports as
	 * "sys_enter_futex: uaddr: ..." */
	if (name_is(name, name_end, "sys_futex(uaddr") ||
	    name_is(name, name_end, "sys_enter_futex"))
		return futex_call(l, body, l->end, ev);
	if (!starts(name, name_end, "sched_"))
		return skip_other(l->p, s, l->end);
	style = starts(body, l->end, "prev_comm=") || starts(body, l->end, "comm=") ?
			SL_TEXT_KERNEL :
			SL_TEXT_PLUGIN;
	if (name_is(name, name_end, "sched_switch")) {
		ret = style == SL_TEXT_KERNEL ? kernel_switch(l, body, l->end, ev) :
						plugin_switch(l, body, l->end, ev);
	} else if (name_is(name, name_end, "sched_waking") ||
		   name_is(name, name_end, "sched_wakeup") ||
		   name_is(name, name_end, "sched_wakeup_new")) {
		ev->type = name_is(name, name_end, "sched_waking") ? SL_EV_WAKING :
			   name_is(name, name_end, "sched_wakeup") ? SL_EV_WAKEUP :
								     SL_EV_WAKEUP_NEW;
		ret = style == SL_TEXT_KERNEL ? kernel_wake(l, body, l->end, ev) :
						plugin_wake(l, body, l->end, ev);
		ev->wake.irq = l->p->irq;
	} else if (name_is(name, name_end, "sched_migrate_task")) {
		ret = kernel_migrate(l, body, l->end, ev);
	} else if (name_is(name, name_end, "sched_process_fork")) {
		ret = kernel_fork(l, body, l->end, ev);
	} else if (name_is(name, name_end, "sched_process_exit")) {
		ret = kernel_exit(l, body, l->end, ev);
	} else {
		return skip_other(l->p, s, l->end);
	}
	*ret_style = style;
	return ret;
}
