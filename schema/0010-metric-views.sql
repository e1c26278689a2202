-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 10: placement_mix divides as the comparison's metrics do (lib/common/metrics.c).
--
-- Its class shares were of all wakeups, where schedlens diff's prev_*_share and
-- waker_*_share are of the wakeups whose class is known; the same name gave two numbers
-- whenever a class was unknown (no topology, a CPU unseen yet). They are now of the known:
-- prev_*_pct of prev_same + ... + prev_remote, waker_*_pct of waker_same + ... +
-- waker_remote (waker_llc_pct, the waker's LLC, SMT sibling included, is not a metric and
-- takes the waker shares' denominator). The new prev_known and waker_known columns say how
-- many wakeups that is. missed_idle_pct already was missed_idle_rate. No stored row
-- changes: only what the view computes from the windows. lhp_by_group's preempt_pct already
-- is preempt_share and stays.
DROP VIEW placement_mix;

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
