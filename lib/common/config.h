/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration tables, in the manner of Redis: one table of options (name, type,
 * default, limits, help) drives the defaults, the config file ("name value" lines, '#'
 * comments) and the command-line flags (--name VALUE or --name=VALUE), and prints the
 * result. The table describes fields of a caller's struct by offset, so a program keeps
 * its settings in a plain struct and this module knows nothing of their meaning.
 */
#ifndef SL_CONFIG_H
#define SL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sl_cfg_type {
	SL_CFG_STR, /* char *, owned by the struct (sl_config_free) */
	SL_CFG_UINT, /* uint64_t, decimal */
	SL_CFG_BOOL, /* bool: yes/no, true/false, on/off, 1/0 */
	SL_CFG_DURATION, /* uint64_t ns: "90" (seconds), "500ms", "10s", "5m", "2h", "3d" */
	SL_CFG_SIZE, /* uint64_t bytes: "4096", "64k", "10M", "2G" (powers of 1024) */
	SL_CFG_ENUM, /* char * restricted to the '|'-separated words of .choices */
};

enum sl_cfg_flags {
	SL_CFG_RELOAD = 1 << 0, /* takes effect on reload (SIGHUP) without a restart */
	SL_CFG_NOFILE = 1 << 1, /* command line only (e.g. the config file's own path) */
};

struct sl_cfg_opt {
	const char *name; /* lowercase words joined by '-' */
	enum sl_cfg_type type;
	size_t offset; /* offsetof() the field in the caller's struct */
	const char *def; /* default as text; NULL = "" for strings */
	uint64_t min, max; /* numeric limits (inclusive; max 0 = none) */
	const char *choices; /* SL_CFG_ENUM: "debug|info|warning|error" */
	unsigned int flags; /* enum sl_cfg_flags */
	const char *help; /* one line */
};

/*
 * Sets every field of obj to its default. The table ends with an entry whose name is
 * NULL. Returns 0 or -SL_EUSAGE / -ENOMEM with a message (a bad default is a bug).
 */
int sl_config_defaults(const struct sl_cfg_opt *tab, void *obj);

/* Sets one option from text; -SL_EUSAGE with a message naming the option and value. */
int sl_config_set(const struct sl_cfg_opt *tab, void *obj, const char *name, const char *value);

/*
 * Reads a config file: one "name value" per line, the value running to the end of the
 * line (surrounding blanks dropped, optional double quotes removed), '#' starts a
 * comment line. Errors name the file and line.
 */
int sl_config_load_file(const struct sl_cfg_opt *tab, void *obj, const char *path);

/*
 * Applies flags from argv[first..argc): --name VALUE, --name=VALUE, and --name alone for
 * booleans (yes) or --no-name (no). Stops at the first argument that is not an option
 * and stores its index in *ret_next (may be NULL). Names in skip (NULL-terminated, may be
 * NULL) are consumed with their value but not applied (e.g. --config, read earlier).
 */
int sl_config_parse_args(const struct sl_cfg_opt *tab, void *obj, int argc, char **argv, int first,
			 const char *const *skip, int *ret_next);

/* The value of an option as text, for printing; caller frees. NULL on ENOMEM. */
char *sl_config_format(const struct sl_cfg_opt *o, const void *obj);

/* The whole configuration as a config file ("name value" lines); caller frees. */
char *sl_config_dump(const struct sl_cfg_opt *tab, const void *obj);

/* True if the option's value differs between a and b. */
bool sl_config_differs(const struct sl_cfg_opt *o, const void *a, const void *b);

/* The option named name, or NULL. */
const struct sl_cfg_opt *sl_config_find(const struct sl_cfg_opt *tab, const char *name);

/* Frees the strings of obj (not obj itself). */
void sl_config_free(const struct sl_cfg_opt *tab, void *obj);

/*
 * Reads a bearer token from the first line of path (CR/LF end it). Refuses a token that is
 * shorter than 16 characters or holds a space, tab or control character (a file of blanks
 * would be a token no client sends). Returns 0 with *ret (free after explicit_bzero) and
 * *ret_exposed set when the file is readable by its group or others, or an error with
 * the message set.
 */
int sl_config_read_token(const char *path, char **ret, bool *ret_exposed);

/* Parsers shared with other modules: 0 or -SL_EUSAGE (no message). */
int sl_config_parse_duration(const char *s, uint64_t *ret_ns);
int sl_config_parse_size(const char *s, uint64_t *ret_bytes);

#endif
