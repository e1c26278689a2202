// SPDX-License-Identifier: GPL-2.0-only
/*
 * Open-addressing pid -> task table for the engine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tasktab.h"

#define MIN_CAP 1024

static size_t slot_of(size_t cap, int32_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

int sl_tasktab_init(struct sl_tasktab *tt, size_t max_tasks)
{
	memset(tt, 0, sizeof(*tt));
	tt->slots = calloc(MIN_CAP, sizeof(*tt->slots));
	if (!tt->slots)
		return -ENOMEM;
	tt->cap = MIN_CAP;
	tt->max = max_tasks;
	return 0;
}

void sl_tasktab_free(struct sl_tasktab *tt)
{
	free(tt->slots);
	memset(tt, 0, sizeof(*tt));
}

struct sl_task *sl_tasktab_find(const struct sl_tasktab *tt, int32_t pid)
{
	size_t i = slot_of(tt->cap, pid);

	if (pid <= 0)
		return NULL;
	while (tt->slots[i].pid) {
		if (tt->slots[i].pid == pid)
			return &tt->slots[i];
		i = (i + 1) & (tt->cap - 1);
	}
	return NULL;
}

static int grow(struct sl_tasktab *tt)
{
	size_t ncap = tt->cap * 2;
	struct sl_task *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < tt->cap; i++) {
		size_t j;

		if (!tt->slots[i].pid)
			continue;
		j = slot_of(ncap, tt->slots[i].pid);
		while (n[j].pid)
			j = (j + 1) & (ncap - 1);
		n[j] = tt->slots[i];
	}
	free(tt->slots);
	tt->slots = n;
	tt->cap = ncap;
	return 0;
}

int sl_tasktab_grow_for(struct sl_tasktab *tt, size_t n)
{
	while ((tt->used + n) * 10 > tt->cap * 7)
		if (grow(tt))
			return -ENOMEM;
	return 0;
}

struct sl_task *sl_tasktab_get(struct sl_tasktab *tt, int32_t pid, bool *ret_new)
{
	size_t i = slot_of(tt->cap, pid);

	*ret_new = false;
	while (tt->slots[i].pid) {
		if (tt->slots[i].pid == pid)
			return &tt->slots[i];
		i = (i + 1) & (tt->cap - 1);
	}
	if (tt->used >= tt->max || (tt->used + 1) * 10 > tt->cap * 9)
		return NULL;
	memset(&tt->slots[i], 0, sizeof(tt->slots[i]));
	tt->slots[i].pid = pid;
	tt->used++;
	*ret_new = true;
	return &tt->slots[i];
}

void sl_tasktab_remove(struct sl_tasktab *tt, int32_t pid)
{
	struct sl_task *t = sl_tasktab_find(tt, pid);
	size_t i, j;

	if (!t)
		return;
	i = t - tt->slots;
	tt->slots[i].pid = 0;
	tt->used--;
	/* backward shift: pull later members of the probe chain into the hole */
	for (j = (i + 1) & (tt->cap - 1); tt->slots[j].pid; j = (j + 1) & (tt->cap - 1)) {
		size_t home = slot_of(tt->cap, tt->slots[j].pid);

		/* j's entry may move to i only if its home is not in (i, j] (cyclically) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			tt->slots[i] = tt->slots[j];
			tt->slots[j].pid = 0;
			i = j;
		}
	}
}
