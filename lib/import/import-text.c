// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace text lines -> struct sl_event: the parser object, the per-line entry point (blank
 * and comment lines, lost-events markers, the per-CPU timestamp order) and the fast path
 * for the kernel's own sched_switch and wakeup lines, the bulk of any text trace. Every
 * other line goes to the general path in import-text-general.c. Lines come from an mmap,
 * so nothing here relies on a terminating NUL: every scan is bounded by an end pointer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "import-text-local.h"
#include "topo.h"

int sl_text_parser_new(int max_cpus, struct sl_text_parser **ret_parser)
{
	struct sl_text_parser *p;

	if (max_cpus <= 0 || max_cpus > SL_TOPO_MAX_CPUS)
		max_cpus = SL_TOPO_MAX_CPUS;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cpu_ts = calloc(max_cpus, sizeof(*p->cpu_ts));
	if (!p->cpu_ts) {
		free(p);
		return -ENOMEM;
	}
	p->max_cpus = max_cpus;
	p->tgid = -1;
	*ret_parser = p;
	return 0;
}

void sl_text_parser_free(struct sl_text_parser *p)
{
	if (!p)
		return;
	free(p->cpu_ts);
	free(p);
}

int32_t sl_text_parser_tgid(const struct sl_text_parser *p)
{
	return p->tgid;
}

uint64_t sl_text_parser_lines(const struct sl_text_parser *p)
{
	return p->lineno;
}

uint64_t sl_text_parser_skipped(const struct sl_text_parser *p)
{
	return p->skipped;
}

uint64_t sl_text_parser_other(const struct sl_text_parser *p, uint64_t *ret_first_line)
{
	if (ret_first_line)
		*ret_first_line = p->first_other;
	return p->other;
}

enum sl_text_style sl_text_parser_style(const struct sl_text_parser *p)
{
	return p->style;
}

bool sl_text_parser_nsec(const struct sl_text_parser *p)
{
	return p->nsec;
}

void sl_text_parser_set_fast(struct sl_text_parser *p, bool on)
{
	p->no_fast = !on;
}

/* --- the fast path ------------------------------------------------------------------------- */

/*
 * The kernel's own `trace` lines of sched_switch and the wakeups, the bulk of any text
 * trace, parsed in one pass from the ends of the fields inward. It accepts only lines
 * whose fields the general path would read the same way (each key found right after the
 * value it ends, so no comm can hide a later match), and returns 0 for anything else,
 * errors included: the general path then parses the line again and says what is wrong.
 * tests/fuzz/fuzz-text.c checks that both paths agree on every input. Its functions are
 * inlined into the one caller: the calls and their spills cost ~15 instructions a line.
 */

/*
 * The pid's padding and the flags column are skipped 8 bytes at a time: a byte loop costs
 * ~5 instructions a byte.
 */
#define SPACES 0x2020202020202020ull
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* The first byte at or after q that is not a space, or e: mostly one space, so bytewise. */
static inline const char *skip_sp(const char *q, const char *e)
{
	while (q < e && *q == ' ')
		q++;
	return q;
}

/* The end of the spaces that end at q (their start), not below lo. */
static inline const char *rskip_sp(const char *lo, const char *q)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; q - lo >= 8; q -= 8) {
		uint64_t w;

		memcpy(&w, q - 8, 8);
		w ^= SPACES;
		if (w)
			return q - __builtin_clzll(w) / 8;
	}
#endif
	while (q > lo && q[-1] == ' ')
		q--;
	return q;
}

/* The first space at or after q, or e. */
static inline const char *skip_nonsp(const char *q, const char *e)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; e - q >= 8; q += 8) {
		uint64_t w, z;

		memcpy(&w, q, 8);
		w ^= SPACES;
		/* a borrow only runs on from a zero byte, so the lowest flag is the first one */
		z = (w - ONES) & ~w & HIGHS;
		if (z)
			return q + __builtin_ctzll(z) / 8;
	}
#endif
	while (q < e && *q != ' ')
		q++;
	return q;
}

/* The leading decimal digits of [p, e), at most 8: how many, and their value in *ret. */
static inline unsigned int digits8(const char *p, const char *e, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned int n = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e - p >= 8) {
		uint64_t x, nd;

		/* SWAR: a byte is a digit if c - '0' neither borrows nor reaches 10; a borrow
		 * only spoils the bytes after the first non-digit, which are shifted out */
		memcpy(&x, p, 8);
		x -= 0x3030303030303030ull;
		nd = (x | (x + 0x7676767676767676ull)) & 0x8080808080808080ull;
		n = nd ? __builtin_ctzll(nd) / 8 : 8;
		if (!n) {
			*ret = 0;
			return 0;
		}
		x <<= 8 * (8 - n); /* the digits last, zeros (leading '0's) before them */
		x = ((x & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
		x = ((x & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
		x = ((x & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32;
		*ret = x;
		return n;
	}
#endif
	while (n < 8 && p + n < e && is_digit(p[n])) {
		v = v * 10 + (p[n] - '0');
		n++;
	}
	*ret = v;
	return n;
}

/*
 * [lo, e) ends in an optional '-' and 1 to 12 digits, which parse_num() would read as *ret:
 * their start, or NULL. One backward pass.
 */
static inline __attribute__((always_inline)) const char *back_num(const char *lo, const char *e,
								  int64_t *ret)
{
	const char *q = e;
	int64_t v = 0, m = 1;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e - lo >= 9) {
		uint64_t x, nd;
		unsigned int n;

		/* SWAR, from the end: c ^ '0' is below 10 for digits only; the add is masked so
		 * no carry crosses bytes */
		memcpy(&x, e - 8, 8);
		x ^= 0x3030303030303030ull;
		nd = (x | ((x & 0x7f7f7f7f7f7f7f7full) + 0x7676767676767676ull)) &
		     0x8080808080808080ull;
		/* the digits are the bytes above the top non-digit */
		n = nd ? (unsigned int)__builtin_clzll(nd) / 8 : 8;
		if (!n)
			return NULL;
		if (n < 8) {
			x &= ~0ull << (8 * (8 - n)); /* zeros (leading '0's) before the digits */
			x = ((x & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
			x = ((x & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
			x = ((x & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32;
			q = e - n;
			v = (int64_t)x;
			if (q[-1] == '-') { /* q - 1 >= e - 8 >= lo */
				q--;
				v = -v;
			}
			*ret = v;
			return q;
		}
	}
#endif
	while (q > lo && is_digit(q[-1])) {
		if (e - q == 12)
			return NULL;
		q--;
		v += (*q - '0') * m;
		m *= 10;
	}
	if (q == e)
		return NULL;
	if (q > lo && q[-1] == '-') {
		q--;
		v = -v;
	}
	*ret = v;
	return q;
}

/* The key ending at v, if it is there: its start. */
static inline __attribute__((always_inline)) const char *key_before(const char *lo, const char *v,
								    const char *key)
{
	size_t n = strlen(key);

	return v - lo >= (ptrdiff_t)n && same(v - n, key, n) ? v - n : NULL;
}

/* "<key><number in [lo, hi]>" ending at e: the key's start, or NULL. */
static inline __attribute__((always_inline)) const char *
key_num(const char *lo, const char *e, const char *key, int64_t min, int64_t max, int64_t *ret)
{
	const char *v = back_num(lo, e, ret);

	if (!v || *ret < min || *ret > max)
		return NULL;
	return key_before(lo, v, key);
}

/*
 * key_num() for the short values (prio, target_cpu): at most 4 digits read bytewise, which
 * is cheaper than back_num()'s word step for the usual 1 to 3. A longer number (leading
 * zeros) is refused, not read: the general path takes such a line.
 */
static inline __attribute__((always_inline)) const char *
key_short(const char *lo, const char *e, const char *key, int64_t min, int64_t max, int64_t *ret)
{
	const char *q;
	int64_t v;
	unsigned int d;

	/* the key (6 bytes or more) precedes the digits: e[-5] is inside the line */
	if (e - lo < 6 || (d = (unsigned char)e[-1] - '0') > 9)
		return NULL;
	v = d;
	q = e - 1;
	if ((d = (unsigned char)e[-2] - '0') <= 9) {
		v += 10 * d;
		q--;
		if ((d = (unsigned char)e[-3] - '0') <= 9) {
			v += 100 * d;
			q--;
			if ((d = (unsigned char)e[-4] - '0') <= 9) {
				v += 1000 * d;
				q--;
				if (is_digit(e[-5]))
					return NULL;
			}
		}
	}
	if (q[-1] == '-') {
		q--;
		v = -v;
	}
	if (v < min || v > max)
		return NULL;
	*ret = v;
	return key_before(lo, q, key);
}

/*
 * A comm of n <= 15 bytes at s into its NUL-padded 16-byte field: two word loads, masked,
 * in place of a memcpy call. Every comm is followed by more than 16 bytes of fields, so
 * the loads stay inside the line.
 */
static inline __attribute__((always_inline)) void put_comm(char *out, const char *s, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t lo, hi;

	memcpy(&lo, s, 8);
	memcpy(&hi, s + 8, 8);
	if (n < 8) {
		lo &= (1ull << (8 * n)) - 1;
		hi = 0;
	} else {
		hi &= (1ull << (8 * (n - 8))) - 1;
	}
	memcpy(out, &lo, 8);
	memcpy(out + 8, &hi, 8);
#else
	memcpy(out, s, n);
	memset(out + n, 0, SL_COMM_LEN - n);
#endif
}

static inline __attribute__((always_inline)) bool fast_switch(const char *b, const char *e,
							      struct sl_ev_switch *sw)
{
	const char *arrow = NULL, *x, *ps, *pr, *pp, *r, *np, *nd;
	int64_t n;

	/* find(b, e, " ==> next_comm="), anchored on its one '>' */
	if (e - b < 15)
		return false;
	for (const char *q = b + 3; q < e - 11; q++) {
		q = memchr(q, '>', (e - 11) - q);
		if (!q)
			return false;
		if (same(q - 3, " ==> next_comm=", 15)) {
			arrow = q - 3;
			break;
		}
	}
	if (!arrow)
		return false;
	for (x = arrow; x > b && x[-1] != ' ' && x[-1] != '='; x--)
		;
	if (x == arrow || !(ps = key_before(b, x, " prev_state=")))
		return false;
	if (!(pr = key_short(b, ps, " prev_prio=", SL_TEXT_PRIO_MIN, SL_TEXT_PRIO_MAX, &n)))
		return false;
	sw->prev_prio = (int16_t)n;
	if (!(pp = key_num(b, pr, " prev_pid=", 0, SL_TEXT_PID_MAX, &n)) || pp < b + 10 ||
	    pp - (b + 10) > SL_COMM_LEN - 1)
		return false;
	sw->prev_pid = (int32_t)n;
	put_comm(sw->prev_comm, b + 10, pp - (b + 10));
	if (!((*x >= 'A' && *x <= 'Z') || (*x >= 'a' && *x <= 'z')))
		return false;
	sw->prev_state = *x;
	/* "R+": a byte or two, too few for a memchr call */
	for (const char *c = x; c < arrow; c++)
		sw->prev_preempt |= *c == '+';
	r = arrow + 15;
	if (!(np = key_short(r, e, " next_prio=", SL_TEXT_PRIO_MIN, SL_TEXT_PRIO_MAX, &n)))
		return false;
	sw->next_prio = (int16_t)n;
	if (!(nd = key_num(r, np, " next_pid=", 0, SL_TEXT_PID_MAX, &n)) ||
	    nd - r > SL_COMM_LEN - 1)
		return false;
	sw->next_pid = (int32_t)n;
	put_comm(sw->next_comm, r, nd - r);
	return true;
}

static inline __attribute__((always_inline)) bool fast_wake(const char *b, const char *e,
							    int max_cpus, struct sl_ev_wake *w)
{
	const char *tc, *pr, *pd;
	int64_t n;

	if (!(tc = key_short(b, e, " target_cpu=", -1, max_cpus - 1, &n)))
		return false;
	w->target_cpu = (int32_t)n;
	if (!(pr = key_short(b, tc, " prio=", SL_TEXT_PRIO_MIN, SL_TEXT_PRIO_MAX, &n)))
		return false;
	w->prio = (int16_t)n;
	if (!(pd = key_num(b, pr, " pid=", 0, SL_TEXT_PID_MAX, &n)) || pd < b + 5 ||
	    pd - (b + 5) > SL_COMM_LEN - 1)
		return false;
	w->pid = (int32_t)n;
	put_comm(w->comm, b + 5, pd - (b + 5));
	return true;
}

/*
 * The digits after the CPU column's '[' at b: their end. The column repeats as often as the
 * CPU does: when the 8 bytes after the '[' start with the last line's "<digits>]",
 * digits8() would read the same (it stops at the first non-digit of those 8).
 */
static inline const char *cpu_digits(struct sl_text_parser *p, const char *b, const char *e,
				     uint64_t *ret)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;
	unsigned int n;

	if (e - (b + 1) < 8)
		return b + 1 + digits8(b + 1, e, ret);
	memcpy(&w, b + 1, 8);
	if (p->cpu_mask && (w & p->cpu_mask) == p->cpu_bytes) {
		*ret = p->cpu;
		return b + 1 + p->cpu_digits;
	}
	n = digits8(b + 1, e, ret);
	if (n >= 1 && n <= 5 && b[1 + n] == ']') {
		p->cpu_mask = (1ull << (8 * (n + 1))) - 1;
		p->cpu_bytes = w & p->cpu_mask;
		p->cpu_digits = n;
		p->cpu = *ret;
	}
	return b + 1 + n;
#else
	return b + 1 + digits8(b + 1, e, ret);
#endif
}

/*
 * "-<pid>" and its padding before the CPU column's '[' at b: whether it is there, and the
 * pid in *ret. A task's events come in runs: when b is 17 bytes or more into the line and
 * the pid ends at most 8 bytes before it, rskip_sp() and back_num() read only the 16 bytes
 * before b, so when those repeat the last line's, so does the pid.
 */
static inline bool pid_column(struct sl_text_parser *p, const char *s, const char *b, uint64_t *ret)
{
	uint64_t w[2] = { 0, 0 };
	const char *j, *q;
	int64_t v;

	if (b - s >= 17) {
		memcpy(w, b - 16, 16);
		if (p->pid_ok && w[0] == p->pid_bytes[0] && w[1] == p->pid_bytes[1]) {
			*ret = p->pid;
			return true;
		}
	}
	j = rskip_sp(s, b);
	/* "-<pid>": back_num() takes the dash as a sign; the digits follow it */
	q = back_num(s, j, &v);
	if (!q || *q != '-' || j - (q + 1) > 7)
		return false;
	*ret = (uint64_t)-v;
	p->pid_ok = b - s >= 17 && j >= b - 8;
	if (p->pid_ok) {
		p->pid_bytes[0] = w[0];
		p->pid_bytes[1] = w[1];
		p->pid = *ret;
	}
	return true;
}

/* nanoseconds per unit of a fraction of 1 to 9 digits */
static const uint32_t frac_scale[10] = { 0,	100000000, 10000000, 1000000, 100000,
					 10000, 1000,	   100,	     10,      1 };

/*
 * 1: parsed, *ev and the parser's state as the general path leaves them; 0: ask it. One
 * function on purpose: the hot path, its state in registers from the CPU column to the
 * event name (see above for what the calls would cost).
 */
static int fast_line(struct line *l, struct sl_event *ev)
{
	struct sl_text_parser *p = l->p;
	const char *s = l->start, *e = l->end, *limit = s + 96 < e ? s + 96 : e;
	const char *b, *d, *q, *t, *f, *fe;
	uint64_t cpu = 0, pid = 0, sec = 0, frac = 0;
	int digits = 0;
	uint8_t irq = 0;

	/* the first "[digits]" must be the CPU column, after "-<pid>" (no tgid column) */
	b = memchr(s, '[', limit - s);
	if (!b)
		return 0;
	d = cpu_digits(p, b, e, &cpu);
	if (d == b + 1 || d - (b + 1) > 5 || d >= e || *d != ']')
		return 0;
	if (!pid_column(p, s, b, &pid))
		return 0;
	if (cpu >= (uint64_t)p->max_cpus || cpu > 0xffff || pid > SL_TEXT_PID_MAX)
		return 0;

	/* optional flags column, then "<sec>.<frac>:" (up to 7 and 9 digits here) */
	q = d + 1;
	for (int tries = 0;; tries++) {
		unsigned int n = 0;

		q = skip_sp(q, e);
		/*
		 * The flags ("d..2.") start with no digit: not worth a digits8(). The seconds
		 * change once a second: 8 bytes that held the last line's "<sec>." give its
		 * value again (digits8() reads those 8 and no more when 8 are left).
		 */
		if (q < e && is_digit(*q)) {
			uint64_t w = 0;

			if (e - q >= 8)
				memcpy(&w, q, 8);
			if (w && w == p->sec_bytes) {
				n = p->sec_digits;
				sec = p->sec;
			} else {
				n = digits8(q, e, &sec);
				if (w && n < 8 && q[n] == '.') {
					p->sec_bytes = w;
					p->sec_digits = n;
					p->sec = sec;
				}
			}
		}
		if (n == 8)
			return 0;
		t = q + n;
		if (n && t < e && *t == '.') {
			f = t + 1;
			fe = f + digits8(f, e, &frac);
			if (fe == f + 8 && fe < e && is_digit(*fe))
				frac = frac * 10 + (*fe++ - '0');
			if (fe < e && is_digit(*fe))
				return 0; /* more than 9 */
			if (fe < e && *fe == ':' && fe > f) {
				digits = fe - f;
				q = fe + 1;
				break;
			}
		}
		if (tries == 1)
			return 0;
		sec = frac = 0;
		t = skip_nonsp(q, e);
		irq = flags_irq(q, t);
		q = t;
	}
	q = skip_sp(q, e);
	/* the name is what precedes the first ':' or ' ': these four hold neither */
	if (e - q > 13 && same(q, "sched_switch:", 13)) {
		q = skip_sp(q + 13, e);
		if (!starts(q, e, "prev_comm=") || !fast_switch(q, e, &ev->sw))
			return 0;
		ev->type = SL_EV_SWITCH;
	} else {
		if (e - q > 13 && same(q, "sched_waking:", 13)) {
			ev->type = SL_EV_WAKING;
			q += 13;
		} else if (e - q > 13 && same(q, "sched_wakeup:", 13)) {
			ev->type = SL_EV_WAKEUP;
			q += 13;
		} else if (e - q > 17 && !memcmp(q, "sched_wakeup_new:", 17)) {
			ev->type = SL_EV_WAKEUP_NEW;
			q += 17;
		} else {
			return 0;
		}
		q = skip_sp(q, e);
		if (!starts(q, e, "comm=") || !fast_wake(q, e, p->max_cpus, &ev->wake))
			return 0;
		ev->wake.irq = irq;
	}
	ev->ts_ns = sec * 1000000000ull + frac * frac_scale[digits];
	ev->cpu = (uint16_t)cpu;
	ev->common_pid = (int32_t)pid;
	p->tgid = -1;
	p->irq = irq;
	if (digits == 9)
		p->nsec = true;
	return 1;
}

/* "CPU:3 [LOST 123 EVENTS]" (kernel and trace-cmd alike) */
static int lost_marker(struct line *l, struct sl_event *ev)
{
	const char *s = l->start, *e = l->end, *br, *n, *ne;
	int64_t cpu, count;

	while (s < e && *s == ' ')
		s++;
	if (!starts(s, e, "CPU:") || !(br = find(s, e, " [LOST ")))
		return 0;
	n = br + 7;
	ne = find(n, e, " EVENTS]");
	if (!ne || parse_num(s + 4, br, &cpu) < 0 || parse_num(n, ne, &count) < 0 || count < 0 ||
	    cpu < 0)
		return bad(l, -SL_EPARSE, "bad lost-events marker");
	if (cpu >= l->p->max_cpus)
		return bad(l, -SL_ERANGE, "lost-events marker names a CPU beyond the topology");
	ev->type = SL_EV_LOST;
	ev->cpu = (uint16_t)cpu;
	ev->common_pid = 0;
	ev->ts_ns = l->p->last_ts;
	ev->lost.count = (uint64_t)count;
	return 1;
}

int sl_text_parse_line_nul_checked(struct sl_text_parser *p, const char *text, size_t len,
				   struct sl_event *ev)
{
	struct line l = { .p = p, .start = text, .end = text + len };
	const char *s;
	enum sl_text_style style;
	int ret;

	p->lineno++;
	while (l.end > l.start && (l.end[-1] == '\n' || l.end[-1] == '\r' || l.end[-1] == ' '))
		l.end--;
	/* the kernel right-aligns comms in 16 columns: skip the padding 8 bytes at a time */
	for (s = l.start; l.end - s >= 8; s += 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		w ^= 0x2020202020202020ull;
		if (w) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			s += __builtin_ctzll(w) / 8; /* the first non-space byte */
#endif
			break;
		}
	}
	for (; s < l.end && (*s == ' ' || *s == '\t'); s++)
		;
	if (s == l.end || *s == '#') {
		p->skipped++;
		return 0;
	}
	memset(ev, 0, sizeof(*ev));
	/* a marker starts "CPU:" after spaces; a line whose first non-blank is not 'C' is none */
	if (*s == 'C') {
		ret = lost_marker(&l, ev);
		if (ret)
			return ret;
	}
	if (!p->no_fast) {
		ret = fast_line(&l, ev);
		if (ret) {
			style = SL_TEXT_KERNEL;
			goto parsed;
		}
		memset(ev, 0, sizeof(*ev));
	}
	ret = text_general_line(&l, s, ev, &style);
	if (ret <= 0)
		return ret;
parsed:
	if (ev->type == SL_EV_SWITCH || ev->type == SL_EV_WAKEUP || ev->type == SL_EV_WAKING) {
		if (p->style == SL_TEXT_UNKNOWN)
			p->style = style;
	}
	if (p->cpu_ts[ev->cpu] > ev->ts_ns + 1)
		return sl_error(-SL_ERANGE,
				"line %llu: timestamp %llu.%09llu goes backwards on CPU %u",
				(unsigned long long)p->lineno,
				(unsigned long long)(ev->ts_ns / 1000000000),
				(unsigned long long)(ev->ts_ns % 1000000000), ev->cpu);
	p->cpu_ts[ev->cpu] = ev->ts_ns + 1;
	if (ev->ts_ns > p->last_ts)
		p->last_ts = ev->ts_ns;
	return 1;
}

int sl_text_parse_line(struct sl_text_parser *p, const char *text, size_t len, struct sl_event *ev)
{
	/* a NUL is never among the trailing bytes the parser trims: the whole line will do */
	if (memchr(text, '\0', len))
		return sl_error(-SL_EPARSE, "line %llu: NUL byte: not a text trace",
				(unsigned long long)++p->lineno);
	return sl_text_parse_line_nul_checked(p, text, len, ev);
}
