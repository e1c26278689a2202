-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 5: wakeups landed per CPU and minute, for the dashboard's topology
-- heatmap (/api/v1/runs/{id}/cpus). Written for every run, whatever its event-rows mode,
-- so the heatmap works for daemon runs that keep no per-wakeup rows, and kept as long as
-- the windows (chunks.tbl = 'cpu_counts'). At most one row per CPU that got wakeups per
-- minute: small enough for an index.
--
-- start_ns, dur_ns: the minute, on the clock and origin of windows.start_ns (the run's
--   first event + k * 60 s); dur_ns is 60 s but for the run's last minute, which ends at
--   the run's end.
-- cpu: the target CPU (wakeups.target_cpu).
-- wakeups: wakeups (sched_wakeup and sched_wakeup_new) that landed on cpu in the minute.
-- busy, idle: of which the target was busy or claimed (target_state 1, 2), idle (0).
-- missed_idle: of which wakeups.missed_idle = 1.
CREATE TABLE cpu_counts (
	run_id INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	dur_ns INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	wakeups INTEGER NOT NULL,
	busy INTEGER NOT NULL,
	idle INTEGER NOT NULL,
	missed_idle INTEGER NOT NULL
);
CREATE INDEX cpu_counts_by_run ON cpu_counts (run_id, start_ns);
