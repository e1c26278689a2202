/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Export of a stored run as ftrace text (the kernel's /sys/kernel/tracing/trace format,
 * nanosecond timestamps), which `schedlens import` reads back to the same wakeup and
 * preemption records. The events are regenerated from what the run stored: sched_switch
 * from consecutive sched_slices of a CPU (the first switch from run_cpu_first),
 * sched_waking + sched_wakeup from the wakeups rows, comms and thread groups from tasks
 * ("# tgid PID TGID" comment lines before the events), and the run's end time as a
 * "# schedlens end_ns N" line after them.
 *
 * Limits, because they are not stored: wakeups that produced no record (the task was
 * still runnable), forks, exits and migrations are not exported; a woken task that ran on
 * another CPU than its target gets a sched_migrate_task just before it ran, not when the
 * kernel moved it; CPU time lost in gaps (lost events, untraced switches) is not
 * reconstructed. Windows' migration and event counts therefore differ after a round
 * trip. Measured on tests/fixtures/guest16-import-v6.dat with its topology: 1-2 of 1854
 * wakeup rows differ (target_state 'claimed' vs 'idle': a claim moved by a migration
 * before the wakee ran) and ~1% of preemption rows differ in the hub flag (a waker's
 * wakings of still-runnable tasks count towards hubs but leave no wakeup row). Without a
 * topology, the preemption rows are identical.
 */
#ifndef SL_EXPORT_TEXT_H
#define SL_EXPORT_TEXT_H

#include <stdint.h>
#include <stdio.h>

struct sl_export_stats {
	uint64_t switches, wakings, wakeups, migrations;
	uint64_t lines;
};

/*
 * Writes run run_id of the database at db_path to out. Returns 0, or a negative code
 * with a message (-ENOENT: no such run). stats may be NULL.
 */
int sl_export_text(const char *db_path, int64_t run_id, FILE *out, struct sl_export_stats *stats);

#endif
