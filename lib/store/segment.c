// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event segments (segment.h): the column lists of the four row tables, the varint codec,
 * and each record type as the values of its table's columns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "segment.h"

#define NN "INTEGER NOT NULL"
#define INT "INTEGER"

/* The columns after run_id, in the order and with the declarations of schemas 1-12. */
static const struct sl_seg_col slice_cols[] = {
	{ "cpu", NN }, { "start_ns", NN }, { "dur_ns", NN },
	{ "pid", NN }, { "prio", INT },	   { "end_state", "TEXT", true },
};

static const struct sl_seg_col wakeup_cols[] = {
	{ "ts_ns", NN },	  { "pid", NN },	  { "kind", NN },
	{ "waker_pid", INT },	  { "waker_cpu", INT },	  { "prev_cpu", INT },
	{ "target_cpu", NN },	  { "run_cpu", INT },	  { "latency_ns", INT },
	{ "class_prev", NN },	  { "class_waker", NN },  { "target_state", NN },
	{ "llc_idle", NN },	  { "missed_idle", NN },  { "missed_smt", NN },
	{ "preempted_pid", INT }, { "policy_known", NN }, { "policy_agree", NN },
	{ "waker_irq", NN },
};

static const struct sl_seg_col preempt_cols[] = {
	{ "ts_ns", NN },	   { "cpu", NN },
	{ "victim_pid", NN },	   { "preemptor_pid", NN },
	{ "cause", NN },	   { "off_ns", INT },
	{ "same_group", NN },	   { "hub", NN },
	{ "waiters", NN },	   { "lhp_cost_ns", NN },
	{ "delayed_wakeups", NN }, { "censored", NN },
	{ "spinners", NN },	   { "spin_cost_ns", NN },
};

/* txt is not among them: it follows the integers, as length and bytes */
static const struct sl_seg_col fact_cols[] = {
	{ "ts_ns", NN }, { "seq", NN },	  { "cpu", NN },   { "kind", NN },  { "common_pid", NN },
	{ "pid", INT },	 { "arg1", INT }, { "arg2", INT }, { "arg3", INT },
};

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

const struct sl_seg_table sl_seg_tables[SL_SEG_KINDS] = {
	[SL_SEG_SLICE] = { "sched_slices", "sched_slices_seg", 1, NCOLS(slice_cols), slice_cols },
	[SL_SEG_WAKEUP] = { "wakeups", "wakeups_seg", 0, NCOLS(wakeup_cols), wakeup_cols },
	[SL_SEG_PREEMPT] = { "preemptions", "preemptions_seg", 0, NCOLS(preempt_cols),
			     preempt_cols },
	[SL_SEG_FACT] = { "sched_facts", "sched_facts_seg", 0, NCOLS(fact_cols), fact_cols },
};

_Static_assert(NCOLS(wakeup_cols) <= SL_SEG_MAX_COLS, "SL_SEG_MAX_COLS too small");
_Static_assert(SL_SEG_TEXT_MAX == SL_COMM_LEN, "a fact's txt is a comm, NUL or not");

void sl_seg_reset(struct sl_seg_buf *b)
{
	b->run_id = 0;
	b->rows = 0;
	b->len = 0;
	b->min_ns = INT64_MAX;
	b->max_ns = INT64_MIN;
	memset(b->prev, 0, sizeof(b->prev));
}

void sl_seg_free(struct sl_seg_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/*
 * A zigzagged difference z, stored as z + 1 (0 is NULL) in LEB128: one byte for most, at
 * most 10. z + 1 is 2^64 for z = UINT64_MAX, written apart so that the loop stays in 64
 * bits (a 128-bit loop was a third of an import's encoding time).
 */
static uint8_t *put_varint(uint8_t *p, uint64_t z)
{
	uint64_t v = z + 1;

	if (z < 0x7f) {
		*p++ = (uint8_t)v;
		return p;
	}
	if (z == UINT64_MAX) {
		memset(p, 0x80, 9);
		p[9] = 0x02;
		return p + 10;
	}
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

int sl_seg_append(struct sl_seg_buf *b, int kind, const int64_t *vals, const char *txt)
{
	const struct sl_seg_table *t = &sl_seg_tables[kind];
	uint8_t *p;
	int64_t ts;

	if (b->cap - b->len < SL_SEG_MAX_ROW) {
		size_t cap = b->cap ? b->cap * 2 : 64 * 1024;
		uint8_t *n = realloc(b->data, cap);

		if (!n)
			return -ENOMEM;
		b->data = n;
		b->cap = cap;
	}
	if (!b->rows) {
		b->min_ns = INT64_MAX;
		b->max_ns = INT64_MIN;
	}
	p = b->data + b->len;
	for (int c = 0; c < t->ncols; c++) {
		int64_t v = vals[c];
		uint64_t d;

		if (v == SL_SEG_NULL) {
			*p++ = 0;
			continue;
		}
		/* wraps for far-apart values, and unwraps alike when read */
		d = (uint64_t)v - (uint64_t)b->prev[c];
		p = put_varint(p, (d << 1) ^ (uint64_t)((int64_t)d >> 63));
		b->prev[c] = v;
	}
	if (kind == SL_SEG_FACT) {
		size_t n = txt ? strnlen(txt, SL_SEG_TEXT_MAX) : 0;

		*p++ = (uint8_t)n;
		memcpy(p, txt, n);
		p += n;
	}
	b->len = (size_t)(p - b->data);
	b->rows++;
	ts = vals[t->time_col];
	if (ts < b->min_ns)
		b->min_ns = ts;
	if (ts > b->max_ns)
		b->max_ns = ts;
	return 0;
}

void sl_seg_reader_init(struct sl_seg_reader *r, int kind, const void *data, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->p = data;
	r->end = r->p + len;
	r->ncols = sl_seg_tables[kind].ncols;
	r->has_text = kind == SL_SEG_FACT;
}

static int get_varint(struct sl_seg_reader *r, unsigned __int128 *ret)
{
	unsigned __int128 v = 0;

	for (int shift = 0; shift <= 63 && r->p < r->end; shift += 7) {
		uint8_t byte = *r->p++;

		v |= (unsigned __int128)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			if (v > (unsigned __int128)UINT64_MAX + 1)
				return -EINVAL;
			*ret = v;
			return 0;
		}
	}
	return -EINVAL;
}

int sl_seg_next(struct sl_seg_reader *r, int64_t *vals, char *txt)
{
	if (r->p >= r->end)
		return 0;
	for (int c = 0; c < r->ncols; c++) {
		unsigned __int128 u;
		uint64_t z;

		if (get_varint(r, &u))
			return -EINVAL;
		if (!u) {
			vals[c] = SL_SEG_NULL;
			continue;
		}
		z = (uint64_t)(u - 1);
		r->prev[c] = (int64_t)((uint64_t)r->prev[c] + ((z >> 1) ^ (0 - (z & 1))));
		vals[c] = r->prev[c];
	}
	if (r->has_text) {
		size_t n;

		if (r->p >= r->end || *r->p > SL_SEG_TEXT_MAX || r->end - r->p - 1 < *r->p)
			return -EINVAL;
		n = *r->p++;
		memcpy(txt, r->p, n);
		txt[n] = 0;
		r->p += n;
	}
	return 1;
}

int64_t sl_seg_text_code(const char *s)
{
	if (!s || !s[0])
		return SL_SEG_NULL;
	return (uint8_t)s[0] | (int64_t)(uint8_t)s[1] << 8;
}

void sl_seg_text_decode(int64_t code, char out[3])
{
	out[0] = (char)(code & 0xff);
	out[1] = (char)(code >> 8 & 0xff);
	out[2] = 0;
}

static int64_t opt_int(int64_t v)
{
	return v == SL_REC_NONE ? SL_SEG_NULL : v;
}

static int64_t opt_time(uint64_t v)
{
	return v == SL_REC_NO_TIME ? SL_SEG_NULL : (int64_t)v;
}

void sl_seg_from_slice(const struct sl_slice_rec *r, int64_t *v)
{
	char state[3] = { r->end_state, r->end_preempt ? '+' : 0, 0 };

	v[0] = r->cpu;
	v[1] = (int64_t)r->start_ns;
	v[2] = (int64_t)r->dur_ns;
	v[3] = r->pid;
	v[4] = r->prio;
	v[5] = sl_seg_text_code(state);
}

void sl_seg_from_wakeup(const struct sl_wakeup_rec *r, int64_t *v)
{
	v[0] = (int64_t)r->ts_ns;
	v[1] = r->pid;
	v[2] = r->kind;
	v[3] = opt_int(r->waker_pid);
	v[4] = opt_int(r->waker_cpu);
	v[5] = opt_int(r->prev_cpu);
	v[6] = r->target_cpu;
	v[7] = opt_int(r->run_cpu);
	v[8] = opt_time(r->latency_ns);
	v[9] = r->class_prev;
	v[10] = r->class_waker;
	v[11] = r->target_state;
	v[12] = r->llc_idle;
	v[13] = r->missed_idle;
	v[14] = r->missed_smt;
	v[15] = r->preempted_pid > 0 ? r->preempted_pid : SL_SEG_NULL;
	v[16] = r->policy_known;
	v[17] = r->policy_agree;
	v[18] = r->waker_irq;
}

void sl_seg_from_preempt(const struct sl_preempt_rec *r, int64_t *v)
{
	v[0] = (int64_t)r->ts_ns;
	v[1] = r->cpu;
	v[2] = r->victim_pid;
	v[3] = r->preemptor_pid;
	v[4] = r->cause;
	v[5] = opt_time(r->off_ns);
	v[6] = r->same_group;
	v[7] = r->hub;
	v[8] = r->waiters;
	v[9] = (int64_t)r->lhp_cost_ns;
	v[10] = r->delayed_wakeups;
	v[11] = r->censored;
	v[12] = r->spinners;
	v[13] = (int64_t)r->spin_cost_ns;
}

void sl_seg_from_fact(const struct sl_fact_rec *r, int64_t *v)
{
	v[0] = (int64_t)r->ts_ns;
	v[1] = r->seq;
	v[2] = r->cpu;
	v[3] = r->kind;
	v[4] = r->common_pid;
	v[5] = r->pid;
	v[6] = r->arg1;
	v[7] = r->arg2;
	v[8] = r->arg3;
}
