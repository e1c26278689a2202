/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The schedlens subcommands. To add one: write cli/cmd-<name>.c with
 * `int cmd_<name>(int argc, char **argv)` (argv[0] is the command name; the return value
 * is the exit status), declare it here and add a line to the commands[] table in
 * cli/schedlens.c. Commands parse arguments, call lib/ and print; nothing more.
 */
#ifndef SL_CLI_BUILTIN_H
#define SL_CLI_BUILTIN_H

/* Exit statuses shared by all commands. */
/* EXIT_INCONCLUSIVE: `diff` could neither flag nor rule out a change (README) */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_INCONCLUSIVE = 3 };

/* Prints "schedlens: <msg>" to stderr and returns EXIT_FAIL (git's error()). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "usage: <text>" to stderr and returns EXIT_USAGE. */
int cli_usage(const char *text);
/* Prints "usage: <text>" to stdout and returns EXIT_OK: --help asked for it, so not an error. */
int cli_help(const char *text);

int cmd_topology(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_findings(int argc, char **argv);
int cmd_delete(int argc, char **argv);

#endif
