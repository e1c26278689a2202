-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 13: the per-event rows stored as segments, a few thousand rows of one run
-- and one table packed into a blob (lib/store/segment.h), so that storing an event costs a
-- few dozen instructions instead of a B-tree insert. Documented in schema/README.md.
--
-- <table>_seg: one row per segment of sched_slices, wakeups, preemptions or sched_facts.
--   min_ns, max_ns: the span of its rows' time column (start_ns for sched_slices, ts_ns
--   for the others); rows: how many it holds; data: the rows, encoded.
-- The migration then, in C (lib/store/store-segments-fill.c), in its transaction, encodes
-- the rows of the four row tables into segments (their retention chunks follow them),
-- drops the row tables and creates, under the same names and with the same columns,
-- virtual tables of module schedlens_segments that read the segments
-- (lib/store/store-segments.c): the views and the documented SQL keep working wherever the
-- module is registered (schedlens's own connections; the sqlite3 shell after
-- `.load schedlens-sql`).
CREATE TABLE sched_slices_seg (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL,
	min_ns INTEGER NOT NULL,
	max_ns INTEGER NOT NULL,
	rows INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE INDEX sched_slices_seg_run ON sched_slices_seg (run_id, min_ns);

CREATE TABLE wakeups_seg (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL,
	min_ns INTEGER NOT NULL,
	max_ns INTEGER NOT NULL,
	rows INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE INDEX wakeups_seg_run ON wakeups_seg (run_id, min_ns);

CREATE TABLE preemptions_seg (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL,
	min_ns INTEGER NOT NULL,
	max_ns INTEGER NOT NULL,
	rows INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE INDEX preemptions_seg_run ON preemptions_seg (run_id, min_ns);

CREATE TABLE sched_facts_seg (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL,
	min_ns INTEGER NOT NULL,
	max_ns INTEGER NOT NULL,
	rows INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE INDEX sched_facts_seg_run ON sched_facts_seg (run_id, min_ns);
