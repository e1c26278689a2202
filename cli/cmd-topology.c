// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlens topology: shows a CPU topology as a tree (package -> LLC -> core -> CPUs), as
 * JSON (the --save format) or as a CSV table of CPUs, through the print layer, and saves it
 * to a file that `schedlens import --topology` reads on another machine.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "error.h"
#include "print.h"
#include "topo.h"

static const char usage_text[] =
	"schedlens topology [--sysfs DIR | --file FILE] [--json | --csv] [--save FILE]\n"
	"  --sysfs DIR   read DIR/sys/devices/system/cpu instead of this host's\n"
	"  --file FILE   show a topology saved with --save\n"
	"  --json        print JSON (the --save format) instead of the tree\n"
	"  --csv         print a table of CPUs: cpu, online, package, package_id, node, llc,\n"
	"                core, core_id\n"
	"  --save FILE   also write the topology to FILE";

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

static void print_tree(struct pr *p, const struct sl_topo *t, const char *source)
{
	int *core_llc = calloc(t->nr_cores, sizeof(int));
	int *llc_pkg = calloc(t->nr_llcs, sizeof(int));
	int *pkg_node = calloc(t->nr_packages, sizeof(int));
	int *core_cpu = calloc(t->nr_cores, sizeof(int));
	char hash[17], line[4096];
	int offline = 0, next_core = 0;
	size_t n;

	if (!core_llc || !llc_pkg || !pkg_node || !core_cpu)
		goto out;
	for (int c = 0; c < t->nr_cpus; c++) {
		const struct sl_topo_cpu *cpu = &t->cpus[c];

		if (!cpu->online) {
			offline++;
			continue;
		}
		/* cores are numbered in order of their lowest CPU */
		if (cpu->core == next_core)
			core_cpu[next_core++] = c;
		core_llc[cpu->core] = cpu->llc;
		llc_pkg[cpu->llc] = cpu->package;
		pkg_node[cpu->package] = cpu->node;
	}
	n = (size_t)snprintf(line, sizeof(line), "%s: %d package%s, %d LLC%s, %d core%s, %d CPU%s",
			     source, t->nr_packages, plural(t->nr_packages), t->nr_llcs,
			     plural(t->nr_llcs), t->nr_cores, plural(t->nr_cores), t->nr_online,
			     plural(t->nr_online));
	if (offline && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " (%d offline)", offline);
	pr_line(p, "%s", line);
	pr_line(p, "hash %s%s", sl_topo_hash_str(t, hash),
		t->llc_from_cache ? "" : "; no cache information: each package counts as one LLC");

	for (int pk = 0; pk < t->nr_packages; pk++) {
		if (pkg_node[pk] >= 0)
			pr_line(p, "package %d (node %d)", pk, pkg_node[pk]);
		else
			pr_line(p, "package %d", pk);
		for (int l = 0; l < t->nr_llcs; l++) {
			if (llc_pkg[l] != pk)
				continue;
			pr_line(p, "  llc %d", l);
			for (int k = 0; k < t->nr_cores; k++) {
				if (core_llc[k] != l)
					continue;
				n = (size_t)snprintf(line, sizeof(line),
						     "    core %d (core_id %d):", k,
						     t->cpus[core_cpu[k]].core_id);
				for (int c = 0; c < t->nr_cpus && n < sizeof(line); c++)
					if (t->cpus[c].online && t->cpus[c].core == k)
						n += (size_t)snprintf(line + n, sizeof(line) - n,
								      " cpu%d", c);
				pr_line(p, "%s", line);
			}
		}
	}
	if (offline) {
		n = (size_t)snprintf(line, sizeof(line), "offline:");
		for (int c = 0; c < t->nr_cpus && n < sizeof(line); c++)
			if (!t->cpus[c].online)
				n += (size_t)snprintf(line + n, sizeof(line) - n, " cpu%d", c);
		pr_line(p, "%s", line);
	}
out:
	free(core_llc);
	free(llc_pkg);
	free(pkg_node);
	free(core_cpu);
}

static const struct pr_col cpu_cols[] = {
	{ "cpu", NULL, PR_INT },	{ "online", NULL, PR_BOOL }, { "package", NULL, PR_INT },
	{ "package_id", NULL, PR_INT }, { "node", NULL, PR_INT },    { "llc", NULL, PR_INT },
	{ "core", NULL, PR_INT },	{ "core_id", NULL, PR_INT },
};

/* One row a CPU; an offline CPU's place in the topology is unknown. */
static void print_cpus(struct pr *p, const struct sl_topo *t)
{
	pr_table(p, "cpus", NULL, cpu_cols, sizeof(cpu_cols) / sizeof(cpu_cols[0]), 0);
	for (int c = 0; c < t->nr_cpus; c++) {
		const struct sl_topo_cpu *cpu = &t->cpus[c];

		pr_row(p);
		pr_int(p, c);
		pr_bool(p, cpu->online);
		if (!cpu->online) {
			for (int i = 0; i < 6; i++)
				pr_null(p);
			continue;
		}
		pr_int(p, cpu->package);
		pr_int(p, cpu->package_id);
		if (cpu->node >= 0)
			pr_int(p, cpu->node);
		else
			pr_null(p);
		pr_int(p, cpu->llc);
		pr_int(p, cpu->core);
		pr_int(p, cpu->core_id);
	}
	pr_table_end(p);
}

int cmd_topology(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "save", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *sysfs = NULL, *file = NULL, *save = NULL;
	struct sl_topo *topo = NULL;
	enum pr_format format = PR_TEXT;
	struct pr *p;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "s:f:jo:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sysfs = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case 'j':
			format = PR_JSON;
			break;
		case 'c':
			format = PR_CSV;
			break;
		case 'o':
			save = optarg;
			break;
		case 'h':
			return cli_help(usage_text);
		default:
			return cli_usage(usage_text);
		}
	}
	if (optind != argc || (sysfs && file))
		return cli_usage(usage_text);

	err = file ? sl_topo_load(file, &topo) : sl_topo_read(sysfs, &topo);
	if (err)
		return cli_error("%s", sl_errmsg(err));
	if (save && (err = sl_topo_save(topo, save))) {
		sl_topo_free(topo);
		return cli_error("%s", sl_errmsg(err));
	}
	p = pr_open(format, 0, stdout);
	if (p && format == PR_JSON)
		pr_object(p, sl_topo_json(topo));
	else if (p && format == PR_CSV)
		print_cpus(p, topo);
	else if (p)
		print_tree(p, topo, file ? file : sysfs ? sysfs : "this host");
	err = !p || pr_close(p) < 0;
	sl_topo_free(topo);
	return err ? cli_error("cannot write the topology to stdout") : EXIT_OK;
}
