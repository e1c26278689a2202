// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the recorder's instance removal when another file holder keeps it busy,
 * in one process (as in the daemon, which reopens its recorder): close() says EBUSY and
 * names the holder, the next open() takes a fresh name and warns about the busy one, and
 * once released an open() removes it. Also sl_proc_holders() on a file we hold, and
 * close(NULL). Needs root and tracefs (skips otherwise).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "proc.h"
#include "recorder.h"
#include "tap.h"

#define TRACING "/sys/kernel/tracing"

static int on_batch(void *ctx, const struct sl_event *ev, size_t n)
{
	(void)ctx;
	(void)ev;
	(void)n;
	return 0;
}

static bool instance_exists(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), TRACING "/instances/%s", name);
	return stat(path, &st) == 0;
}

int main(void)
{
	struct sl_recorder_opts o = { .buffer_kb = 64, .on_batch = on_batch };
	struct sl_recorder *a = NULL, *b = NULL, *c = NULL;
	char first[64], second[64], path[256], mine[32], holders[256];
	int fd, r;

	is_int(sl_recorder_close(NULL), 0, "close(NULL)");
	if (geteuid() != 0 || access(TRACING "/instances", W_OK) < 0) {
		skip("needs root and tracefs at " TRACING);
		return done_testing();
	}
	snprintf(mine, sizeof(mine), "%d (", (int)getpid());

	r = sl_recorder_open(&o, &a);
	if (!ok(r == 0, "open: %s", r < 0 ? sl_errmsg(r) : "ok"))
		return done_testing();
	snprintf(first, sizeof(first), "%s", sl_recorder_instance(a));
	ok(sl_recorder_start(a) == 0, "start");
	ok(sl_recorder_stop(a) == 0, "stop");
	snprintf(path, sizeof(path), TRACING "/instances/%s/tracing_on", first);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ok(fd >= 0, "we hold '%s'", path);

	snprintf(path, sizeof(path), TRACING "/instances/%s", first);
	r = sl_proc_holders(NULL, path, holders, sizeof(holders));
	ok(r >= 1 && strstr(holders, mine), "sl_proc_holders names us: %d '%s'", r, holders);

	r = sl_recorder_close(a);
	is_int(r, -EBUSY, "close of a held instance: -EBUSY");
	ok(strstr(sl_errmsg(r), "busy, held open by pid ") && strstr(sl_errmsg(r), mine),
	   "its message names our pid: %s", sl_errmsg(r));
	ok(instance_exists(first), "'%s' is still there", first);

	r = sl_recorder_open(&o, &b);
	if (!ok(r == 0, "the next open proceeds: %s", r < 0 ? sl_errmsg(r) : "ok"))
		goto out;
	snprintf(second, sizeof(second), "%s", sl_recorder_instance(b));
	ok(strcmp(second, first) != 0, "with a fresh name '%s'", second);
	ok(strstr(sl_recorder_stale_warning(b), first) &&
		   strstr(sl_recorder_stale_warning(b), mine),
	   "warning about '%s', naming us: %s", first, sl_recorder_stale_warning(b));
	is_int(sl_recorder_close(b), 0, "its close removes '%s'", second);
	ok(!instance_exists(second), "'%s' is gone", second);

	close(fd);
	fd = -1;
	r = sl_recorder_open(&o, &c);
	if (!ok(r == 0, "released: open: %s", r < 0 ? sl_errmsg(r) : "ok"))
		goto out;
	ok(sl_recorder_stale_removed(c) >= 1, "released: open removed '%s' (%d)", first,
	   sl_recorder_stale_removed(c));
	is_str(sl_recorder_stale_warning(c), "", "no warning");
	is_str(sl_recorder_instance(c), first, "the first name is ours again");
	is_int(sl_recorder_close(c), 0, "close");
	ok(!instance_exists(first), "none of our instances is left");
out:
	if (fd >= 0)
		close(fd);
	return done_testing();
}
