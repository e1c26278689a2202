// SPDX-License-Identifier: GPL-2.0-only
/*
 * The portable topology file: a host's topology saved as JSON so that traces recorded
 * there can be classified elsewhere. Format (version 1):
 *
 *   { "format": "schedlens-topology", "version": 1, "hash": "<16 hex>",
 *     "llc_from_cache": true,
 *     "cpus": [ { "cpu": 0, "online": true, "core": 0, "llc": 0, "package": 0,
 *                 "node": 0, "core_id": 0, "package_id": 0 },
 *               { "cpu": 1, "online": false }, ... ] }
 *
 * core/llc/package are unit keys (equal for CPUs sharing the unit). "hash" is optional on
 * input, so a topology can be written by hand; if present it must match the content.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "topo-local.h"

#define TOPO_FORMAT "schedlens-topology"
#define TOPO_VERSION 1

json_t *sl_topo_json(const struct sl_topo *topo)
{
	json_t *root, *cpus;
	char hash[17];

	cpus = json_array();
	root = json_pack("{s:s, s:i, s:s, s:b, s:o}", "format", TOPO_FORMAT, "version",
			 TOPO_VERSION, "hash", sl_topo_hash_str(topo, hash), "llc_from_cache",
			 topo->llc_from_cache, "cpus", cpus);
	if (!root)
		return NULL;
	for (int c = 0; c < topo->nr_cpus; c++) {
		const struct sl_topo_cpu *cpu = &topo->cpus[c];
		json_t *o;

		if (cpu->online)
			o = json_pack("{s:i, s:b, s:i, s:i, s:i, s:i, s:i, s:i}", "cpu", c,
				      "online", 1, "core", cpu->core, "llc", cpu->llc, "package",
				      cpu->package, "node", cpu->node, "core_id", cpu->core_id,
				      "package_id", cpu->package_id);
		else
			o = json_pack("{s:i, s:b}", "cpu", c, "online", 0);
		if (!o || json_array_append_new(cpus, o)) {
			json_decref(root);
			return NULL;
		}
	}
	return root;
}

char *sl_topo_to_json(const struct sl_topo *topo)
{
	json_t *root = sl_topo_json(topo);
	char *text;

	if (!root)
		return NULL;
	text = json_dumps(root, JSON_INDENT(1) | JSON_COMPACT);
	json_decref(root);
	return text;
}

int sl_topo_save(const struct sl_topo *topo, const char *path)
{
	char *text = sl_topo_to_json(topo);
	FILE *f;
	int err = 0;

	if (!text)
		return -ENOMEM;
	f = fopen(path, "we");
	if (!f) {
		err = sl_error(-errno, "cannot write '%s': %s", path, strerror(errno));
		free(text);
		return err;
	}
	if (fputs(text, f) < 0 || fputc('\n', f) < 0)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	free(text);
	if (err)
		return sl_error(err, "cannot write '%s': %s", path, strerror(-err));
	return 0;
}

/* Reads one integer member of a CPU entry, with its range. */
static int get_int(json_t *o, const char *key, int lo, int hi, int idx, int *ret_val,
		   const char *source)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		return sl_error(-SL_EPARSE, "%s: cpus[%d].%s: missing or not an integer", source,
				idx, key);
	if (json_integer_value(v) < lo || json_integer_value(v) > hi)
		return sl_error(-SL_EPARSE, "%s: cpus[%d].%s = %lld is out of range %d..%d", source,
				idx, key, (long long)json_integer_value(v), lo, hi);
	*ret_val = (int)json_integer_value(v);
	return 0;
}

static int topo_from_root(json_t *root, const char *source, struct sl_topo **ret_topo)
{
	json_t *cpus, *entry, *hashv;
	struct sl_topo *topo;
	size_t idx;
	int nr = 0, err;

	if (!json_is_object(root) ||
	    strcmp(json_string_value(json_object_get(root, "format")) ?: "", TOPO_FORMAT))
		return sl_error(-SL_EFORMAT, "%s: not a schedlens topology file", source);
	if (json_integer_value(json_object_get(root, "version")) != TOPO_VERSION)
		return sl_error(-SL_EFORMAT,
				"%s: topology format version %lld; this build reads %d", source,
				(long long)json_integer_value(json_object_get(root, "version")),
				TOPO_VERSION);
	cpus = json_object_get(root, "cpus");
	if (!json_is_array(cpus) || !json_array_size(cpus))
		return sl_error(-SL_EPARSE, "%s: 'cpus' must be a non-empty array", source);

	json_array_foreach(cpus, idx, entry)
	{
		int c;

		if ((err = get_int(entry, "cpu", 0, SL_TOPO_MAX_CPUS - 1, idx, &c, source)))
			return err;
		if (c + 1 > nr)
			nr = c + 1;
	}
	topo = topo_alloc(nr);
	if (!topo)
		return -ENOMEM;
	topo->llc_from_cache = json_is_true(json_object_get(root, "llc_from_cache"));
	for (int c = 0; c < nr; c++)
		topo->cpus[c].node = -1;

	json_array_foreach(cpus, idx, entry)
	{
		struct sl_topo_cpu *cpu;
		int c;

		get_int(entry, "cpu", 0, SL_TOPO_MAX_CPUS - 1, idx, &c, source);
		cpu = &topo->cpus[c];
		if (cpu->online) {
			err = sl_error(-SL_EPARSE, "%s: cpu %d is listed twice", source, c);
			goto fail;
		}
		if (!json_is_true(json_object_get(entry, "online")))
			continue;
		cpu->online = true;
		if ((err = get_int(entry, "core", 0, 1 << 20, idx, &cpu->core, source)) ||
		    (err = get_int(entry, "llc", 0, 1 << 20, idx, &cpu->llc, source)) ||
		    (err = get_int(entry, "package", 0, 1 << 20, idx, &cpu->package, source)) ||
		    (err = get_int(entry, "node", -1, 1 << 20, idx, &cpu->node, source)) ||
		    (err = get_int(entry, "core_id", -1, 1 << 30, idx, &cpu->core_id, source)) ||
		    (err = get_int(entry, "package_id", -1, 1 << 30, idx, &cpu->package_id,
				   source)))
			goto fail;
	}
	if ((err = topo_finish(topo, source)))
		goto fail;

	hashv = json_object_get(root, "hash");
	if (hashv) {
		char hash[17];

		if (!json_is_string(hashv) ||
		    strcmp(json_string_value(hashv), sl_topo_hash_str(topo, hash))) {
			err = sl_error(-SL_EPARSE,
				       "%s: 'hash' does not match the CPUs listed (file edited?); "
				       "remove the hash or save the topology again",
				       source);
			goto fail;
		}
	}
	*ret_topo = topo;
	return 0;
fail:
	sl_topo_free(topo);
	return err;
}

int sl_topo_from_json(const char *text, struct sl_topo **ret_topo)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);
	int err;

	if (!root)
		return sl_error(-SL_EPARSE, "topology JSON, line %d: %s", jerr.line, jerr.text);
	err = topo_from_root(root, "topology JSON", ret_topo);
	json_decref(root);
	return err;
}

int sl_topo_load(const char *path, struct sl_topo **ret_topo)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	int err;

	if (!root) {
		if (access(path, R_OK))
			return sl_error(-errno, "cannot read '%s': %s", path, strerror(errno));
		return sl_error(-SL_EPARSE, "'%s', line %d: %s", path, jerr.line, jerr.text);
	}
	err = topo_from_root(root, path, ret_topo);
	json_decref(root);
	return err;
}
