// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-comm event counts as a plug-in engine handler. Comms are few (tens to thousands),
 * so a small open-addressing table keyed by the comm string is enough.
 */
#include <stdlib.h>
#include <string.h>

#include "comm-counts.h"

struct sl_comm_counts {
	struct sl_comm_count *tab;
	size_t cap, used;
};

static uint32_t hash_comm(const char *s)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < SL_COMM_LEN && s[i]; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

struct sl_comm_counts *sl_comm_counts_new(void)
{
	struct sl_comm_counts *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	cc->cap = 1024;
	cc->tab = calloc(cc->cap, sizeof(*cc->tab));
	if (!cc->tab) {
		free(cc);
		return NULL;
	}
	return cc;
}

void sl_comm_counts_free(struct sl_comm_counts *cc)
{
	if (!cc)
		return;
	free(cc->tab);
	free(cc);
}

static struct sl_comm_count *slot(struct sl_comm_counts *cc, const char *comm)
{
	size_t i;

	if (cc->used * 2 >= cc->cap) {
		size_t ncap = cc->cap * 2;
		struct sl_comm_count *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < cc->cap; j++) {
			if (!cc->tab[j].comm[0])
				continue;
			for (i = hash_comm(cc->tab[j].comm) & (ncap - 1); n[i].comm[0];
			     i = (i + 1) & (ncap - 1))
				;
			n[i] = cc->tab[j];
		}
		free(cc->tab);
		cc->tab = n;
		cc->cap = ncap;
	}
	/* memcmp first: sources copy the same 16 bytes every time, so it nearly always
	 * settles the question without walking the string (as the engine's tasks do) */
	for (i = hash_comm(comm) & (cc->cap - 1); cc->tab[i].comm[0]; i = (i + 1) & (cc->cap - 1))
		if (!memcmp(cc->tab[i].comm, comm, SL_COMM_LEN) ||
		    !strncmp(cc->tab[i].comm, comm, SL_COMM_LEN))
			return &cc->tab[i];
	memcpy(cc->tab[i].comm, comm, SL_COMM_LEN);
	cc->tab[i].comm[SL_COMM_LEN - 1] = '\0';
	if (!cc->tab[i].comm[0])
		cc->tab[i].comm[0] = '?';
	cc->used++;
	return &cc->tab[i];
}

static void on_switch(void *ctx, const struct sl_engine *e, const struct sl_event *ev)
{
	struct sl_comm_count *c = slot(ctx, ev->sw.prev_comm);

	if (c)
		c->switch_out++;
}

static void on_wake(void *ctx, const struct sl_engine *e, const struct sl_event *ev)
{
	struct sl_comm_count *c = slot(ctx, ev->wake.comm);

	if (!c)
		return;
	if (ev->type == SL_EV_WAKING)
		c->waking++;
	else
		c->wakeup++;
}

struct sl_sched_handler sl_comm_counts_handler(struct sl_comm_counts *cc)
{
	return (struct sl_sched_handler){
		.ctx = cc,
		.sched_switch = on_switch,
		.waking = on_wake,
		.wakeup = on_wake,
	};
}

static int cmp_count(const void *a, const void *b)
{
	const struct sl_comm_count *x = a, *y = b;
	uint64_t ax = x->switch_out + x->wakeup, ay = y->switch_out + y->wakeup;

	if (!x->comm[0] || !y->comm[0])
		return !x->comm[0] - !y->comm[0]; /* empty slots last */
	return ax != ay ? (ax > ay ? -1 : 1) : strncmp(x->comm, y->comm, SL_COMM_LEN);
}

const struct sl_comm_count *sl_comm_counts_sorted(struct sl_comm_counts *cc, size_t *ret_n)
{
	qsort(cc->tab, cc->cap, sizeof(*cc->tab), cmp_count);
	*ret_n = cc->used;
	return cc->tab;
}
