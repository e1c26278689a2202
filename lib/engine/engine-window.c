// SPDX-License-Identifier: GPL-2.0-only
/*
 * Windows (docs/metrics.md, "Windows"): per-window aggregates for every task ("*") and per
 * group. The open windows form a ring; a record is counted in the window holding its
 * start time, and windows are emitted, oldest first, once the engine has closed every
 * record that started in them. Besides "*", a window emits the max_groups most active
 * groups (wakeups + switches), so the row count per window is bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-local.h"

int window_init(struct sl_engine *e)
{
	e->nr_win = (int)(e->cfg.close_lag_ns / e->cfg.window_ns) + 3;
	e->win = calloc(e->nr_win, sizeof(*e->win));
	if (!e->win)
		return -ENOMEM;
	for (int i = 0; i < e->nr_win; i++) {
		struct window *w = &e->win[i];

		w->slot_of_group = malloc(SL_GROUPS_MAX * sizeof(int16_t));
		w->cap_groups = 8;
		w->groups = calloc(w->cap_groups, sizeof(*w->groups));
		if (!w->slot_of_group || !w->groups)
			return -ENOMEM;
		memset(w->slot_of_group, 0xff, SL_GROUPS_MAX * sizeof(int16_t));
	}
	e->win_first = 0;
	e->win_last = -1;
	return 0;
}

void window_free(struct sl_engine *e)
{
	for (int i = 0; e->win && i < e->nr_win; i++) {
		free(e->win[i].slot_of_group);
		free(e->win[i].groups);
	}
	free(e->win);
	e->win = NULL;
}

static struct window *ring(struct sl_engine *e, int64_t k)
{
	return &e->win[k % e->nr_win];
}

static void reset(struct sl_engine *e, struct window *w, int64_t k)
{
	/* only the groups this window used need their slot cleared */
	for (int i = 0; i < w->nr_groups; i++) {
		uint16_t id = sl_groups_intern(&e->groups, w->groups[i].grp);

		w->slot_of_group[id] = -1;
	}
	memset(w->groups, 0, w->cap_groups * sizeof(*w->groups));
	w->start_ns = e->origin_ns + (uint64_t)k * e->cfg.window_ns;
	w->events = 0;
	w->lost = 0;
	w->nr_groups = 1;
	w->slot_of_group[0] = 0;
	snprintf(w->groups[0].grp, SL_GROUP_LEN, "%s", SL_GROUP_ALL);
}

static int cmp_activity(const void *a, const void *b)
{
	const struct sl_window_rec *x = a, *y = b;
	uint64_t ax = x->wakeups + x->switches, ay = y->wakeups + y->switches;

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(x->grp, y->grp);
}

static void emit(struct sl_engine *e, struct window *w)
{
	uint64_t dur = e->cfg.window_ns;
	int n;

	/* the last window of a finished stream ends with the stream */
	if (e->finished && e->now_ns < w->start_ns + dur)
		dur = e->now_ns > w->start_ns ? e->now_ns - w->start_ns : 1;
	if (w->nr_groups > 2)
		qsort(&w->groups[1], w->nr_groups - 1, sizeof(w->groups[0]), cmp_activity);
	n = w->nr_groups - 1 < e->cfg.max_groups ? w->nr_groups : e->cfg.max_groups + 1;
	for (int i = 0; i < n; i++) {
		struct sl_window_rec *r = &w->groups[i];

		r->run_id = e->cfg.run_id;
		r->start_ns = w->start_ns;
		r->dur_ns = dur;
		r->events = w->events;
		r->lost_events = w->lost;
		if (e->sink.window)
			e->sink.window(e->sink.ctx, r);
	}
	e->stats.windows++;
}

/*
 * Empty windows are written for a silence in the stream (its rates are zero), up to this
 * many: a longer one means a corrupt timestamp or a clock jump, and writing years of
 * empty windows for it would only fill the disk.
 */
#define MAX_SILENT_WINDOWS 3600

/* Opens windows up to index k; if the ring is full the oldest is emitted early. */
static void open_until(struct sl_engine *e, int64_t k)
{
	if (k - e->win_last > MAX_SILENT_WINDOWS) {
		while (e->win_first <= e->win_last)
			emit(e, ring(e, e->win_first++));
		e->stats.windows_skipped += k - e->win_last - 1;
		e->win_first = k;
		e->win_last = k - 1;
	}
	while (e->win_last < k) {
		if (e->win_last - e->win_first + 1 >= e->nr_win) {
			emit(e, ring(e, e->win_first));
			e->win_first++;
		}
		e->win_last++;
		e->win_newest = ring(e, e->win_last);
		reset(e, e->win_newest, e->win_last);
	}
}

static int64_t index_of(const struct sl_engine *e, uint64_t ts)
{
	return ts <= e->origin_ns ? 0 : (int64_t)((ts - e->origin_ns) / e->cfg.window_ns);
}

static struct window *window_at(struct sl_engine *e, uint64_t ts)
{
	struct window *last;
	int64_t k;

	/* most lookups are for the newest window: no division for them */
	last = window_newest_for(e, ts);
	if (last)
		return last;
	k = index_of(e, ts);

	/* a record older than the oldest open window (never expected: the engine closes
	 * records before their window) is counted in the oldest open one */
	if (k < e->win_first)
		k = e->win_first;
	open_until(e, k);
	return ring(e, k);
}

struct sl_window_rec *window_for_slow(struct sl_engine *e, uint64_t ts, uint16_t group)
{
	struct window *w = window_at(e, ts);
	int16_t slot = w->slot_of_group[group];

	if (slot >= 0)
		return &w->groups[slot];
	if (w->nr_groups == w->cap_groups) {
		int ncap = w->cap_groups * 2;
		struct sl_window_rec *n = realloc(w->groups, ncap * sizeof(*n));

		if (!n)
			return &w->groups[0]; /* out of memory: count it under "*" only */
		memset(n + w->cap_groups, 0, (ncap - w->cap_groups) * sizeof(*n));
		w->groups = n;
		w->cap_groups = ncap;
	}
	slot = (int16_t)w->nr_groups++;
	w->slot_of_group[group] = slot;
	snprintf(w->groups[slot].grp, SL_GROUP_LEN, "%s", sl_groups_name(&e->groups, group));
	return &w->groups[slot];
}

void window_count_event_slow(struct sl_engine *e, uint64_t ts)
{
	window_at(e, ts)->events++;
}

void window_extend(struct sl_engine *e, uint64_t ts)
{
	window_at(e, ts);
}

void window_count_lost(struct sl_engine *e, uint64_t ts, uint64_t count)
{
	window_at(e, ts)->lost += count;
}

void window_close_before(struct sl_engine *e, uint64_t end_ns)
{
	while (e->win_first <= e->win_last) {
		struct window *w = ring(e, e->win_first);

		if (end_ns != UINT64_MAX && w->start_ns + e->cfg.window_ns > end_ns)
			break;
		emit(e, w);
		e->win_first++;
	}
	if (e->win_first > e->win_last)
		e->win_newest = NULL;
}
