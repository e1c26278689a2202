// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlens topology: shows a CPU topology as a tree (package -> LLC -> core -> CPUs) or
 * as JSON, and saves it to a file that `schedlens import --topology` reads on another
 * machine.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "error.h"
#include "topo.h"

static const char usage_text[] =
	"schedlens topology [--sysfs DIR | --file FILE] [--json] [--save FILE]\n"
	"  --sysfs DIR   read DIR/sys/devices/system/cpu instead of this host's\n"
	"  --file FILE   show a topology saved with --save\n"
	"  --json        print JSON (the --save format) instead of the tree\n"
	"  --save FILE   also write the topology to FILE";

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

static void print_tree(const struct sl_topo *t, const char *source)
{
	int *core_llc = calloc(t->nr_cores, sizeof(int));
	int *llc_pkg = calloc(t->nr_llcs, sizeof(int));
	int *pkg_node = calloc(t->nr_packages, sizeof(int));
	int *core_cpu = calloc(t->nr_cores, sizeof(int));
	char hash[17];
	int offline = 0, next_core = 0;

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
	printf("%s: %d package%s, %d LLC%s, %d core%s, %d CPU%s", source, t->nr_packages,
	       plural(t->nr_packages), t->nr_llcs, plural(t->nr_llcs), t->nr_cores,
	       plural(t->nr_cores), t->nr_online, plural(t->nr_online));
	if (offline)
		printf(" (%d offline)", offline);
	printf("\nhash %s%s\n", sl_topo_hash_str(t, hash),
	       t->llc_from_cache ? "" : "; no cache information: each package counts as one LLC");

	for (int p = 0; p < t->nr_packages; p++) {
		printf("package %d", p);
		if (pkg_node[p] >= 0)
			printf(" (node %d)", pkg_node[p]);
		printf("\n");
		for (int l = 0; l < t->nr_llcs; l++) {
			if (llc_pkg[l] != p)
				continue;
			printf("  llc %d\n", l);
			for (int k = 0; k < t->nr_cores; k++) {
				if (core_llc[k] != l)
					continue;
				printf("    core %d (core_id %d):", k,
				       t->cpus[core_cpu[k]].core_id);
				for (int c = 0; c < t->nr_cpus; c++)
					if (t->cpus[c].online && t->cpus[c].core == k)
						printf(" cpu%d", c);
				printf("\n");
			}
		}
	}
	if (offline) {
		printf("offline:");
		for (int c = 0; c < t->nr_cpus; c++)
			if (!t->cpus[c].online)
				printf(" cpu%d", c);
		printf("\n");
	}
out:
	free(core_llc);
	free(llc_pkg);
	free(pkg_node);
	free(core_cpu);
}

int cmd_topology(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' }, { "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },	   { "save", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },	   {},
	};
	const char *sysfs = NULL, *file = NULL, *save = NULL;
	struct sl_topo *topo = NULL;
	bool json = false;
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
			json = true;
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
	if (json) {
		char *text = sl_topo_to_json(topo);

		if (text)
			puts(text);
		free(text);
	} else {
		print_tree(topo, file ? file : sysfs ? sysfs : "this host");
	}
	sl_topo_free(topo);
	return EXIT_OK;
}
