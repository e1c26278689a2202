-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 2: comparisons of a baseline set of runs with a candidate set, and the
-- findings (one per metric and group) each comparison produced. Documented in
-- schema/README.md.

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
		CHECK (verdict IN ('regression', 'improvement', 'change', 'no_change',
			'insufficient_data')),
	explanation TEXT
);
CREATE INDEX findings_by_comparison ON findings (comparison_id);

-- Findings that matter, with the comparison they belong to.
CREATE VIEW flagged_findings AS
SELECT c.id AS comparison_id, c.baseline, c.candidate, f.grp, f.metric, f.verdict,
	f.baseline_value, f.candidate_value, f.rel_change, f.p_adjusted, f.explanation
FROM findings f JOIN comparisons c ON c.id = f.comparison_id
WHERE f.verdict IN ('regression', 'improvement', 'change');
