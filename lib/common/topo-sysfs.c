// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reads CPU topology from sysfs: cpuN/topology/ files for cores and packages, cpuN/cache/
 * index* for the last-level cache, cpuN/nodeM for the NUMA node. The root directory is a
 * parameter so that fixtures and copies of other hosts' sysfs read the same way.
 *
 * The LLC is the highest cache level (data or unified) whose shared_cpu_list spans more
 * than one core; if a CPU has no such cache the package stands in, and if any online CPU
 * has no cache directory at all, the package stands in for every CPU and the topology
 * says so (llc_from_cache = false) rather than mixing two definitions.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "error.h"
#include "topo-local.h"

#define MAX_CACHE_INDEX 8

/* Raw facts about one CPU before the topology is assembled. */
struct raw_cpu {
	bool present;
	bool online;
	bool has_cache;
	int core_first; /* lowest CPU of its SMT sibling set */
	struct sl_cpuset siblings;
	int package_id;
	int llc_first; /* lowest CPU of its LLC's shared_cpu_list, -1: none spans cores */
	int nr_caches;
	struct {
		int level;
		struct sl_cpuset shared;
	} caches[MAX_CACHE_INDEX];
};

/*
 * Formats a path into a PATH_MAX buffer. sl_topo_read() refuses roots longer than
 * PATH_MAX - 512, and the longest suffix appended here is far shorter, so the result
 * always fits.
 */
static __attribute__((format(printf, 2, 3))) void pathf(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
}

/* Reads a small sysfs file into buf without the trailing newline. -errno on failure. */
static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int read_int(const char *path, int *ret_val)
{
	char buf[64], *end;
	long v;
	int err = read_file(path, buf, sizeof(buf));

	if (err)
		return sl_error(err, "cannot read '%s': %s", path, strerror(-err));
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end || v < INT_MIN || v > INT_MAX)
		return sl_error(-SL_EPARSE, "'%s': expected an integer, found '%s'", path, buf);
	*ret_val = (int)v;
	return 0;
}

static int read_cpulist(const char *path, struct sl_cpuset *ret_set)
{
	char buf[16384];
	int err = read_file(path, buf, sizeof(buf));

	if (err)
		return sl_error(err, "cannot read '%s': %s", path, strerror(-err));
	if (sl_cpuset_parse(buf, ret_set))
		return sl_error(-SL_EPARSE, "'%s': not a CPU list: '%.60s'", path, buf);
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* cpu0 usually has no "online" file: it cannot be taken offline. */
static int read_online(const char *cpudir, bool *ret_online)
{
	char path[PATH_MAX];
	int v;

	pathf(path, "%s/online", cpudir);
	if (!exists(path)) {
		*ret_online = true;
		return 0;
	}
	if (read_int(path, &v))
		return -SL_EPARSE;
	if (v != 0 && v != 1)
		return sl_error(-SL_EPARSE, "'%s': expected 0 or 1, found %d", path, v);
	*ret_online = v;
	return 0;
}

static int read_node(const char *cpudir, int *ret_node)
{
	DIR *d = opendir(cpudir);
	struct dirent *de;

	*ret_node = -1;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4])) {
			*ret_node = atoi(de->d_name + 4);
			break;
		}
	}
	closedir(d);
	return 0;
}

static int read_caches(const char *cpudir, int cpu, struct raw_cpu *raw)
{
	char path[PATH_MAX], type[32];
	int err;

	pathf(path, "%s/cache", cpudir);
	raw->has_cache = exists(path);
	for (int i = 0; raw->has_cache && i < MAX_CACHE_INDEX; i++) {
		pathf(path, "%s/cache/index%d", cpudir, i);
		if (!exists(path))
			continue;
		pathf(path, "%s/cache/index%d/type", cpudir, i);
		if ((err = read_file(path, type, sizeof(type))))
			return sl_error(err, "cannot read '%s': %s", path, strerror(-err));
		if (!strcmp(type, "Instruction"))
			continue;
		pathf(path, "%s/cache/index%d/level", cpudir, i);
		if ((err = read_int(path, &raw->caches[raw->nr_caches].level)))
			return err;
		pathf(path, "%s/cache/index%d/shared_cpu_list", cpudir, i);
		if ((err = read_cpulist(path, &raw->caches[raw->nr_caches].shared)))
			return err;
		if (!sl_cpuset_has(&raw->caches[raw->nr_caches].shared, cpu))
			return sl_error(-SL_EPARSE, "'%s' does not list cpu%d itself", path, cpu);
		raw->nr_caches++;
	}
	return 0;
}

static int read_cpu(const char *cpudir, int cpu, struct raw_cpu *raw, int *ret_node)
{
	char path[PATH_MAX];
	struct sl_cpuset *siblings = &raw->siblings;
	int err;

	raw->present = true;
	if ((err = read_online(cpudir, &raw->online)) || !raw->online)
		return err;
	pathf(path, "%s/topology", cpudir);
	if (!exists(path))
		return sl_error(-SL_EPARSE, "'%s' is missing although cpu%d is online", path, cpu);

	pathf(path, "%s/topology/physical_package_id", cpudir);
	if ((err = read_int(path, &raw->package_id)))
		return err;
	if (raw->package_id < 0)
		return sl_error(-SL_EPARSE, "'%s': negative package id %d", path, raw->package_id);

	/* core_cpus_list is the modern name; thread_siblings_list the one older kernels have */
	pathf(path, "%s/topology/core_cpus_list", cpudir);
	if (!exists(path))
		pathf(path, "%s/topology/thread_siblings_list", cpudir);
	if ((err = read_cpulist(path, siblings)))
		return err;
	if (!sl_cpuset_has(siblings, cpu))
		return sl_error(-SL_EPARSE, "'%s' does not list cpu%d itself", path, cpu);
	raw->core_first = sl_cpuset_first(siblings);

	if ((err = read_caches(cpudir, cpu, raw)))
		return err;
	return read_node(cpudir, ret_node);
}

/* Highest-level cache of cpu whose sharing set spans more than one core. */
static int find_llc(const struct raw_cpu *raws, int nr_cpus, const struct raw_cpu *raw)
{
	int best_level = -1, best_first = -1;

	for (int i = 0; i < raw->nr_caches; i++) {
		int first_core = -1;
		bool spans = false;

		if (raw->caches[i].level <= best_level)
			continue;
		for (int c = 0; c < nr_cpus && !spans; c++) {
			if (!sl_cpuset_has(&raw->caches[i].shared, c) || !raws[c].online)
				continue;
			if (first_core < 0)
				first_core = raws[c].core_first;
			else if (raws[c].core_first != first_core)
				spans = true;
		}
		if (spans) {
			best_level = raw->caches[i].level;
			best_first = sl_cpuset_first(&raw->caches[i].shared);
		}
	}
	return best_first;
}

/* Lists cpuN directories; returns the highest N + 1 or a negative code. */
static int scan_cpus(const char *base, bool *present)
{
	DIR *d = opendir(base);
	struct dirent *de;
	int nr = 0;

	if (!d)
		return sl_error(-errno, "cannot open '%s': %s", base, strerror(errno));
	while ((de = readdir(d))) {
		char *end;
		long n;

		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		n = strtol(de->d_name + 3, &end, 10);
		if (*end)
			continue;
		if (n >= SL_TOPO_MAX_CPUS) {
			closedir(d);
			return sl_error(-SL_ERANGE, "'%s/%s': more than %d CPUs are not supported",
					base, de->d_name, SL_TOPO_MAX_CPUS);
		}
		present[n] = true;
		if (n + 1 > nr)
			nr = n + 1;
	}
	closedir(d);
	if (!nr)
		return sl_error(-SL_EPARSE, "no cpuN directories in '%s'", base);
	return nr;
}

int sl_topo_read(const char *root, struct sl_topo **ret_topo)
{
	char base[PATH_MAX], cpudir[PATH_MAX];
	bool *present = calloc(SL_TOPO_MAX_CPUS, sizeof(bool));
	struct raw_cpu *raws = NULL;
	struct sl_topo *topo = NULL;
	bool all_cached = true;
	int nr, err;

	if (!root || !*root)
		root = "/";
	if (strlen(root) > PATH_MAX - 512) {
		free(present);
		return sl_error(-ENAMETOOLONG, "sysfs root '%.40s...' is too long", root);
	}
	pathf(base, "%s%ssys/devices/system/cpu", root, root[strlen(root) - 1] == '/' ? "" : "/");
	err = -ENOMEM;
	if (!present)
		goto out;
	nr = err = scan_cpus(base, present);
	if (err < 0)
		goto out;
	err = -ENOMEM;
	raws = calloc(nr, sizeof(*raws));
	topo = topo_alloc(nr);
	if (!raws || !topo)
		goto out;

	for (int c = 0; c < nr; c++) {
		if (!present[c])
			continue;
		pathf(cpudir, "%s/cpu%d", base, c);
		if ((err = read_cpu(cpudir, c, &raws[c], &topo->cpus[c].node)))
			goto out;
		if (raws[c].online && !raws[c].has_cache)
			all_cached = false;
	}
	for (int c = 0; c < nr; c++) {
		struct sl_topo_cpu *cpu = &topo->cpus[c];
		int llc;

		if (!raws[c].online)
			continue;
		/* Sibling lists must agree both ways, or "same core" would depend on which
		 * CPU is asked. */
		for (int s = 0; s < SL_TOPO_MAX_CPUS; s++) {
			if (!sl_cpuset_has(&raws[c].siblings, s))
				continue;
			if (s >= nr || !raws[s].online || !sl_cpuset_has(&raws[s].siblings, c)) {
				err = sl_error(
					-SL_EPARSE,
					"'%s/cpu%d/topology' names cpu%d as its SMT sibling, "
					"but cpu%d is offline or does not agree",
					base, c, s, s);
				goto out;
			}
		}
		cpu->online = true;
		cpu->core = raws[c].core_first;
		cpu->package = cpu->package_id = raws[c].package_id;
		cpu->core_id = -1;
		pathf(cpudir, "%s/cpu%d/topology/core_id", base, c);
		if ((err = read_int(cpudir, &cpu->core_id)))
			goto out;
		llc = all_cached ? find_llc(raws, nr, &raws[c]) : -1;
		/* Keys must not collide between "LLC led by cpu k" and "package p": offset the
		 * package fallback past every CPU number. */
		cpu->llc = llc >= 0 ? llc : SL_TOPO_MAX_CPUS + cpu->package_id;
	}
	topo->llc_from_cache = all_cached;
	if ((err = topo_finish(topo, base)))
		goto out;
	*ret_topo = topo;
	topo = NULL;
out:
	sl_topo_free(topo);
	free(raws);
	free(present);
	return err < 0 ? err : 0;
}
