-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 4: the raw scheduler facts a run's derived rows cannot give back
-- (lib/store/facts.h), so that `schedlens export` replays a run exactly (schema/README.md).
--
-- runs.facts: 1 when the run stored sched_facts (every run stored with per-event rows
--   since schema 4); 0 for older runs and windows-only runs, whose export is approximate.
ALTER TABLE runs ADD COLUMN facts INTEGER NOT NULL DEFAULT 0;

-- One row per fact, in the same retention chunks as the other per-event tables (chunks.tbl
-- = 'sched_facts'). kind is the event type (1 waking, 2 wakeup, 3 wakeup_new, 4 switch,
-- 5 migrate, 6 fork, 7 exit, 8 lost) or 9 comm (a task's comm from here on), 10 running (a
-- task ran without a traced switch). What pid, arg1..arg3 and txt hold depends on kind.
-- seq orders the events of one timestamp as the engine saw them.
CREATE TABLE sched_facts (
	run_id INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	kind INTEGER NOT NULL,
	common_pid INTEGER NOT NULL,
	pid INTEGER,
	arg1 INTEGER,
	arg2 INTEGER,
	arg3 INTEGER,
	txt TEXT
);
