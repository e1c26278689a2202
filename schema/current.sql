-- schedlens schema 13, as the migrations leave an empty file: a new file
-- gets it in one step. Written by `make schema-current`: do not edit.
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
, complete INTEGER NOT NULL DEFAULT 1, waker_from_wakeup INTEGER NOT NULL DEFAULT 0, import_path TEXT, import_error TEXT, facts INTEGER NOT NULL DEFAULT 0, skipped_lines INTEGER NOT NULL DEFAULT 0, params TEXT);
CREATE TABLE tasks (
	run_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	tgid INTEGER,
	comm TEXT NOT NULL,
	grp TEXT NOT NULL,
	first_ns INTEGER,
	PRIMARY KEY (run_id, pid)
) WITHOUT ROWID;
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
, spin_count INTEGER NOT NULL DEFAULT 0, spin_cost_ns INTEGER NOT NULL DEFAULT 0);
CREATE INDEX windows_by_run ON windows (run_id, grp, start_ns);
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
CREATE TABLE relation (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE target_state (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE policy (bit INTEGER PRIMARY KEY, name TEXT NOT NULL);
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
CREATE VIEW preemptions_v AS
SELECT p.run_id, p.ts_ns, p.cpu, p.victim_pid, tv.comm AS victim_comm, tv.grp AS victim_grp,
	p.preemptor_pid, tn.comm AS preemptor_comm, tn.grp AS preemptor_grp,
	CASE p.cause WHEN 0 THEN 'wakeup' ELSE 'tick' END AS cause,
	p.off_ns, p.same_group, p.hub, p.waiters, p.lhp_cost_ns, p.delayed_wakeups, p.censored
FROM preemptions p
LEFT JOIN tasks tv ON tv.run_id = p.run_id AND tv.pid = p.victim_pid
LEFT JOIN tasks tn ON tn.run_id = p.run_id AND tn.pid = p.preemptor_pid;
CREATE VIEW run_summary AS
SELECT r.id AS run_id, h.hostname, r.kernel_release, r.preempt_mode, r.workload, r.source,
	datetime(r.start_wall / 1000000000, 'unixepoch') AS started,
	ROUND((r.end_ns - r.start_ns) / 1e9, 3) AS seconds,
	r.events, r.lost_events, r.has_gaps, r.dropped_rows
FROM runs r LEFT JOIN hosts h ON h.id = r.host_id;
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
CREATE TABLE comparisons (
	id INTEGER PRIMARY KEY,
	created_wall INTEGER NOT NULL,
	baseline TEXT NOT NULL,
	candidate TEXT NOT NULL,
	params TEXT,
	verdict TEXT NOT NULL DEFAULT 'pending',
	summary TEXT
);
CREATE TABLE comparison_runs (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	run_id INTEGER NOT NULL,
	side TEXT NOT NULL CHECK (side IN ('baseline', 'candidate')),
	PRIMARY KEY (comparison_id, run_id)
) WITHOUT ROWID;
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
CREATE TABLE wakings (
	run_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts_ns INTEGER NOT NULL, -- the wakeup's (wakeups.ts_ns)
	waking_ns INTEGER NOT NULL,
	PRIMARY KEY (run_id, pid, ts_ns)
) WITHOUT ROWID;
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
CREATE TABLE findings (
	id INTEGER PRIMARY KEY,
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	metric TEXT NOT NULL,
	grp TEXT NOT NULL,
	polarity TEXT NOT NULL CHECK (polarity IN ('worse_up', 'worse_down', 'neutral')),
	baseline_value REAL,
	candidate_value REAL,
	delta REAL,
	rel_change REAL,
	ci_low REAL,
	ci_high REAL,
	p_value REAL,
	p_adjusted REAL,
	verdict TEXT NOT NULL
		CHECK (verdict IN ('regression', 'improvement', 'change', 'equivalent',
			'inconclusive', 'no_change', 'insufficient_data')),
	explanation TEXT,
	family TEXT CHECK (family IN ('primary', 'secondary')),
	df REAL,
	margin REAL,
	severity REAL,
	runs_needed INTEGER
);
CREATE INDEX findings_by_comparison ON findings (comparison_id);
CREATE VIEW flagged_findings AS
SELECT c.id AS comparison_id, c.baseline, c.candidate, f.grp, f.metric, f.verdict,
	f.baseline_value, f.candidate_value, f.rel_change, f.p_adjusted, f.severity,
	f.explanation
FROM findings f JOIN comparisons c ON c.id = f.comparison_id
WHERE f.verdict IN ('regression', 'improvement', 'change');
CREATE VIEW placement_mix AS
SELECT run_id, kernel_release, workload, grp, wakeups,
	ROUND(100.0 * prev_same / NULLIF(prev_known, 0), 2) AS prev_same_pct,
	ROUND(100.0 * prev_smt / NULLIF(prev_known, 0), 2) AS prev_smt_pct,
	ROUND(100.0 * prev_llc / NULLIF(prev_known, 0), 2) AS prev_llc_pct,
	ROUND(100.0 * prev_package / NULLIF(prev_known, 0), 2) AS prev_package_pct,
	ROUND(100.0 * prev_remote / NULLIF(prev_known, 0), 2) AS prev_remote_pct,
	ROUND(100.0 * waker_same / NULLIF(waker_known, 0), 2) AS waker_same_pct,
	ROUND(100.0 * waker_llc / NULLIF(waker_known, 0), 2) AS waker_llc_pct,
	missed_idle,
	ROUND(100.0 * missed_idle / NULLIF(known_state, 0), 2) AS missed_idle_pct,
	stacked, migrations, prev_known, waker_known
FROM (SELECT w.run_id, r.kernel_release, r.workload, w.grp,
	SUM(w.wakeups) AS wakeups,
	SUM(w.prev_same) AS prev_same, SUM(w.prev_smt) AS prev_smt, SUM(w.prev_llc) AS prev_llc,
	SUM(w.prev_package) AS prev_package, SUM(w.prev_remote) AS prev_remote,
	SUM(w.prev_same + w.prev_smt + w.prev_llc + w.prev_package + w.prev_remote) AS prev_known,
	SUM(w.waker_same) AS waker_same, SUM(w.waker_smt + w.waker_llc) AS waker_llc,
	SUM(w.waker_same + w.waker_smt + w.waker_llc + w.waker_package + w.waker_remote)
		AS waker_known,
	SUM(w.missed_idle) AS missed_idle,
	SUM(w.state_idle + w.state_busy + w.state_claimed) AS known_state,
	SUM(w.stacked) AS stacked,
	SUM(w.migrations) AS migrations
	FROM windows w JOIN runs r ON r.id = w.run_id
	GROUP BY w.run_id, w.grp);
CREATE TABLE window_bins (
	run_id INTEGER NOT NULL,
	grp TEXT NOT NULL,
	bin_ns INTEGER NOT NULL,
	windows INTEGER NOT NULL,
	first_ns INTEGER NOT NULL,
	last_ns INTEGER NOT NULL,
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
	spin_count INTEGER NOT NULL,
	spin_cost_ns INTEGER NOT NULL,
	lat_count INTEGER NOT NULL,
	lat_p50_ns INTEGER,
	lat_p99_ns INTEGER,
	lat_hist BLOB NOT NULL,
	PRIMARY KEY (run_id, grp, bin_ns)
) WITHOUT ROWID;
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
CREATE VIRTUAL TABLE sched_slices USING schedlens_segments(sched_slices);
CREATE VIRTUAL TABLE wakeups USING schedlens_segments(wakeups);
CREATE VIRTUAL TABLE preemptions USING schedlens_segments(preemptions);
CREATE VIRTUAL TABLE sched_facts USING schedlens_segments(sched_facts);
INSERT INTO relation VALUES(0,'same');
INSERT INTO relation VALUES(1,'smt');
INSERT INTO relation VALUES(2,'llc');
INSERT INTO relation VALUES(3,'package');
INSERT INTO relation VALUES(4,'remote');
INSERT INTO relation VALUES(5,'unknown');
INSERT INTO target_state VALUES(0,'idle');
INSERT INTO target_state VALUES(1,'busy');
INSERT INTO target_state VALUES(2,'claimed');
INSERT INTO target_state VALUES(3,'unknown');
INSERT INTO policy VALUES(0,'prev_idle');
INSERT INTO policy VALUES(1,'affine');
INSERT INTO policy VALUES(2,'llc_scan');
INSERT INTO policy VALUES(3,'buddy');
INSERT INTO policy VALUES(4,'smt_first');
