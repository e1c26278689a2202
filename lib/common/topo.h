/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CPU topology: which CPUs share a core (SMT), a last-level cache, a package. Every
 * placement metric is a relation between two CPUs, so this is read once per run, from
 * sysfs (under any root directory, so fixtures and other hosts' copies work) or from a
 * saved JSON file, and stored with the run.
 */
#ifndef SL_TOPO_H
#define SL_TOPO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define SL_TOPO_MAX_CPUS 4096

enum sl_relation {
	SL_REL_SAME, /* the same CPU */
	SL_REL_SMT, /* SMT siblings: same core */
	SL_REL_LLC, /* same last-level cache, other core */
	SL_REL_PACKAGE, /* same package, other LLC (e.g. AMD CCX) */
	SL_REL_REMOTE, /* other package */
	SL_REL_UNKNOWN, /* a CPU the topology does not describe (offline, beyond the table) */
	SL_REL_COUNT
};

/* "same", "smt", "llc", "package", "remote", "unknown" */
const char *sl_relation_name(enum sl_relation rel);

struct sl_topo_cpu {
	bool online; /* online and described; the fields below are valid only if set */
	int core; /* index into the dense numbering of cores, 0..nr_cores-1 */
	int llc; /* dense LLC index */
	int package; /* dense package index */
	int node; /* NUMA node number, -1 when sysfs does not say */
	int core_id; /* topology/core_id as the kernel reports it */
	int package_id; /* topology/physical_package_id */
};

struct sl_topo {
	int nr_cpus; /* table size: highest CPU number + 1 */
	int nr_online;
	int nr_cores;
	int nr_llcs;
	int nr_packages;
	bool llc_from_cache; /* false: no cache info, the package stands in for the LLC */
	uint64_t hash; /* same machine shape <=> same hash; see sl_topo_hash() */
	struct sl_topo_cpu *cpus;
};

/*
 * Reads <root>/sys/devices/system/cpu (root "/" or NULL for this host). Returns 0 and
 * a topology the caller frees with sl_topo_free(), or a negative code with a message
 * naming the file at fault (sl_errmsg()).
 */
int sl_topo_read(const char *root, struct sl_topo **ret_topo);

/* Saves as JSON (format version 1) to path, or loads such a file. Same conventions. */
int sl_topo_save(const struct sl_topo *topo, const char *path);
int sl_topo_load(const char *path, struct sl_topo **ret_topo);

/* The topology as a JSON object (the --save format); NULL on allocation failure. */
json_t *sl_topo_json(const struct sl_topo *topo);
/* JSON text of the topology; the caller frees it with free(). NULL on allocation failure. */
char *sl_topo_to_json(const struct sl_topo *topo);
/* Parses JSON text (as from sl_topo_to_json) into a topology the caller frees. */
int sl_topo_from_json(const char *text, struct sl_topo **ret_topo);

void sl_topo_free(struct sl_topo *topo);

/* Relation of CPUs a and b; SL_REL_UNKNOWN if either is offline or out of range. */
enum sl_relation sl_topo_relation(const struct sl_topo *topo, int a, int b);

/* True if cpu is online and described. */
bool sl_topo_cpu_valid(const struct sl_topo *topo, int cpu);

/* The hash as 16 lowercase hex digits into buf (at least 17 bytes); returns buf. */
char *sl_topo_hash_str(const struct sl_topo *topo, char *buf);

#endif
