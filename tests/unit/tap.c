// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TAP producer behind tap.h.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static int tests_run;
static int tests_failed;
static char tmpdir[256];

static void report(bool pass, const char *file, int line, const char *fmt, va_list ap)
{
	tests_run++;
	if (!pass)
		tests_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tests_run);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
}

bool tap_todo(bool cond, const char *reason, const char *fmt, ...)
{
	va_list ap;

	tests_run++;
	printf("%sok %d - ", cond ? "" : "not ", tests_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # TODO %s\n", reason);
	fflush(stdout);
	return cond;
}

bool tap_ok(bool cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cond, file, line, fmt, ap);
	va_end(ap);
	return cond;
}

bool tap_is_int(int64_t got, int64_t want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	bool pass = got == want;

	va_start(ap, fmt);
	report(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: %" PRId64 "\n#     expected: %" PRId64 "\n", got, want);
	return pass;
}

bool tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	bool pass = got && want ? strcmp(got, want) == 0 : got == want;

	va_start(ap, fmt);
	report(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: '%s'\n#     expected: '%s'\n", got ? got : "(null)",
		       want ? want : "(null)");
	return pass;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void tap_skip(const char *why)
{
	printf("ok %d # skip %s\n", ++tests_run, why);
}

const char *tap_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	/* tmpfs when there is one: fixtures are thousands of small files, and creating
	 * them on this VM's disk costs ten times as much */
	if (!base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "%s/sl-test.XXXXXX", base);
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return tmpdir;
}

int tap_done(void)
{
	if (tmpdir[0]) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "# could not remove %s\n", tmpdir);
	}
	printf("1..%d\n", tests_run);
	if (tests_run == 0) {
		printf("# no tests ran\n");
		return 1;
	}
	return tests_failed ? 1 : 0;
}
