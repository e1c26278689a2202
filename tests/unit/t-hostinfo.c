// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of hostinfo: the preempt-mode parser on debugfs texts of several kernels,
 * and that this host's metadata has the fields every host has.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "hostinfo.h"
#include "tap.h"

static void check_preempt(const char *text, const char *want)
{
	char *got = sl_hostinfo_parse_preempt(text);

	if (want)
		is_str(got ? got : "(null)", want, "preempt '%s'", text);
	else
		ok(!got, "preempt '%s' has no mode", text ? text : "(null)");
	free(got);
}

int main(void)
{
	struct sl_hostinfo *hi = NULL;
	struct utsname u;

	check_preempt("none voluntary (full)\n", "full");
	check_preempt("none (voluntary) full lazy", "voluntary");
	check_preempt("(none) voluntary full", "none");
	check_preempt("none voluntary full lazy", NULL);
	check_preempt(NULL, NULL);

	is_int(sl_hostinfo_read(&hi), 0, "read this host");
	uname(&u);
	is_str(hi->kernel_release, u.release, "kernel release is uname -r");
	ok(hi->hostname && *hi->hostname, "hostname");
	ok(hi->boot_id && strlen(hi->boot_id) == 36, "boot id is a UUID");
	ok(hi->cmdline != NULL, "cmdline");
	ok(hi->preempt_mode != NULL, "a preempt mode or an honest 'unknown' (%s)",
	   hi->preempt_mode ? hi->preempt_mode : "");
	ok(hi->sched_sysctls && strstr(hi->sched_sysctls, "kernel.sched_"),
	   "kernel.sched_* sysctls listed");
	ok(hi->nr_cpus > 0, "cpu count");
	sl_hostinfo_free(hi);
	sl_hostinfo_free(NULL);
	return done_testing();
}
