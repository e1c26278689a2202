// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedlens: the command-line tool. This file only dispatches to the subcommands listed
 * in commands[]; see builtin.h for how to add one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "error.h"
#include "version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "topology", cmd_topology, "show this host's (or a sysfs copy's) CPU topology" },
	{ "record", cmd_record, "record scheduler events for a duration or while a command runs" },
	{ "diff", cmd_diff, "compare a baseline kernel's runs with a candidate's: findings" },
	{ "import", cmd_import, "analyse and store a trace.dat or ftrace text dump" },
	{ "export", cmd_export, "write a stored run as ftrace text" },
	{ "runs", cmd_runs, "list the stored runs" },
	{ "show", cmd_show,
	  "one run: placement mix, preemptions, top groups, LHP victims and hubs" },
	{ "findings", cmd_findings, "list stored comparisons, or show one's findings" },
	{ "delete", cmd_delete, "delete runs and everything derived from them, then vacuum" },
	{ "lab", cmd_lab,
	  "kernel experiments in a QEMU guest: run, fetch, ab (A/B until clear), explain, upgrade" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("schedlens: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "schedlens %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int cli_usage(const char *text)
{
	fprintf(stderr, "usage: %s\n", text);
	return EXIT_USAGE;
}

int cli_help(const char *text)
{
	printf("usage: %s\n", text);
	return EXIT_OK;
}

static int bad_value(const char *cmd, const char *flag, const char *s, int err)
{
	fprintf(stderr, "schedlens %s: invalid %s '%s': %s\n", cmd, flag, s, sl_errmsg(err));
	return EXIT_USAGE;
}

int cli_u64(const char *cmd, const char *flag, const char *s, uint64_t min, uint64_t max,
	    uint64_t *ret)
{
	int err = sl_parse_u64(s, min, max, ret);

	return err ? bad_value(cmd, flag, s, err) : 0;
}

int cli_i64(const char *cmd, const char *flag, const char *s, int64_t min, int64_t max,
	    int64_t *ret)
{
	int err = sl_parse_i64(s, min, max, ret);

	return err ? bad_value(cmd, flag, s, err) : 0;
}

int cli_double(const char *cmd, const char *flag, const char *s, double min, double max,
	       unsigned int flags, double *ret)
{
	int err = sl_parse_double(s, min, max, flags, ret);

	return err ? bad_value(cmd, flag, s, err) : 0;
}

static void print_help(FILE *f)
{
	fprintf(f, "usage: schedlens <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'schedlens <command> --help' describes one command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		print_help(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("schedlens %s\n", SL_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	cli_error("'%s' is not a schedlens command; see 'schedlens --help'", argv[1]);
	return EXIT_USAGE;
}
