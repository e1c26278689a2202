// SPDX-License-Identifier: GPL-2.0-only
/*
 * Interned group names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"

#define HASH_SLOTS (2 * SL_GROUPS_MAX)

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

int sl_groups_init(struct sl_groups *g)
{
	g->nr = 0;
	g->names = calloc(SL_GROUPS_MAX, sizeof(*g->names));
	g->hash = malloc(HASH_SLOTS * sizeof(*g->hash));
	if (!g->names || !g->hash) {
		sl_groups_free(g);
		return -ENOMEM;
	}
	for (int i = 0; i < HASH_SLOTS; i++)
		g->hash[i] = -1;
	sl_groups_intern(g, SL_GROUP_ALL);
	return 0;
}

void sl_groups_free(struct sl_groups *g)
{
	free(g->names);
	free(g->hash);
	g->names = NULL;
	g->hash = NULL;
}

uint16_t sl_groups_intern(struct sl_groups *g, const char *name)
{
	char key[SL_GROUP_LEN];
	uint32_t i;

	snprintf(key, sizeof(key), "%s", name);
	for (i = hash_name(key) % HASH_SLOTS; g->hash[i] >= 0; i = (i + 1) % HASH_SLOTS)
		if (!strcmp(g->names[g->hash[i]], key))
			return (uint16_t)g->hash[i];
	/* keep the last slot for "(other)" */
	if (g->nr >= SL_GROUPS_MAX - 1 && strcmp(key, SL_GROUP_OTHER))
		return sl_groups_intern(g, SL_GROUP_OTHER);
	memcpy(g->names[g->nr], key, sizeof(key));
	g->hash[i] = (int16_t)g->nr;
	return (uint16_t)g->nr++;
}
