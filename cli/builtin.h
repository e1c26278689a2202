/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The schedlens subcommands. To add one: write cli/cmd-<name>.c with
 * `int cmd_<name>(int argc, char **argv)` (argv[0] is the command name; the return value
 * is the exit status), declare it here and add a line to the commands[] table in
 * cli/schedlens.c. Commands parse arguments, call lib/ and print; nothing more.
 */
#ifndef SL_CLI_BUILTIN_H
#define SL_CLI_BUILTIN_H

#include <stdint.h>

#include "parse-num.h"

/* Exit statuses shared by all commands. */
/* EXIT_INCONCLUSIVE: `diff` could neither flag nor rule out a change (README) */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_INCONCLUSIVE = 3 };

/* Prints "schedlens: <msg>" to stderr and returns EXIT_FAIL (git's error()). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "usage: <text>" to stderr and returns EXIT_USAGE. */
int cli_usage(const char *text);
/* Prints "schedlens <cmd>: <msg>" to stderr and returns EXIT_USAGE: a bad flag value. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "usage: <text>" to stdout and returns EXIT_OK: --help asked for it, so not an error. */
int cli_help(const char *text);

/*
 * Strict numeric flags (lib/common/parse-num.h): 0 with *ret set, or EXIT_USAGE after printing
 * "schedlens CMD: invalid FLAG 'VALUE': why". FLAG is as the user would type it ("--alpha",
 * "-n", "RUN").
 */
int cli_u64(const char *cmd, const char *flag, const char *s, uint64_t min, uint64_t max,
	    uint64_t *ret);
int cli_i64(const char *cmd, const char *flag, const char *s, int64_t min, int64_t max,
	    int64_t *ret);
int cli_double(const char *cmd, const char *flag, const char *s, double min, double max,
	       unsigned int flags, double *ret);

int cmd_topology(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_findings(int argc, char **argv);
int cmd_delete(int argc, char **argv);
int cmd_lab(int argc, char **argv);

#endif
