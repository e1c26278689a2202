// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace synthesizer's text output: events as lines of the kernel's
 * /sys/kernel/tracing/trace file (the print fmt of each sched_* event, behind the usual
 * "comm-pid [cpu] flags timestamp: name:" context), so the ftrace-text importer can be
 * tested on a stream whose truth is known.
 */
#include <inttypes.h>
#include <stdio.h>

#include "synth.h"

int synth_format_header(int nr_cpus, char *buf, size_t size)
{
	return snprintf(buf, size,
			"# tracer: nop\n"
			"#\n"
			"# synthesized by slsynth (entry counts unknown)   #P:%d\n"
			"#\n"
			"#                                _-----=> irqs-off/BH-disabled\n"
			"#                               / _----=> need-resched\n"
			"#                              | / _---=> hardirq/softirq\n"
			"#                              || / _--=> preempt-depth\n"
			"#                              ||| / _-=> migrate-disable\n"
			"#                              |||| /     delay\n"
			"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			"#              | |         |   |||||     |         |\n",
			nr_cpus);
}

int synth_format_text(const struct sl_event *ev, const char *common_comm, bool nsec, char *buf,
		      size_t size)
{
	char ts[32];
	const char *comm = ev->common_pid == 0 ? "<idle>" : common_comm ? common_comm : "<...>";
	uint64_t sec = ev->ts_ns / 1000000000, ns = ev->ts_ns % 1000000000;
	int n;

	if (nsec)
		snprintf(ts, sizeof(ts), "%5" PRIu64 ".%09" PRIu64, sec, ns);
	else
		snprintf(ts, sizeof(ts), "%5" PRIu64 ".%06" PRIu64, sec, ns / 1000);
	n = snprintf(buf, size, "%16s-%-7d [%03d] %s %s: ", comm, ev->common_pid, ev->cpu,
		     ev->type == SL_EV_SWITCH ? "d..2." : "d..3.", ts);
	if (n < 0 || (size_t)n >= size)
		return n;
	switch (ev->type) {
	case SL_EV_SWITCH:
		return n + snprintf(buf + n, size - n,
				    "sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d "
				    "prev_state=%c%s ==> next_comm=%s next_pid=%d next_prio=%d\n",
				    ev->sw.prev_comm, ev->sw.prev_pid, ev->sw.prev_prio,
				    ev->sw.prev_state, ev->sw.prev_preempt ? "+" : "",
				    ev->sw.next_comm, ev->sw.next_pid, ev->sw.next_prio);
	case SL_EV_WAKING:
	case SL_EV_WAKEUP:
	case SL_EV_WAKEUP_NEW:
		return n + snprintf(buf + n, size - n,
				    "sched_%s: comm=%s pid=%d prio=%d target_cpu=%03d\n",
				    ev->type == SL_EV_WAKING ? "waking" :
				    ev->type == SL_EV_WAKEUP ? "wakeup" :
							       "wakeup_new",
				    ev->wake.comm, ev->wake.pid, ev->wake.prio,
				    ev->wake.target_cpu);
	case SL_EV_MIGRATE:
		return n +
		       snprintf(
			       buf + n, size - n,
			       "sched_migrate_task: comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\n",
			       ev->migrate.comm, ev->migrate.pid, ev->migrate.prio,
			       ev->migrate.orig_cpu, ev->migrate.dest_cpu);
	default:
		return n + snprintf(buf + n, size - n, "%s\n", sl_event_type_name(ev->type));
	}
}
