// SPDX-License-Identifier: GPL-2.0-only
/*
 * The topology model: dense numbering of cores, LLCs and packages, the relation between
 * two CPUs, and the hash that says "same machine shape". Reading from sysfs lives in
 * topo-sysfs.c, the JSON file format in topo-json.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "topo-local.h"

const char *sl_relation_name(enum sl_relation rel)
{
	static const char *const names[SL_REL_COUNT] = {
		[SL_REL_SAME] = "same",	    [SL_REL_SMT] = "smt",
		[SL_REL_LLC] = "llc",	    [SL_REL_PACKAGE] = "package",
		[SL_REL_REMOTE] = "remote", [SL_REL_UNKNOWN] = "unknown",
	};

	return (unsigned int)rel < SL_REL_COUNT ? names[rel] : "unknown";
}

struct sl_topo *topo_alloc(int nr_cpus)
{
	struct sl_topo *topo = calloc(1, sizeof(*topo));

	if (!topo)
		return NULL;
	topo->cpus = calloc(nr_cpus > 0 ? nr_cpus : 1, sizeof(*topo->cpus));
	if (!topo->cpus) {
		free(topo);
		return NULL;
	}
	topo->nr_cpus = nr_cpus;
	return topo;
}

void sl_topo_free(struct sl_topo *topo)
{
	if (!topo)
		return;
	free(topo->cpus);
	free(topo);
}

bool sl_topo_cpu_valid(const struct sl_topo *topo, int cpu)
{
	return topo && cpu >= 0 && cpu < topo->nr_cpus && topo->cpus[cpu].online;
}

enum sl_relation sl_topo_relation(const struct sl_topo *topo, int a, int b)
{
	const struct sl_topo_cpu *ca, *cb;

	if (!sl_topo_cpu_valid(topo, a) || !sl_topo_cpu_valid(topo, b))
		return SL_REL_UNKNOWN;
	if (a == b)
		return SL_REL_SAME;
	ca = &topo->cpus[a];
	cb = &topo->cpus[b];
	if (ca->core == cb->core)
		return SL_REL_SMT;
	if (ca->llc == cb->llc)
		return SL_REL_LLC;
	if (ca->package == cb->package)
		return SL_REL_PACKAGE;
	return SL_REL_REMOTE;
}

/*
 * Renumbers one field of every online CPU densely, in order of first appearance.
 * Keys are arbitrary non-negative ints, so a map from key to new number is kept in a
 * table indexed by key, which is bounded: callers use CPU numbers or sysfs ids as keys.
 */
static int renumber(struct sl_topo *topo, size_t field_offset, int *ret_count)
{
	int max_key = -1, next = 0, *map;

	for (int c = 0; c < topo->nr_cpus; c++) {
		int *v = (int *)((char *)&topo->cpus[c] + field_offset);

		if (!topo->cpus[c].online)
			continue;
		if (*v < 0 || *v > 1 << 20)
			return -SL_ERANGE;
		if (*v > max_key)
			max_key = *v;
	}
	map = malloc(sizeof(*map) * (max_key + 1 > 0 ? max_key + 1 : 1));
	if (!map)
		return -ENOMEM;
	for (int k = 0; k <= max_key; k++)
		map[k] = -1;
	for (int c = 0; c < topo->nr_cpus; c++) {
		int *v = (int *)((char *)&topo->cpus[c] + field_offset);

		if (!topo->cpus[c].online)
			continue;
		if (map[*v] < 0)
			map[*v] = next++;
		*v = map[*v];
	}
	free(map);
	*ret_count = next;
	return 0;
}

/* Checks that every unit of the inner kind lies within one unit of the outer kind. */
static int check_nesting(struct sl_topo *topo, size_t inner_off, int nr_inner, size_t outer_off,
			 const char *inner, const char *outer, const char *source)
{
	int *first_cpu = malloc(sizeof(int) * (nr_inner > 0 ? nr_inner : 1));

	if (!first_cpu)
		return -ENOMEM;
	for (int i = 0; i < nr_inner; i++)
		first_cpu[i] = -1;
	for (int c = 0; c < topo->nr_cpus; c++) {
		const char *base = (const char *)&topo->cpus[c];
		int in = *(const int *)(base + inner_off), out = *(const int *)(base + outer_off);
		int f;

		if (!topo->cpus[c].online)
			continue;
		f = first_cpu[in];
		if (f < 0) {
			first_cpu[in] = c;
			continue;
		}
		if (*(const int *)((const char *)&topo->cpus[f] + outer_off) != out) {
			free(first_cpu);
			return sl_error(-SL_EPARSE,
					"%s: cpu%d and cpu%d are in one %s but not in one %s; the "
					"topology is inconsistent",
					source, f, c, inner, outer);
		}
	}
	free(first_cpu);
	return 0;
}

/* FNV-1a, 64 bit: small, stable across builds and machines, good enough to tell shapes. */
static uint64_t fnv1a(uint64_t h, int v)
{
	uint32_t u = (uint32_t)v;

	for (int i = 0; i < 4; i++) {
		h ^= (u >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

int topo_finish(struct sl_topo *topo, const char *source)
{
	uint64_t h = 0xcbf29ce484222325ull;
	int err;

	topo->nr_online = 0;
	for (int c = 0; c < topo->nr_cpus; c++)
		topo->nr_online += topo->cpus[c].online;
	if (!topo->nr_online)
		return sl_error(-SL_EPARSE, "%s: no online CPU described", source);

	if ((err = renumber(topo, offsetof(struct sl_topo_cpu, core), &topo->nr_cores)) ||
	    (err = renumber(topo, offsetof(struct sl_topo_cpu, llc), &topo->nr_llcs)) ||
	    (err = renumber(topo, offsetof(struct sl_topo_cpu, package), &topo->nr_packages)))
		return err == -SL_ERANGE ?
			       sl_error(err, "%s: core, LLC or package id out of range", source) :
			       err;

	err = check_nesting(topo, offsetof(struct sl_topo_cpu, core), topo->nr_cores,
			    offsetof(struct sl_topo_cpu, llc), "core", "LLC", source);
	if (!err)
		err = check_nesting(topo, offsetof(struct sl_topo_cpu, llc), topo->nr_llcs,
				    offsetof(struct sl_topo_cpu, package), "LLC", "package",
				    source);
	if (err)
		return err;

	/* Only the shape goes into the hash: not physical ids, which differ between boxes
	 * of one model, and not offline CPUs' absent details. */
	for (int c = 0; c < topo->nr_cpus; c++) {
		const struct sl_topo_cpu *cpu = &topo->cpus[c];

		if (!cpu->online)
			continue;
		h = fnv1a(h, c);
		h = fnv1a(h, cpu->core);
		h = fnv1a(h, cpu->llc);
		h = fnv1a(h, cpu->package);
		h = fnv1a(h, cpu->node);
	}
	h = fnv1a(h, topo->llc_from_cache);
	topo->hash = h;
	return 0;
}

char *sl_topo_hash_str(const struct sl_topo *topo, char *buf)
{
	snprintf(buf, 17, "%016llx", (unsigned long long)topo->hash);
	return buf;
}
