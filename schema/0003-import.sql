-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 3: what an imported run needs to say about itself (schema/README.md).
--
-- complete: 0 while an import runs and when it stopped at bad input; the rows stored
--   cover the events before the error (import_error says where). Live runs are 1.
-- waker_from_wakeup: the trace had no sched_waking, so wakers came from sched_wakeup's
--   context, which is the target CPU's IPI under TTWU_QUEUE: waker columns may be wrong.
-- import_path / import_format: the file and how it was read ('trace.dat', 'text').
ALTER TABLE runs ADD COLUMN complete INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN waker_from_wakeup INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN import_path TEXT;
ALTER TABLE runs ADD COLUMN import_error TEXT;

-- The task each CPU was running before its first traced switch, and how it left: the
-- slices table starts at that switch, so without this row an export could not replay the
-- first switch faithfully (the task's sleep state feeds the LHP waiter rule).
CREATE TABLE run_cpu_first (
	run_id INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	prev_pid INTEGER NOT NULL,
	prev_prio INTEGER,
	prev_state TEXT NOT NULL,
	prev_comm TEXT NOT NULL,
	PRIMARY KEY (run_id, cpu)
) WITHOUT ROWID;

-- When the sched_waking of each wakeup fired (imports only): the wakeups table keeps the
-- sched_wakeup time, and the LHP rule judges a waker's wakings against its horizon, so an
-- export needs the waking's own time to replay the run exactly.
CREATE TABLE wakings (
	run_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL, -- the wakeup's (wakeups.ts_ns)
	waking_ns INTEGER NOT NULL,
	PRIMARY KEY (run_id, pid, ts_ns)
) WITHOUT ROWID;
