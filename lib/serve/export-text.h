/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Export of a stored run as ftrace text (the kernel's /sys/kernel/tracing/trace format,
 * nanosecond timestamps), which `schedlens import` reads back to the same records.
 *
 * Runs stored with raw facts (runs.facts = 1: every run stored with per-event rows since
 * schema 4, live or imported) are replayed exactly: the facts (lib/store/facts.h) are the
 * non-switch events verbatim with their CPU and context pid, the switches the slices do
 * not imply, and each comm change; every other sched_switch is rebuilt from consecutive
 * sched_slices of its CPU; thread groups come from tasks ("# tgid PID TGID" comment lines
 * before the events) and the run's end time from a "# schedlens end_ns N" line after them.
 * Re-importing gives identical wakeups, preemptions, sched_slices, windows and tasks rows
 * (tests/integration/40-import.t: the guest16 fixtures, the lab's hackbench trace, a
 * synthesized run). What text cannot carry: a lost-events marker is read back at the time
 * of the line before it, and the prio of wakeup, migrate and exit events is printed as
 * 120 (the engine reads neither). An export is only as complete as the rows retention
 * has kept.
 *
 * Runs without facts (older runs, windows-only runs) are approximated from the derived
 * rows: sched_waking + sched_wakeup from the wakeups rows (waking times from the schema 3
 * `wakings` table, else the end of the waker's slice), the first switches from
 * run_cpu_first, no forks, exits or wakeups that made no record, and a sched_migrate_task
 * only where a woken task ran on another CPU than its target. Measured on
 * guest16-import-v6.dat before schema 4: 1 of 1854 wakeup rows and 16 of 1642 preemption
 * rows differed.
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

/*
 * A slice of a run: only the events with from_ns <= timestamp < to_ns (trace clock, as
 * the windows' start_ns), for a look at them in trace-cmd, KernelShark or Perfetto. The
 * whole run is replayed so that comms and the running tasks are right at from_ns; a
 * re-import of a slice starts with tasks it never saw switched in, so its first records
 * are not the run's. The "# schedlens end_ns" line says to_ns when the run went on.
 */
struct sl_export_slice {
	uint64_t from_ns;
	uint64_t to_ns; /* 0: the run's end */
	uint64_t max_lines; /* 0: no limit; past it the export stops with -E2BIG */
};

int sl_export_text_slice(const char *db_path, int64_t run_id, const struct sl_export_slice *slice,
			 FILE *out, struct sl_export_stats *stats);

#endif
