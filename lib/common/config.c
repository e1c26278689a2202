// SPDX-License-Identifier: GPL-2.0-only
/*
 * Configuration tables: defaults, config file, flags and printing driven by one table of
 * struct sl_cfg_opt (see config.h). Values are validated against the option's type,
 * limits and choices when set, so a program never sees an out-of-range setting.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "config.h"
#include "error.h"
#include "parse-num.h"

#define FIELD(obj, o, type) ((type *)((char *)(obj) + (o)->offset))
#define CFIELD(obj, o, type) ((const type *)((const char *)(obj) + (o)->offset))

const struct sl_cfg_opt *sl_config_find(const struct sl_cfg_opt *tab, const char *name)
{
	for (; tab->name; tab++)
		if (!strcmp(tab->name, name))
			return tab;
	return NULL;
}

/* The shared strict parser (parse-num.h): digits only, overflow refused, then a unit. */
static int parse_u64(const char *s, uint64_t *ret, const char **ret_end)
{
	return sl_parse_u64_prefix(s, ret, ret_end) ? -SL_EUSAGE : 0;
}

/* Multiplies with an overflow check. */
static int scale(uint64_t v, uint64_t mul, uint64_t *ret)
{
	if (mul && v > UINT64_MAX / mul)
		return -SL_EUSAGE;
	*ret = v * mul;
	return 0;
}

int sl_config_parse_duration(const char *s, uint64_t *ret_ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "", 1000000000ull },
		      { "s", 1000000000ull },
		      { "ms", 1000000ull },
		      { "us", 1000ull },
		      { "ns", 1ull },
		      { "m", 60000000000ull },
		      { "h", 3600000000000ull },
		      { "d", 86400000000000ull } };
	const char *end;
	uint64_t v;

	if (parse_u64(s, &v, &end))
		return -SL_EUSAGE;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return scale(v, units[i].ns, ret_ns);
	return -SL_EUSAGE;
}

int sl_config_parse_size(const char *s, uint64_t *ret_bytes)
{
	const char *end;
	uint64_t v, mul;

	if (parse_u64(s, &v, &end))
		return -SL_EUSAGE;
	switch (tolower((unsigned char)*end)) {
	case '\0':
		mul = 1;
		break;
	case 'k':
		mul = 1ull << 10;
		break;
	case 'm':
		mul = 1ull << 20;
		break;
	case 'g':
		mul = 1ull << 30;
		break;
	case 't':
		mul = 1ull << 40;
		break;
	default:
		return -SL_EUSAGE;
	}
	if (*end && end[1] && strcasecmp(end + 1, "b") && strcasecmp(end + 1, "ib"))
		return -SL_EUSAGE;
	return scale(v, mul, ret_bytes);
}

static int parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (int i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return *ret = true, 0;
		if (!strcasecmp(s, no[i]))
			return *ret = false, 0;
	}
	return -SL_EUSAGE;
}

static bool in_choices(const char *choices, const char *v)
{
	size_t len = strlen(v);

	for (const char *p = choices; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n == len && !strncmp(p, v, n))
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

static int set_opt(const struct sl_cfg_opt *o, void *obj, const char *value)
{
	const char *end;
	uint64_t v = 0;
	bool b;
	char *dup;
	int err = 0;

	switch (o->type) {
	case SL_CFG_ENUM:
		if (!in_choices(o->choices, value))
			return sl_error(-SL_EUSAGE, "bad value '%s' for '%s' (one of %s)", value,
					o->name, o->choices);
		/* fall through */
	case SL_CFG_STR:
		dup = strdup(value);
		if (!dup)
			return -ENOMEM;
		free(*FIELD(obj, o, char *));
		*FIELD(obj, o, char *) = dup;
		return 0;
	case SL_CFG_BOOL:
		if (parse_bool(value, &b))
			return sl_error(-SL_EUSAGE, "bad value '%s' for '%s' (yes or no)", value,
					o->name);
		*FIELD(obj, o, bool) = b;
		return 0;
	case SL_CFG_UINT:
		err = parse_u64(value, &v, &end);
		if (!err && *end)
			err = -SL_EUSAGE;
		break;
	case SL_CFG_DURATION:
		err = sl_config_parse_duration(value, &v);
		break;
	case SL_CFG_SIZE:
		err = sl_config_parse_size(value, &v);
		break;
	}
	if (err)
		return sl_error(-SL_EUSAGE, "bad value '%s' for '%s' (%s)", value, o->name,
				o->type == SL_CFG_DURATION ? "a duration: 10s, 500ms, 5m, 1h, 1d" :
				o->type == SL_CFG_SIZE	   ? "a size: 4096, 64k, 10M, 2G" :
							     "a number");
	if (v < o->min || (o->max && v > o->max)) {
		char *lo, *hi;
		uint64_t save = *FIELD(obj, o, uint64_t);

		*FIELD(obj, o, uint64_t) = o->min;
		lo = sl_config_format(o, obj);
		*FIELD(obj, o, uint64_t) = o->max;
		hi = o->max ? sl_config_format(o, obj) : NULL;
		*FIELD(obj, o, uint64_t) = save;
		err = sl_error(-SL_EUSAGE, "'%s' for '%s' is out of range (%s..%s)", value, o->name,
			       lo ? lo : "?", hi ? hi : "");
		free(lo);
		free(hi);
		return err;
	}
	*FIELD(obj, o, uint64_t) = v;
	return 0;
}

int sl_config_set(const struct sl_cfg_opt *tab, void *obj, const char *name, const char *value)
{
	const struct sl_cfg_opt *o = sl_config_find(tab, name);

	if (!o)
		return sl_error(-SL_EUSAGE, "unknown option '%s'", name);
	return set_opt(o, obj, value);
}

int sl_config_defaults(const struct sl_cfg_opt *tab, void *obj)
{
	for (const struct sl_cfg_opt *o = tab; o->name; o++) {
		int err = set_opt(o, obj, o->def ? o->def : "");

		if (err)
			return err;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int sl_config_load_file(const struct sl_cfg_opt *tab, void *obj, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[4096];
	int lineno = 0, err = 0;

	if (!f)
		return sl_error(-errno, "cannot open config file '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *name, *value, *p;
		const struct sl_cfg_opt *o;
		size_t len;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			err = sl_error(-SL_EUSAGE, "%s:%d: line too long", path, lineno);
			break;
		}
		name = trim(line);
		if (!*name || *name == '#')
			continue;
		for (p = name; *p && !isspace((unsigned char)*p); p++)
			;
		value = *p ? (*p = '\0', trim(p + 1)) : p;
		len = strlen(value);
		if (len >= 2 && value[0] == '"' && value[len - 1] == '"') {
			value[len - 1] = '\0';
			value++;
		}
		o = sl_config_find(tab, name);
		if (!o || (o->flags & SL_CFG_NOFILE)) {
			err = sl_error(-SL_EUSAGE, "%s:%d: unknown option '%s'", path, lineno,
				       name);
			break;
		}
		err = set_opt(o, obj, value);
		if (err) {
			/* sl_errmsg() is the buffer sl_error() writes: copy it first */
			char msg[512];

			snprintf(msg, sizeof(msg), "%s", sl_errmsg(err));
			sl_error(err, "%s:%d: %s", path, lineno, msg);
			break;
		}
	}
	fclose(f);
	return err;
}

static bool skipped(const char *const *skip, const char *name, size_t len)
{
	for (; skip && *skip; skip++)
		if (strlen(*skip) == len && !strncmp(*skip, name, len))
			return true;
	return false;
}

int sl_config_parse_args(const struct sl_cfg_opt *tab, void *obj, int argc, char **argv, int first,
			 const char *const *skip, int *ret_next)
{
	int i = first, err;

	while (i < argc && !strncmp(argv[i], "--", 2) && argv[i][2]) {
		const char *name = argv[i] + 2, *eq = strchr(name, '='), *value = NULL;
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		const struct sl_cfg_opt *o = NULL;
		char buf[128];
		bool b;

		if (len >= sizeof(buf))
			return sl_error(-SL_EUSAGE, "unknown option '%s'", argv[i]);
		memcpy(buf, name, len);
		buf[len] = '\0';
		if (skipped(skip, buf, len)) {
			i += eq ? 1 : 2;
			continue;
		}
		o = sl_config_find(tab, buf);
		if (!o && !eq && !strncmp(buf, "no-", 3) && (o = sl_config_find(tab, buf + 3)) &&
		    o->type == SL_CFG_BOOL) {
			*FIELD(obj, o, bool) = false;
			i++;
			continue;
		}
		if (!o)
			return sl_error(-SL_EUSAGE, "unknown option '--%s'", buf);
		if (eq)
			value = eq + 1;
		/* "--record no", as --print-config writes "record no"; bare "--record" is yes */
		else if (o->type == SL_CFG_BOOL && i + 1 < argc && !parse_bool(argv[i + 1], &b))
			value = argv[++i];
		else if (o->type == SL_CFG_BOOL)
			value = "yes";
		else if (i + 1 < argc)
			value = argv[++i];
		else
			return sl_error(-SL_EUSAGE, "option '--%s' needs a value", buf);
		if ((err = set_opt(o, obj, value)))
			return err;
		i++;
	}
	if (ret_next)
		*ret_next = i;
	return 0;
}

/* The largest unit that divides v exactly, so defaults print as they were written. */
static void format_scaled(char *buf, size_t size, uint64_t v, const char *const *names,
			  const uint64_t *muls, int n)
{
	for (int i = 0; i < n; i++) {
		if (v && v % muls[i] == 0) {
			snprintf(buf, size, "%" PRIu64 "%s", v / muls[i], names[i]);
			return;
		}
	}
	snprintf(buf, size, "%" PRIu64 "%s", v, v ? names[n] : "");
}

char *sl_config_format(const struct sl_cfg_opt *o, const void *obj)
{
	static const char *const dnames[] = { "d", "h", "m", "s", "ms", "us", "ns" };
	static const uint64_t dmuls[] = { 86400000000000ull, 3600000000000ull, 60000000000ull,
					  1000000000ull,     1000000ull,       1000ull };
	static const char *const snames[] = { "G", "M", "k", "" };
	static const uint64_t smuls[] = { 1ull << 30, 1ull << 20, 1ull << 10 };
	char buf[64];
	const char *s;

	switch (o->type) {
	case SL_CFG_STR:
	case SL_CFG_ENUM:
		s = *CFIELD(obj, o, char *);
		return strdup(s ? s : "");
	case SL_CFG_BOOL:
		return strdup(*CFIELD(obj, o, bool) ? "yes" : "no");
	case SL_CFG_UINT:
		snprintf(buf, sizeof(buf), "%" PRIu64, *CFIELD(obj, o, uint64_t));
		break;
	case SL_CFG_DURATION:
		format_scaled(buf, sizeof(buf), *CFIELD(obj, o, uint64_t), dnames, dmuls, 6);
		break;
	case SL_CFG_SIZE:
		format_scaled(buf, sizeof(buf), *CFIELD(obj, o, uint64_t), snames, smuls, 3);
		break;
	}
	return strdup(buf);
}

char *sl_config_dump(const struct sl_cfg_opt *tab, const void *obj)
{
	char *out = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&out, &size);

	if (!f)
		return NULL;
	for (const struct sl_cfg_opt *o = tab; o->name; o++) {
		char *v = sl_config_format(o, obj);
		bool quote = v && (!*v || strpbrk(v, " \t#"));

		if (o->flags & SL_CFG_NOFILE) {
			free(v);
			continue;
		}
		fprintf(f, "# %s%s\n%s %s%s%s\n", o->help,
			o->flags & SL_CFG_RELOAD ? " (reloaded on SIGHUP)" : "", o->name,
			quote ? "\"" : "", v ? v : "", quote ? "\"" : "");
		free(v);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

bool sl_config_differs(const struct sl_cfg_opt *o, const void *a, const void *b)
{
	const char *x, *y;

	switch (o->type) {
	case SL_CFG_STR:
	case SL_CFG_ENUM:
		x = *CFIELD(a, o, char *);
		y = *CFIELD(b, o, char *);
		return strcmp(x ? x : "", y ? y : "") != 0;
	case SL_CFG_BOOL:
		return *CFIELD(a, o, bool) != *CFIELD(b, o, bool);
	default:
		return *CFIELD(a, o, uint64_t) != *CFIELD(b, o, uint64_t);
	}
}

void sl_config_free(const struct sl_cfg_opt *tab, void *obj)
{
	for (const struct sl_cfg_opt *o = tab; o->name; o++) {
		if (o->type == SL_CFG_STR || o->type == SL_CFG_ENUM) {
			free(*FIELD(obj, o, char *));
			*FIELD(obj, o, char *) = NULL;
		}
	}
}

int sl_config_read_token(const char *path, char **ret, bool *ret_exposed)
{
	char buf[512];
	FILE *f = fopen(path, "re");
	struct stat sb;
	size_t n;
	int err = 0;

	if (!f)
		return sl_error(-errno, "cannot read token file '%s': %s", path, strerror(errno));
	if (fstat(fileno(f), &sb) < 0) {
		err = sl_error(-errno, "cannot read token file '%s': %s", path, strerror(errno));
		fclose(f);
		return err;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	n = strlen(buf);
	for (size_t i = 0; i < n && !err; i++)
		if ((unsigned char)buf[i] <= ' ' || buf[i] == 0x7f)
			err = sl_error(
				-SL_EUSAGE,
				"token in '%s' holds a blank or control character at byte %zu "
				"(a token is one word of at least 16 characters)",
				path, i + 1);
	if (!err && n < 16)
		err = sl_error(-SL_EUSAGE, "token in '%s' is shorter than 16 characters", path);
	if (!err && !(*ret = strdup(buf)))
		err = -ENOMEM;
	explicit_bzero(buf, sizeof(buf));
	if (!err)
		*ret_exposed = (sb.st_mode & (S_IRWXG | S_IRWXO)) != 0;
	return err;
}
