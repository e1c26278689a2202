-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 6: three outcomes per finding. A metric that is not flagged is either
-- 'equivalent' (its 95% interval lies within the equivalence margin) or 'inconclusive'
-- (neither); 'no_change' stays valid for findings stored before this schema. SQLite
-- cannot change a CHECK constraint in place, so the table is rebuilt (rows kept).
--
-- family: 'primary' (the headline metrics, Holm-adjusted) or 'secondary' (FDR-adjusted);
--   NULL for findings stored before schema 6.
-- df: degrees of freedom of the moderated t (prior + residual); NULL: normal.
-- margin: the equivalence margin, max(relative threshold * |baseline|, floor), display unit.
-- severity: |delta| / margin; flagged findings read in descending severity.
-- runs_needed: inconclusive findings: runs a side likely to resolve it (99: 99 or more).
DROP VIEW flagged_findings;
ALTER TABLE findings RENAME TO findings_v5;
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
INSERT INTO findings (id, comparison_id, metric, grp, polarity, baseline_value,
	candidate_value, delta, rel_change, ci_low, ci_high, p_value, p_adjusted, verdict,
	explanation)
SELECT id, comparison_id, metric, grp, polarity, baseline_value, candidate_value, delta,
	rel_change, ci_low, ci_high, p_value, p_adjusted, verdict, explanation
FROM findings_v5;
DROP TABLE findings_v5;
CREATE INDEX findings_by_comparison ON findings (comparison_id);

-- Findings that matter, with the comparison they belong to.
CREATE VIEW flagged_findings AS
SELECT c.id AS comparison_id, c.baseline, c.candidate, f.grp, f.metric, f.verdict,
	f.baseline_value, f.candidate_value, f.rel_change, f.p_adjusted, f.severity,
	f.explanation
FROM findings f JOIN comparisons c ON c.id = f.comparison_id
WHERE f.verdict IN ('regression', 'improvement', 'change');
