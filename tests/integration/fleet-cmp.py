#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""65-fleet-diff.t's side-by-side of a local and a fleet diff (both `diff --json`).

  fleet-cmp.py LOCAL.json FLEET.json METRICS.json GROUP...

Prints the two summaries, "verdicts LOCAL FLEET", "units" (runs or hosts a side, local then
fleet), "missing" (headline findings of the groups the fleet diff lacks), one "metric GROUP
METRIC LOCAL_VERDICT FLEET_VERDICT # values" line per headline finding of the groups, and
"quantile" lines comparing the latency quantiles of all tasks ("off" is the larger relative
difference of the two sides' values).
"""
import json
import sys

loc, fl, mt = (json.load(open(p)) for p in sys.argv[1:4])
groups = sys.argv[4:]
heads = {m["name"] for m in mt["metrics"] if m["headline"]}
print("local:", loc["summary"])
print("fleet:", fl["summary"])
print("verdicts", loc["verdict"], fl["verdict"])
print("units", *(s["units"] for s in (loc["baseline"], loc["candidate"], fl["baseline"],
                                      fl["candidate"])))


def headline(c):
    return {(f["group"], f["metric"]): f for f in c["findings"]
            if f["group"] in groups and f["metric"] in heads}


l, f = headline(loc), headline(fl)
print("missing", " ".join(sorted("%s:%s" % k for k in set(l) - set(f))))
for k in sorted(l):
    g = f.get(k, {"verdict": "-", "baseline": 0, "candidate": 0})
    print("metric", k[0], k[1], l[k]["verdict"], g["verdict"],
          "# local %.4g -> %.4g, fleet %.4g -> %.4g" %
          (l[k]["baseline"] or 0, l[k]["candidate"] or 0, g["baseline"] or 0,
           g["candidate"] or 0))
for m in ("latency_p50", "latency_p99"):
    if ("*", m) in l and ("*", m) in f:
        lv = (l["*", m]["baseline"], l["*", m]["candidate"])
        fv = (f["*", m]["baseline"], f["*", m]["candidate"])
        worst = max(abs(b / a - 1) for a, b in zip(lv, fv))
        print("quantile", m, "local %.1f %.1f fleet %.1f %.1f" % (*lv, *fv), "off %.3f" % worst)
