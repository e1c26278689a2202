// SPDX-License-Identifier: GPL-2.0-only
/*
 * Session options for recording this host live.
 */
#include <string.h>

#include "proc.h"
#include "session-live.h"

static int32_t proc_tgid(void *ctx, int32_t pid)
{
	return sl_proc_tgid(NULL, pid);
}

void sl_session_opts_live(struct sl_session_opts *o, const struct sl_hostinfo *hi,
			  const struct sl_topo *topo, const struct sl_recorder *rec, const char *db,
			  const char *label)
{
	memset(o, 0, sizeof(*o));
	o->db_path = db;
	o->topo = topo;
	o->hostname = hi->hostname;
	o->machine_id = hi->machine_id;
	o->meta = (struct sl_run_meta){
		.kernel_release = hi->kernel_release ? hi->kernel_release : "unknown",
		.kernel_version = hi->kernel_version,
		.cmdline = hi->cmdline,
		.boot_id = hi->boot_id,
		.preempt_mode = hi->preempt_mode,
		.sched_features = hi->sched_features,
		.sched_sysctls = hi->sched_sysctls,
		.workload = label ? label : "",
		.source = "live",
		.trace_clock = sl_recorder_clock(rec),
		.nr_cpus = hi->nr_cpus,
		.start_ns = sl_recorder_now_ns(rec),
	};
	sl_engine_config_default(&o->engine);
	o->engine.tgid_of = proc_tgid;
}
