-- SPDX-License-Identifier: GPL-2.0-only
-- schedlens schema 10: placement_mix divides as the comparison's metrics do (lib/metrics.c).
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
SELECT w.run_id, r.kernel_release, r.workload, w.grp,
	SUM(w.wakeups) AS wakeups,
	ROUND(100.0 * SUM(w.prev_same) / NULLIF(SUM(w.prev_same + w.prev_smt + w.prev_llc +
		w.prev_package + w.prev_remote), 0), 2) AS prev_same_pct,
	ROUND(100.0 * SUM(w.prev_smt) / NULLIF(SUM(w.prev_same + w.prev_smt + w.prev_llc +
		w.prev_package + w.prev_remote), 0), 2) AS prev_smt_pct,
	ROUND(100.0 * SUM(w.prev_llc) / NULLIF(SUM(w.prev_same + w.prev_smt + w.prev_llc +
		w.prev_package + w.prev_remote), 0), 2) AS prev_llc_pct,
	ROUND(100.0 * SUM(w.prev_package) / NULLIF(SUM(w.prev_same + w.prev_smt + w.prev_llc +
		w.prev_package + w.prev_remote), 0), 2) AS prev_package_pct,
	ROUND(100.0 * SUM(w.prev_remote) / NULLIF(SUM(w.prev_same + w.prev_smt + w.prev_llc +
		w.prev_package + w.prev_remote), 0), 2) AS prev_remote_pct,
	ROUND(100.0 * SUM(w.waker_same) / NULLIF(SUM(w.waker_same + w.waker_smt + w.waker_llc +
		w.waker_package + w.waker_remote), 0), 2) AS waker_same_pct,
	ROUND(100.0 * SUM(w.waker_smt + w.waker_llc) / NULLIF(SUM(w.waker_same + w.waker_smt +
		w.waker_llc + w.waker_package + w.waker_remote), 0), 2) AS waker_llc_pct,
	SUM(w.missed_idle) AS missed_idle,
	ROUND(100.0 * SUM(w.missed_idle) /
		NULLIF(SUM(w.state_idle + w.state_busy + w.state_claimed), 0), 2)
		AS missed_idle_pct,
	SUM(w.stacked) AS stacked,
	SUM(w.migrations) AS migrations,
	SUM(w.prev_same + w.prev_smt + w.prev_llc + w.prev_package + w.prev_remote) AS prev_known,
	SUM(w.waker_same + w.waker_smt + w.waker_llc + w.waker_package + w.waker_remote)
		AS waker_known
FROM windows w JOIN runs r ON r.id = w.run_id
GROUP BY w.run_id, w.grp;
