#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The analysis half of tests/lab/calibrate: every comparison that can be formed from the
recorded lab runs, through `schedlens diff --json --no-store`, and the share of each verdict.

  calibrate-analyse.py SCHEDLENS DIR

DIR holds lab.db and runs.tsv ("config<TAB>run id" per line). Prints two tables (A/A
false-regression rates and power against runs a side), writes them to DIR/calibration.json
and exits 1 when a target is missed: at most 1% of A/A comparisons with a regression (at
these sizes: none), 6.1 vs 6.12 pgbench with 2 runs a side flagging a postgres preemption
and a placement-vs-waker metric in most comparisons, and WA_* off never `equivalent` on
hackbench's placement-vs-waker metric with 2 runs against 1.
"""
import itertools
import json
import sqlite3
import subprocess
import sys

LABELS = {"pg61": "pgbench", "pg612": "pgbench", "hb": "hackbench", "nowa": "hackbench",
          "nwp": "hackbench"}

# Known effects: (name, baseline config, candidate config, [(group, metric), ...]); an
# effect counts as found in a comparison when every listed question is answered by one of
# its metrics being flagged (the list's inner tuples are alternatives). Lock-holder
# preemption answers the preemption question too: it is what 6.12 (EEVDF) changed for
# postgres in every lab run (LHP cost 0.00-0.02 vs 4.0-5.0 ms/s), while its preemption
# share moved in some runs only.
EFFECTS = [
    ("6.1 vs 6.12 pgbench", "pg61", "pg612", [
        ("postgres preemption", "postgres",
         ("preempt_share", "preempt_wakeup_rate", "lhp_cost", "lhp_rate")),
        ("postgres placement vs waker", "postgres",
         ("waker_same_share", "policy_affine_share")),
    ]),
    ("WA_IDLE/WA_WEIGHT/WA_BIAS off, hackbench", "hb", "nowa", [
        ("hackbench placement vs waker", "hackbench",
         ("waker_same_share", "policy_affine_share")),
    ]),
    ("NO_WAKEUP_PREEMPTION, hackbench", "hb", "nwp", [
        ("hackbench wakeup preemption", "hackbench",
         ("preempt_wakeup_rate", "preempt_share")),
    ]),
]
FLAGGED = ("regression", "improvement", "change")


def diff(sl, db, label, base, cand, group=None):
    """One comparison (of group alone with group): (exit status, findings by (group,
    metric))."""
    p = subprocess.run([sl, "diff", "--db", db, "-l", label, "--no-store", "--json",
                        "--baseline-runs", ",".join(map(str, base)),
                        "--candidate-runs", ",".join(map(str, cand))] +
                       (["-g", group] if group else []),
                       capture_output=True, text=True)
    if p.returncode not in (0, 1, 3):
        sys.exit(f"schedlens diff {base} vs {cand} failed ({p.returncode}): {p.stderr}")
    d = json.loads(p.stdout)
    return p.returncode, {(f["group"], f["metric"]): f for f in d["findings"]}


def unconfirmed(f):
    """An unconfirmed change (docs/statistics.md): a headline metric past its margin whose
    interval excludes 0, inconclusive after the family's adjustment. schedlens decides it
    (the finding's "unconfirmed" field)."""
    return f["unconfirmed"] is True


def aa_pairs(ids, k):
    """Disjoint (baseline, candidate) sets of k runs each, every unordered split once."""
    out = []
    for base in itertools.combinations(ids, k):
        rest = [i for i in ids if i not in base]
        for cand in itertools.combinations(rest, k):
            if (cand, base) not in out:
                out.append((base, cand))
    return out


def pct(x, n):
    return f"{100.0 * x / n:5.1f}%" if n else "    -"


def main():
    sl, d = sys.argv[1], sys.argv[2]
    db = f"{d}/lab.db"
    runs = {}
    for line in open(f"{d}/runs.tsv"):
        cfg, rid = line.split()
        runs.setdefault(cfg, []).append(int(rid))
    result = {"aa": [], "power": []}
    missed = []

    # Each run's own values of the metrics the known changes move, from its windows
    # (the same sums the comparison pools): how far replicates and configurations differ.
    con = sqlite3.connect(db)
    print("Per-run values (windows pooled over the run)")
    print(f"{'configuration':<14} {'run':>4} {'group':<10} {'waker_same':>10} "
          f"{'preempt_share':>13} {'preempt_wakeup/s':>16} {'lhp_cost ms/s':>13}")
    for cfg, ids in runs.items():
        grp = "postgres" if LABELS[cfg] == "pgbench" else "hackbench"
        for rid in ids:
            ws, ps, pw, lc = con.execute(
                "SELECT 100.0 * sum(waker_same) / sum(waker_same + waker_smt + waker_llc + "
                "waker_package + waker_remote), 100.0 * sum(preempt_wakeup + preempt_tick) / "
                "sum(switches), sum(preempt_wakeup) * 1e9 / sum(dur_ns), "
                "sum(lhp_cost_ns) / 1e6 * 1e9 / sum(dur_ns) FROM windows "
                "WHERE run_id = ? AND grp = ?", (rid, grp)).fetchone()
            print(f"{cfg:<14} {rid:>4} {grp:<10} {ws or 0:>9.1f}% {ps or 0:>12.1f}% "
                  f"{pw or 0:>16.1f} {lc or 0:>13.2f}")
    con.close()
    print()

    print("A/A: disjoint sets of runs of one configuration (a regression flagged is false)")
    print(f"{'configuration':<8} {'runs a side':>11} {'pairs':>5} {'regression':>10} "
          f"{'any flag':>9} {'inconclusive':>12} {'equivalent':>10} {'unconfirmed':>11}")
    for cfg, ids in runs.items():
        for k in (1, 2):
            pairs = aa_pairs(ids, k)
            if not pairs:
                continue
            reg = anyf = inc = eq = unc = 0
            for base, cand in pairs:
                rc, fs = diff(sl, db, LABELS[cfg], base, cand)
                verdicts = [f["verdict"] for f in fs.values()]
                unc += any(unconfirmed(f) for f in fs.values())
                reg += rc == 1
                anyf += any(v in FLAGGED for v in verdicts)
                inc += rc == 3
                eq += rc == 0 and not any(v in FLAGGED for v in verdicts)
            n = len(pairs)
            print(f"{cfg:<8} {k:>11} {n:>5} {pct(reg, n):>10} {pct(anyf, n):>9} "
                  f"{pct(inc, n):>12} {pct(eq, n):>10} {pct(unc, n):>11}")
            result["aa"].append({"config": cfg, "runs_a_side": k, "pairs": n,
                                 "regression": reg, "any_flag": anyf, "inconclusive": inc,
                                 "conclusive_no_change": eq, "unconfirmed": unc})
            if reg > 0.01 * n:
                missed.append(f"A/A {cfg} {k} a side: {reg} of {n} flagged a regression")

    print()
    print("Power: known changes, every combination of runs (flagged / inconclusive / "
          "equivalent of the question's best metric, and of the inconclusive ones those "
          "listed as an unconfirmed change), as `schedlens diff` compares them "
          "and with -g naming the question's group (its primary family then that group's "
          "five headline metrics)")
    print(f"{'change':<42} {'question':<30} {'-g':<10} {'runs':>5} {'pairs':>5} "
          f"{'flagged':>8} {'inconcl.':>8} {'equiv.':>7} {'unconf.':>7}")
    for (name, bcfg, ccfg, questions), named in itertools.product(EFFECTS, (False, True)):
        if bcfg not in runs or ccfg not in runs:
            continue
        group = questions[0][1] if named else None
        for kb, kc in ((1, 1), (2, 1), (2, 2), (3, 3)):
            combos = [(b, c) for b in itertools.combinations(runs[bcfg], kb)
                      for c in itertools.combinations(runs[ccfg], kc)]
            if not combos:
                continue
            tally = {q[0]: [0, 0, 0, 0] for q in questions}
            both = 0
            for base, cand in combos:
                _, fs = diff(sl, db, LABELS[bcfg], base, cand, group)
                found = 0
                for qname, grp, metrics in questions:
                    vs = [fs[(grp, m)]["verdict"] for m in metrics if (grp, m) in fs]
                    if any(v in FLAGGED for v in vs):
                        tally[qname][0] += 1
                        found += 1
                    elif "inconclusive" in vs:
                        tally[qname][1] += 1
                        tally[qname][3] += any(unconfirmed(fs[(grp, m)]) for m in metrics
                                               if (grp, m) in fs)
                    elif "equivalent" in vs:
                        tally[qname][2] += 1
                both += found == len(questions)
            n = len(combos)
            for qname, (fl, inc, eq, unc) in tally.items():
                print(f"{name:<42} {qname:<30} {group or '-':<10} {kb}v{kc:<3} {n:>5} "
                      f"{pct(fl, n):>8} {pct(inc, n):>8} {pct(eq, n):>7} {pct(unc, n):>7}")
                result["power"].append({"change": name, "question": qname,
                                        "group": group, "runs": f"{kb}v{kc}",
                                        "combinations": n,
                                        "flagged": fl, "inconclusive": inc,
                                        "equivalent": eq, "unconfirmed": unc})
                if bcfg == "hb" and ccfg == "nowa" and (kb, kc) == (2, 1) and eq:
                    missed.append(f"{name}: {qname} equivalent in {eq} of {n} at 2v1")
            if bcfg == "pg61" and (kb, kc) == (2, 2) and both * 2 <= n:
                missed.append(f"{name} 2v2{' -g ' + group if group else ''}: both "
                              f"questions flagged in {both} of {n} only")

    json.dump(result, open(f"{d}/calibration.json", "w"), indent=1)
    print()
    if missed:
        print("targets missed:\n  " + "\n  ".join(missed))
        return 1
    print("every target met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
