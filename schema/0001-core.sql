-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 1: hosts, runs, tasks, the per-event tables, windows, retention chunks,
-- lookup tables and the views for the common questions. Documented in schema/README.md.
--
-- The per-event tables (sched_slices, wakeups, preemptions) are plain rowid tables with no
-- secondary index: inserts stay at SQLite's append speed. Retention deletes them by rowid
-- range, one chunk at a time, using the `chunks` table (see lib/store/store-retention.c).
-- Unknown values are NULL. Times: *_ns on the run's trace clock, *_wall in Unix ns.

CREATE TABLE hosts (
	id INTEGER PRIMARY KEY,
	hostname TEXT NOT NULL,
	machine_id TEXT NOT NULL DEFAULT '',
	topo_hash TEXT NOT NULL,
	topo_json TEXT,
	nr_cpus INTEGER NOT NULL,
	first_seen_wall INTEGER NOT NULL,
	last_seen_wall INTEGER NOT NULL,
	UNIQUE (hostname, machine_id, topo_hash)
);

CREATE TABLE cpus (
	host_id INTEGER NOT NULL REFERENCES hosts(id),
	cpu INTEGER NOT NULL,
	online INTEGER NOT NULL,
	core INTEGER,
	llc INTEGER,
	package INTEGER,
	node INTEGER,
	PRIMARY KEY (host_id, cpu)
) WITHOUT ROWID;

CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	host_id INTEGER NOT NULL REFERENCES hosts(id),
	kernel_release TEXT NOT NULL,
	kernel_version TEXT,
	cmdline TEXT,
	boot_id TEXT,
	preempt_mode TEXT,
	sched_features TEXT,
	sched_sysctls TEXT,
	workload TEXT NOT NULL DEFAULT '',
	source TEXT NOT NULL DEFAULT 'live',
	trace_clock TEXT,
	nr_cpus INTEGER,
	recorder_version TEXT NOT NULL,
	start_wall INTEGER NOT NULL,
	end_wall INTEGER,
	start_ns INTEGER,
	end_ns INTEGER,
	events INTEGER NOT NULL DEFAULT 0,
	lost_events INTEGER NOT NULL DEFAULT 0,
	has_gaps INTEGER NOT NULL DEFAULT 0,
	dropped_rows INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE tasks (
	run_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	tgid INTEGER,
	comm TEXT NOT NULL,
	grp TEXT NOT NULL,
	first_ns INTEGER,
	PRIMARY KEY (run_id, pid)
) WITHOUT ROWID;

CREATE TABLE sched_slices (
	run_id INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	start_ns INTEGER NOT NULL,
	dur_ns INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	prio INTEGER,
	end_state TEXT
);

CREATE TABLE wakeups (
	run_id INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	kind INTEGER NOT NULL,
	waker_pid INTEGER,
	waker_cpu INTEGER,
	prev_cpu INTEGER,
	target_cpu INTEGER NOT NULL,
	run_cpu INTEGER,
	latency_ns INTEGER,
	class_prev INTEGER NOT NULL,
	class_waker INTEGER NOT NULL,
	target_state INTEGER NOT NULL,
	llc_idle INTEGER NOT NULL,
	missed_idle INTEGER NOT NULL,
	missed_smt INTEGER NOT NULL,
	preempted_pid INTEGER,
	policy_known INTEGER NOT NULL,
	policy_agree INTEGER NOT NULL
);

CREATE TABLE preemptions (
	run_id INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	victim_pid INTEGER NOT NULL,
	preemptor_pid INTEGER NOT NULL,
	cause INTEGER NOT NULL,
	off_ns INTEGER,
	same_group INTEGER NOT NULL,
	hub INTEGER NOT NULL,
	waiters INTEGER NOT NULL,
	lhp_cost_ns INTEGER NOT NULL,
	delayed_wakeups INTEGER NOT NULL,
	censored INTEGER NOT NULL
);

CREATE TABLE windows (
	run_id INTEGER NOT NULL,
	grp TEXT NOT NULL,
	start_ns INTEGER NOT NULL,
	dur_ns INTEGER NOT NULL,
	events INTEGER NOT NULL,
	wakeups INTEGER NOT NULL,
	wakeups_new INTEGER NOT NULL,
	prev_same INTEGER NOT NULL,
	prev_smt INTEGER NOT NULL,
	prev_llc INTEGER NOT NULL,
	prev_package INTEGER NOT NULL,
	prev_remote INTEGER NOT NULL,
	prev_unknown INTEGER NOT NULL,
	waker_same INTEGER NOT NULL,
	waker_smt INTEGER NOT NULL,
	waker_llc INTEGER NOT NULL,
	waker_package INTEGER NOT NULL,
	waker_remote INTEGER NOT NULL,
	waker_unknown INTEGER NOT NULL,
	state_idle INTEGER NOT NULL,
	state_busy INTEGER NOT NULL,
	state_claimed INTEGER NOT NULL,
	state_unknown INTEGER NOT NULL,
	missed_idle INTEGER NOT NULL,
	missed_smt INTEGER NOT NULL,
	stacked INTEGER NOT NULL,
	migrations INTEGER NOT NULL,
	switches INTEGER NOT NULL,
	preempt_wakeup INTEGER NOT NULL,
	preempt_tick INTEGER NOT NULL,
	preempt_same_group INTEGER NOT NULL,
	lhp_count INTEGER NOT NULL,
	lhp_cost_ns INTEGER NOT NULL,
	hub_preemptions INTEGER NOT NULL,
	lost_events INTEGER NOT NULL,
	policy_known INTEGER NOT NULL,
	pol_prev_idle INTEGER NOT NULL,
	pol_affine INTEGER NOT NULL,
	pol_llc_scan INTEGER NOT NULL,
	pol_buddy INTEGER NOT NULL,
	pol_smt_first INTEGER NOT NULL,
	lat_count INTEGER NOT NULL,
	lat_p50_ns INTEGER,
	lat_p99_ns INTEGER,
	lat_hist BLOB NOT NULL
);
-- Windows are few (one per second per group) and read by run: an index is affordable.
CREATE INDEX windows_by_run ON windows (run_id, grp, start_ns);

-- One row per retention chunk: a contiguous rowid range of one table, written in the same
-- transaction as its rows. closed_wall is NULL while the writer still appends to it.
CREATE TABLE chunks (
	id INTEGER PRIMARY KEY,
	tbl TEXT NOT NULL,
	first_rowid INTEGER NOT NULL,
	last_rowid INTEGER NOT NULL,
	rows INTEGER NOT NULL,
	min_ns INTEGER,
	max_ns INTEGER,
	opened_wall INTEGER NOT NULL,
	closed_wall INTEGER
);

-- Lookup tables for the small integer codes.
CREATE TABLE relation (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO relation VALUES (0, 'same'), (1, 'smt'), (2, 'llc'), (3, 'package'),
	(4, 'remote'), (5, 'unknown');
CREATE TABLE target_state (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO target_state VALUES (0, 'idle'), (1, 'busy'), (2, 'claimed'), (3, 'unknown');
CREATE TABLE policy (bit INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO policy VALUES (0, 'prev_idle'), (1, 'affine'), (2, 'llc_scan'), (3, 'buddy'),
	(4, 'smt_first');

-- Wakeups with names instead of codes, and the wakee's comm and group.
CREATE VIEW wakeups_v AS
SELECT w.run_id, w.ts_ns, w.pid, t.comm, t.grp,
	CASE w.kind WHEN 1 THEN 'new' ELSE 'wakeup' END AS kind,
	w.waker_pid, w.waker_cpu, w.prev_cpu, w.target_cpu, w.run_cpu, w.latency_ns,
	rp.name AS class_prev, rw.name AS class_waker, ts.name AS target_state,
	w.llc_idle, w.missed_idle, w.missed_smt, w.preempted_pid
FROM wakeups w
LEFT JOIN tasks t ON t.run_id = w.run_id AND t.pid = w.pid
LEFT JOIN relation rp ON rp.id = w.class_prev
LEFT JOIN relation rw ON rw.id = w.class_waker
LEFT JOIN target_state ts ON ts.id = w.target_state;

-- Preemptions with the victim's and preemptor's comm and group.
CREATE VIEW preemptions_v AS
SELECT p.run_id, p.ts_ns, p.cpu, p.victim_pid, tv.comm AS victim_comm, tv.grp AS victim_grp,
	p.preemptor_pid, tn.comm AS preemptor_comm, tn.grp AS preemptor_grp,
	CASE p.cause WHEN 0 THEN 'wakeup' ELSE 'tick' END AS cause,
	p.off_ns, p.same_group, p.hub, p.waiters, p.lhp_cost_ns, p.delayed_wakeups, p.censored
FROM preemptions p
LEFT JOIN tasks tv ON tv.run_id = p.run_id AND tv.pid = p.victim_pid
LEFT JOIN tasks tn ON tn.run_id = p.run_id AND tn.pid = p.preemptor_pid;

-- Runs with their host and totals.
CREATE VIEW run_summary AS
SELECT r.id AS run_id, h.hostname, r.kernel_release, r.preempt_mode, r.workload, r.source,
	datetime(r.start_wall / 1000000000, 'unixepoch') AS started,
	ROUND((r.end_ns - r.start_ns) / 1e9, 3) AS seconds,
	r.events, r.lost_events, r.has_gaps, r.dropped_rows
FROM runs r LEFT JOIN hosts h ON h.id = r.host_id;

-- Placement mix per run and group, from the windows (so it outlives the wakeup rows).
-- Percentages are of all wakeups; missed_idle_pct is of wakeups whose target state was known.
CREATE VIEW placement_mix AS
SELECT w.run_id, r.kernel_release, r.workload, w.grp,
	SUM(w.wakeups) AS wakeups,
	ROUND(100.0 * SUM(w.prev_same) / NULLIF(SUM(w.wakeups), 0), 2) AS prev_same_pct,
	ROUND(100.0 * SUM(w.prev_smt) / NULLIF(SUM(w.wakeups), 0), 2) AS prev_smt_pct,
	ROUND(100.0 * SUM(w.prev_llc) / NULLIF(SUM(w.wakeups), 0), 2) AS prev_llc_pct,
	ROUND(100.0 * SUM(w.prev_package) / NULLIF(SUM(w.wakeups), 0), 2) AS prev_package_pct,
	ROUND(100.0 * SUM(w.prev_remote) / NULLIF(SUM(w.wakeups), 0), 2) AS prev_remote_pct,
	ROUND(100.0 * SUM(w.waker_same) / NULLIF(SUM(w.wakeups), 0), 2) AS waker_same_pct,
	ROUND(100.0 * SUM(w.waker_smt + w.waker_llc) / NULLIF(SUM(w.wakeups), 0), 2)
		AS waker_llc_pct,
	SUM(w.missed_idle) AS missed_idle,
	ROUND(100.0 * SUM(w.missed_idle) /
		NULLIF(SUM(w.state_idle + w.state_busy + w.state_claimed), 0), 2)
		AS missed_idle_pct,
	SUM(w.stacked) AS stacked,
	SUM(w.migrations) AS migrations
FROM windows w JOIN runs r ON r.id = w.run_id
GROUP BY w.run_id, w.grp;

-- Preemption and lock-holder preemption per run and group, from the windows.
CREATE VIEW lhp_by_group AS
SELECT w.run_id, r.kernel_release, r.workload, w.grp,
	SUM(w.switches) AS switches,
	SUM(w.preempt_wakeup + w.preempt_tick) AS preemptions,
	ROUND(100.0 * SUM(w.preempt_wakeup + w.preempt_tick) / NULLIF(SUM(w.switches), 0), 2)
		AS preempt_pct,
	SUM(w.preempt_same_group) AS same_group,
	SUM(w.lhp_count) AS lhp,
	ROUND(SUM(w.lhp_cost_ns) / 1e6, 3) AS lhp_cost_ms,
	SUM(w.hub_preemptions) AS hub_preemptions
FROM windows w JOIN runs r ON r.id = w.run_id
GROUP BY w.run_id, w.grp;
