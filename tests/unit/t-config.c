// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the configuration table (lib/common/config.h) on a table of our own with one option
 * of every type: defaults, values and their limits, the config file (comments, quotes,
 * errors naming file:line), flags overriding the file, the dump --print-config prints (it
 * must read back to the same values) and the per-option diff a reload logs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "error.h"
#include "tap.h"

struct cfg {
	char *config, *name, *level;
	uint64_t count, every_ns, size;
	bool on;
};

#define OPT(n, t, f, d, lo, hi, fl, ch)                                                       \
	{                                                                                     \
		.name = n, .type = t, .offset = offsetof(struct cfg, f), .def = d, .min = lo, \
		.max = hi, .choices = ch, .flags = fl, .help = "help of " n                   \
	}

static const struct sl_cfg_opt tab[] = {
	OPT("config", SL_CFG_STR, config, "", 0, 0, SL_CFG_NOFILE, NULL),
	OPT("name", SL_CFG_STR, name, "x y", 0, 0, SL_CFG_RELOAD, NULL),
	OPT("level", SL_CFG_ENUM, level, "info", 0, 0, SL_CFG_RELOAD, "debug|info|error"),
	OPT("count", SL_CFG_UINT, count, "300", 2, 1000, 0, NULL),
	OPT("every", SL_CFG_DURATION, every_ns, "1h", 1000000000ull, 0, SL_CFG_RELOAD, NULL),
	OPT("size", SL_CFG_SIZE, size, "64k", 0, 0, 0, NULL),
	OPT("on", SL_CFG_BOOL, on, "yes", 0, 0, 0, NULL),
	{ 0 },
};

static const char *write_file(const char *name, const char *text)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", tap_tmpdir(), name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

/* The error message of a call expected to fail, or "" if it succeeded. */
static const char *fails(int err)
{
	return err < 0 ? sl_errmsg(err) : "";
}

static void test_defaults_and_values(void)
{
	struct cfg c = { 0 };
	uint64_t v;

	is_int(sl_config_defaults(tab, &c), 0, "defaults");
	is_str(c.name, "x y", "string default");
	is_str(c.level, "info", "enum default");
	is_int(c.count, 300, "uint default");
	is_int(c.every_ns, 3600000000000ll, "duration default 1h");
	is_int(c.size, 65536, "size default 64k");
	ok(c.on, "bool default yes");
	ok(c.config && !c.config[0], "empty string default");

	is_int(sl_config_set(tab, &c, "count", "2"), 0, "uint at its minimum");
	is_int(sl_config_set(tab, &c, "count", "1000"), 0, "uint at its maximum");
	ok(strstr(fails(sl_config_set(tab, &c, "count", "1001")), "out of range"),
	   "uint above its maximum: %s", sl_errmsg(-SL_EUSAGE));
	ok(strstr(fails(sl_config_set(tab, &c, "count", "1")), "'count'"),
	   "uint below its minimum names the option");
	ok(sl_config_set(tab, &c, "count", "12x") < 0, "uint with junk refused");
	ok(sl_config_set(tab, &c, "count", "-1") < 0, "negative uint refused");
	ok(sl_config_set(tab, &c, "count", "99999999999999999999999") < 0, "uint overflow refused");
	is_int(c.count, 1000, "failed sets leave the value alone");
	ok(strstr(fails(sl_config_set(tab, &c, "level", "verbose")), "debug|info|error"),
	   "bad enum lists the choices");
	is_int(sl_config_set(tab, &c, "level", "debug"), 0, "enum choice");
	is_str(c.level, "debug", "enum set");
	ok(sl_config_set(tab, &c, "level", "info|") < 0, "enum: a partial word is refused");
	ok(sl_config_set(tab, &c, "level", "") < 0, "enum: empty is refused");
	is_int(sl_config_set(tab, &c, "on", "off"), 0, "bool off");
	ok(!c.on, "bool off set");
	ok(strstr(fails(sl_config_set(tab, &c, "on", "maybe")), "yes or no"), "bad bool");
	ok(strstr(fails(sl_config_set(tab, &c, "nope", "1")), "unknown option 'nope'"),
	   "unknown option named");
	ok(strstr(fails(sl_config_set(tab, &c, "every", "500ms")), "out of range"),
	   "duration below its minimum");
	is_int(sl_config_set(tab, &c, "every", "90"), 0, "duration in plain seconds");
	is_int(c.every_ns, 90000000000ll, "90 = 90 s");

	is_int(sl_config_parse_duration("1500ms", &v), 0, "500ms parses");
	is_int(v, 1500000000ll, "1500ms");
	is_int(sl_config_parse_duration("3d", &v), 0, "3d parses");
	is_int(v, 3ll * 86400 * 1000000000ll, "3d");
	ok(sl_config_parse_duration("5 parsecs", &v) < 0, "unknown unit refused");
	ok(sl_config_parse_duration("", &v) < 0, "empty duration refused");
	ok(sl_config_parse_duration("99999999999d", &v) < 0, "duration overflow refused");
	is_int(sl_config_parse_size("10M", &v), 0, "10M parses");
	is_int(v, 10ll << 20, "10M = 10 MiB");
	is_int(sl_config_parse_size("1T", &v), 0, "1T parses");
	is_int(v, 1ll << 40, "1T = 1 TiB");
	ok(sl_config_parse_size("k", &v) < 0, "unit without digits refused");
	sl_config_free(tab, &c);
	ok(!c.name && !c.level, "free clears the strings");
	sl_config_free(tab, &c);
}

static void test_file(void)
{
	struct cfg c = { 0 };
	const char *p;
	const char *m;

	sl_config_defaults(tab, &c);
	p = write_file("good.conf", "# a comment\n"
				    "\n"
				    "   # indented comment\n"
				    "name   \"quoted value\"  \n"
				    "count 42\n"
				    "every 5m\r\n"
				    "on no\n");
	is_int(sl_config_load_file(tab, &c, p), 0, "file loads");
	is_str(c.name, "quoted value", "quotes and blanks dropped");
	is_int(c.count, 42, "uint from the file");
	is_int(c.every_ns, 300000000000ll, "CRLF line: 5m");
	ok(!c.on, "bool from the file");
	is_str(c.level, "info", "unset options keep their defaults");

	p = write_file("bad.conf", "count 42\n# fine\nbogus 1\n");
	m = fails(sl_config_load_file(tab, &c, p));
	ok(strstr(m, "bad.conf:3:") && strstr(m, "unknown option 'bogus'"),
	   "unknown option: file:line in '%s'", m);
	p = write_file("range.conf", "\n\ncount 5000\n");
	m = fails(sl_config_load_file(tab, &c, p));
	ok(strstr(m, "range.conf:3:") && strstr(m, "count"), "out of range: file:line in '%s'", m);
	p = write_file("noval.conf", "count\n");
	m = fails(sl_config_load_file(tab, &c, p));
	ok(strstr(m, "noval.conf:1:"), "option without a value: file:line in '%s'", m);
	p = write_file("nofile.conf", "config /etc/other\n");
	ok(sl_config_load_file(tab, &c, p) < 0, "a command-line-only option is refused in a file");
	m = fails(sl_config_load_file(tab, &c, "/nonexistent/x.conf"));
	ok(strstr(m, "'/nonexistent/x.conf'"), "missing file named: '%s'", m);
	{
		char big[9000];

		memset(big, 'a', sizeof(big) - 2);
		memcpy(big, "name ", 5);
		big[sizeof(big) - 2] = '\n';
		big[sizeof(big) - 1] = '\0';
		p = write_file("long.conf", big);
		m = fails(sl_config_load_file(tab, &c, p));
		ok(strstr(m, "long.conf:1:"), "overlong line: '%s'", m);
	}
	sl_config_free(tab, &c);
}

static void test_args(void)
{
	struct cfg c = { 0 };
	const char *p = write_file("args.conf", "count 42\nname fromfile\nsize 1M\n");
	const char *const skip[] = { "config", NULL };
	char *argv[] = { "prog",    "--config", (char *)p, "--count=7", "--name", "flag", "--no-on",
			 "--level", "error",	"rest",	   "--size",	"2k",	  NULL };
	int next = -1;

	sl_config_defaults(tab, &c);
	is_int(sl_config_set(tab, &c, "config", p), 0, "config path set");
	is_int(sl_config_load_file(tab, &c, c.config), 0, "file first");
	is_int(sl_config_parse_args(tab, &c, 12, argv, 1, skip, &next), 0, "then the flags");
	is_int(c.count, 7, "--count=7 overrides the file");
	is_str(c.name, "flag", "--name VALUE overrides the file");
	ok(!c.on, "--no-on");
	is_str(c.level, "error", "--level error");
	is_int(c.size, 1 << 20, "the file's value stays where no flag overrides it");
	is_int(next, 9, "stops at the first non-option");
	{
		char *a2[] = { "prog", "--on", "--count", NULL };
		char *a3[] = { "prog", "--bogus", "1", NULL };
		char *a4[] = { "prog", "--on", NULL };
		char *a5[] = { "prog", "--on", "no", "--count", "3", NULL };
		char *a6[] = { "prog", "--on", "off", "--on", "rest", NULL };

		c.on = false;
		is_int(sl_config_parse_args(tab, &c, 2, a4, 1, NULL, NULL), 0, "--on alone");
		ok(c.on, "bare boolean flag means yes");
		is_int(sl_config_parse_args(tab, &c, 5, a5, 1, NULL, &next), 0, "--on no");
		ok(!c.on && c.count == 3 && next == 5,
		   "a boolean flag takes a yes/no word after it, as --print-config writes it");
		is_int(sl_config_parse_args(tab, &c, 5, a6, 1, NULL, &next), 0,
		       "--on off --on rest");
		ok(c.on && next == 4, "a word that is no boolean is left for the caller (next %d)",
		   next);
		ok(strstr(fails(sl_config_parse_args(tab, &c, 3, a2, 1, NULL, NULL)),
			  "needs a value"),
		   "--count without a value");
		ok(strstr(fails(sl_config_parse_args(tab, &c, 3, a3, 1, NULL, NULL)),
			  "unknown option"),
		   "unknown flag");
	}
	sl_config_free(tab, &c);
}

static void test_dump_and_diff(void)
{
	struct cfg a = { 0 }, b = { 0 };
	const char *p;
	char *text, *text2, *v;
	int differ = 0;

	sl_config_defaults(tab, &a);
	text = sl_config_dump(tab, &a);
	ok(text && !strstr(text, "\nconfig "), "the dump leaves out command-line-only options");
	ok(text && strstr(text, "# help of name (reloaded on SIGHUP)\nname \"x y\"\n"),
	   "help line, reload note, quoted value with a blank");
	ok(text && strstr(text, "\nevery 1h\n"), "durations print in their largest exact unit");
	ok(text && strstr(text, "\nsize 64k\n"), "sizes print in their largest exact unit");
	ok(text && strstr(text, "\non yes\n"), "bools print yes/no");
	p = write_file("dump.conf", text ? text : "");
	sl_config_defaults(tab, &b);
	sl_config_set(tab, &b, "count", "999");
	is_int(sl_config_load_file(tab, &b, p), 0, "the dump loads back as a config file");
	for (const struct sl_cfg_opt *o = tab; o->name; o++)
		differ += sl_config_differs(o, &a, &b);
	is_int(differ, 0, "and gives the same values");
	text2 = sl_config_dump(tab, &b);
	is_str(text2, text, "dump of the reloaded values is identical");
	free(text);
	free(text2);

	sl_config_set(tab, &b, "every", "90m");
	sl_config_set(tab, &b, "name", "other");
	sl_config_set(tab, &b, "on", "no");
	ok(sl_config_differs(sl_config_find(tab, "every"), &a, &b), "duration differs");
	ok(sl_config_differs(sl_config_find(tab, "name"), &a, &b), "string differs");
	ok(sl_config_differs(sl_config_find(tab, "on"), &a, &b), "bool differs");
	ok(!sl_config_differs(sl_config_find(tab, "level"), &a, &b), "enum same");
	ok(!sl_config_differs(sl_config_find(tab, "config"), &a, &b),
	   "NULL-free empty strings same");
	v = sl_config_format(sl_config_find(tab, "every"), &b);
	is_str(v, "90m", "the reload log prints the new value in its unit");
	free(v);
	sl_config_set(tab, &b, "every", "1001ms");
	v = sl_config_format(sl_config_find(tab, "every"), &b);
	is_str(v, "1001ms", "1001ms stays exact");
	free(v);
	ok(!sl_config_find(tab, "nope"), "find of an unknown name");
	sl_config_free(tab, &a);
	sl_config_free(tab, &b);
}

int main(void)
{
	test_defaults_and_values();
	test_file();
	test_args();
	test_dump_and_diff();
	return done_testing();
}
