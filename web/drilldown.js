// SPDX-License-Identifier: GPL-2.0-only
// Drill-down from a finding to the events behind it, for the baseline's and the candidate's
// runs of the finding's group: placement and latency metrics show the worst wakeups
// (/wakeups), preemption and LHP metrics the costliest LHP events with their waiters (/lhp).
// Each table exports exactly its rows as CSV or JSON (built here, no second request); with a
// time range the events are the range's and each run offers its trace slice as ftrace text.
'use strict';
(function (SL) {
  const h = SL.h;
  const SIDES = ['baseline', 'candidate'];
  const LIMIT = 20;
  const NO_ROWS = 'this run kept no per-event rows (recorded --windows-only or pruned by retention)';

  // preemption and LHP metrics are explained by LHP events, the rest by wakeups
  SL.drillKind = (metric) => (/preempt|lhp/.test(metric) ? 'lhp' : 'wakeups');
  // missed-idle and missed-SMT findings: the wakeups that passed an idle CPU over, not
  // merely the slowest (which may have found every CPU busy)
  SL.drillOrder = (metric) => (/^missed_(idle|smt)/.test(metric) ? 'missed' : 'latency');

  // The trace slice of a run's range (trace-clock ns) as ftrace text. A plain link for the
  // browser to save; when the daemon wants a token (never put in a URL) the click fetches
  // it with the header and saves the answer instead.
  function traceLink(run, q) {
    const url = '/api/v1/runs/' + run.id + '/trace?' + new URLSearchParams(q);
    const name = `schedlens-run${run.id}-${q.from || 'start'}-${q.to || 'end'}.txt`;
    return h('a', { href: url, download: name, class: 'trace-slice', 'data-run': run.id, onclick: async (e) => {
      const t = SL.authToken();
      if (!t) return;
      e.preventDefault();
      const res = await fetch(url, { headers: { Authorization: 'Bearer ' + t } });
      if (res.ok) SL.download(name, 'text/plain', await res.text());
    }, title: 'ftrace text for trace-cmd, KernelShark or Perfetto; at most 200,000 lines (narrow the range past that)' },
    `trace slice of #${run.id} (ftrace text)`);
  }

  // a table of rows under its export buttons; cols: [[key, heading, format]]
  function table(cls, name, cols, rows) {
    return h('div', { class: 'drill-table' },
      h('p', { class: 'drill-tools' }, `${rows.length} row${rows.length === 1 ? '' : 's'} `, SL.exportButtons(name, () => ({ cols: cols.map((c) => c[0]), rows }))),
      SL.scroll(h('table', { class: 'drill ' + cls },
        h('thead', {}, h('tr', {}, cols.map((c) => h('th', { scope: 'col' }, c[1])))),
        h('tbody', {}, rows.map((r) => h('tr', {}, cols.map(([k, , f]) => h('td', { class: typeof r[k] === 'number' ? 'num' : '' }, f ? f(r[k], r) : r[k] === null ? '–' : String(r[k]))))))), name));
  }

  const secsFrom = (origin) => (ns) => SL.dur(Math.max(0, (ns - origin) / 1e9));
  const usecOrDash = (v) => (v === null || v === undefined ? '–' : SL.usec(v));
  const yesNo = (v) => (v ? 'yes' : 'no');
  // seconds from the run's start to the µs: events a few µs apart must read apart
  const inRun = (v) => SL.num(v, 6) + ' s';

  // One side's worst wakeups: each run's LIMIT worst, merged, the LIMIT worst of those
  async function wakeupSide(side, runs, group, order, range, signal) {
    const got = await Promise.all(runs.map(async (r) => {
      const origin = await SL.runOrigin(r, signal);
      const d = await SL.api(`runs/${r.id}/wakeups`, { group, order, limit: LIMIT, ...SL.rangeQuery(range, origin) }, signal);
      return { run: r, origin, d };
    }));
    const kept = got.filter((g) => g.d.per_event !== false);
    const rows = kept.flatMap((g) => (g.d.wakeups || []).map((w) => ({
      run: g.run.id, t_s: +((w.ts_ns - g.origin) / 1e9).toFixed(6), ts_ns: w.ts_ns, wall_ns: w.wall_ns,
      cpu: w.target_cpu, run_cpu: w.run_cpu, pid: w.pid, comm: w.comm, target_state: w.target_state,
      llc_idle: w.llc_idle, latency_ns: w.latency_ns, class_prev: w.class_prev, class_waker: w.class_waker,
      missed_idle: w.missed_idle, missed_smt: w.missed_smt })));
    rows.sort((a, b) => (b.latency_ns || 0) - (a.latency_ns || 0) || a.ts_ns - b.ts_ns);
    const shown = rows.slice(0, LIMIT);
    const cols = [['run', 'Run', (v) => '#' + v], ['t_s', 'Time in run', inRun], ['ts_ns', 'Trace time (ns)'],
      ['wall_ns', 'Wall time', (v) => new Date(v / 1e6).toISOString()], ['cpu', 'CPU'], ['run_cpu', 'Ran on'],
      ['pid', 'pid'], ['comm', 'comm'], ['target_state', 'Target state'], ['llc_idle', 'Idle in LLC'],
      ['latency_ns', 'Latency', usecOrDash], ['class_prev', 'class_prev'], ['class_waker', 'class_waker'],
      ['missed_idle', 'Missed idle', yesNo], ['missed_smt', 'Missed SMT', yesNo]];
    return [
      got.filter((g) => g.d.per_event === false).map((g) => h('p', { class: 'no-events', 'data-run': g.run.id }, `#${g.run.id}: ${NO_ROWS}.`)),
      kept.length ? (shown.length ? table('wakeups', `${side}-wakeups-${group}-${order}`, cols, shown)
        : SL.empty(`No ${order === 'missed' ? 'wakeup that missed an idle CPU' : 'wakeup'} of ${group} ${SL.hasRange(range) ? 'in this range' : 'in these runs'}`)) : null,
      runLinks(runs, range, 'topology', 'heatmap', got),
    ];
  }

  // One side's costliest LHP events. /lhp has no per_event flag, so a run with no events is
  // asked (one row of /wakeups) whether it kept any rows at all.
  async function lhpSide(side, runs, range, signal) {
    const got = await Promise.all(runs.map(async (r) => {
      const origin = await SL.runOrigin(r, signal);
      const q = SL.rangeQuery(range, origin);
      const [d, w] = await Promise.all([SL.api(`runs/${r.id}/lhp`, { limit: LIMIT, ...q }, signal),
        SL.api(`runs/${r.id}/lhp-waiters`, { limit: LIMIT, ...q }, signal)]);
      const none = !(d.largest || []).length &&
        (await SL.api(`runs/${r.id}/wakeups`, { limit: 1, ...q }, signal)).per_event === false;
      // the waiters each event's holder woke on running again, by event
      const by = new Map();
      for (const x of w.waiters || []) {
        const k = x.event_ts_ns + ':' + x.victim_pid;
        if (!by.has(k)) by.set(k, []);
        by.get(k).push(x);
      }
      return { run: r, origin, d, none, by };
    }));
    const kept = got.filter((g) => !g.none);
    const rows = kept.flatMap((g) => (g.d.largest || []).map((e) => ({
      run: g.run.id, t_s: +((e.ts_ns - g.origin) / 1e9).toFixed(6), ts_ns: e.ts_ns, cpu: e.cpu,
      victim_pid: e.victim_pid, victim_comm: e.victim_comm, preemptor_pid: e.preemptor_pid, preemptor_comm: e.preemptor_comm,
      cause: e.cause, off_ns: e.off_ns, waiters: e.waiters, lhp_cost_ns: e.lhp_cost_ns,
      // "comm pid +µs after the holder ran again", one per direct waiter
      woken: (g.by.get(e.ts_ns + ':' + e.victim_pid) || []).map((x) =>
        `${x.comm} ${x.pid} +${SL.usec(x.ts_ns - e.ts_ns - (e.off_ns || 0))}`).join('; ') })));
    rows.sort((a, b) => (b.lhp_cost_ns || 0) - (a.lhp_cost_ns || 0) || a.ts_ns - b.ts_ns);
    const shown = rows.slice(0, LIMIT);
    const cols = [['run', 'Run', (v) => '#' + v], ['t_s', 'Time in run', inRun], ['ts_ns', 'Trace time (ns)'], ['cpu', 'CPU'],
      ['victim_comm', 'Preempted holder', (v, r) => `${v} (${r.victim_pid})`], ['preemptor_comm', 'Preempted by', (v, r) => `${v} (${r.preemptor_pid})`],
      ['cause', 'Cause'], ['off_ns', 'Off CPU', usecOrDash], ['waiters', 'Waiters'], ['lhp_cost_ns', 'Waiters\' lost time', usecOrDash],
      ['woken', 'Waiters it woke on running again', (v) => (v ? h('span', { class: 'waiters' }, v) : '–')]];
    return [
      got.filter((g) => g.none).map((g) => h('p', { class: 'no-events', 'data-run': g.run.id }, `#${g.run.id}: ${NO_ROWS}.`)),
      kept.length ? (shown.length ? table('lhp-events', `${side}-lhp-events`, cols, shown)
        : SL.empty(`No lock-holder preemption with waiters ${SL.hasRange(range) ? 'in this range' : 'in these runs'}`)) : null,
      runLinks(runs, range, 'lhp', 'LHP view', got),
    ];
  }

  // per run: the view that shows it (for the range) and, with a range, its trace slice
  function runLinks(runs, range, view, text, got) {
    return h('p', { class: 'drill-links' }, runs.map((r, i) => {
      const origin = got.find((g) => g.run.id === r.id).origin;
      return [i ? ' · ' : '', h('a', { href: SL.link(view, { run: r.id, ...SL.rangeParams(range) }) }, `#${r.id} ${text}`),
        SL.hasRange(range) ? [' ', traceLink(r, SL.rangeQuery(range, origin))] : null];
    }));
  }

  // Placement findings (not latency, preemption or LHP) also show where each side's wakeups
  // landed: /cpus of every run of a side summed per CPU, as a share of the side's wakeups
  // (runs of different lengths weigh by their wakeups) or, for missed-idle and missed-SMT,
  // each CPU's missed-idle share of its known-state wakeups; and the candidate minus the
  // baseline. Per-CPU counts are kept for all tasks, not per group: the caption says so.
  SL.isPlacement = (metric) => SL.drillKind(metric) === 'wakeups' && !/^latency/.test(metric);
  async function sideCpus(runs, range, signal) {
    const got = await Promise.all(runs.map(async (r) => {
      const origin = await SL.runOrigin(r, signal);
      return SL.api(`runs/${r.id}/cpus`, SL.rangeQuery(range, origin), signal);
    }));
    const by = new Map();
    let total = 0, minute = false;
    for (const d of got) {
      total += d.wakeups || 0;
      minute = minute || d.resolution === 'minute';
      for (const c of d.cpus || []) {
        const a = by.get(c.cpu) || { ...c, wakeups: 0, busy: 0, idle: 0, missed_idle: 0 };
        for (const k of ['wakeups', 'busy', 'idle', 'missed_idle']) a[k] += c[k] || 0;
        by.set(c.cpu, a);
      }
    }
    return { cpus: [...by.values()].sort((a, b) => a.cpu - b.cpu), total, minute };
  }
  async function placementMaps(f, ctx, signal) {
    const missed = SL.drillOrder(f.metric) === 'missed';
    const runs = await ctx.runs;
    const [b, c] = await Promise.all(SIDES.map((side) => sideCpus(runs[side], ctx.range, signal)));
    if (!b.cpus.length || !c.cpus.length) return SL.empty('The topology of a side\'s host is unknown: no heatmap');
    const share = (side) => (cpu) => (side.total ? (100 * cpu.wakeups) / side.total : null);
    const value = missed ? (cpu) => SL.missedPct(cpu) : null;
    const label = missed ? 'missed-idle share' : 'share of the side\'s wakeups';
    const info = (v) => (cpu) => `wakeups landed ${SL.num(cpu.wakeups)} · ${label} ${SL.pct(v(cpu), 2)}`;
    const sideMetric = (side) => {
      const v = value || share(side);
      return { label, value: v, fmt: (x) => SL.pct(x, 2), info: info(v) };
    };
    // the difference on the CPUs both sides have (same shape: comparable runs)
    const vb = value || share(b), vc = value || share(c);
    const bBy = new Map(b.cpus.map((x) => [x.cpu, x]));
    const diff = c.cpus.filter((x) => bBy.has(x.cpu)).map((x) => {
      const y = bBy.get(x.cpu), p = vb(y), q = vc(x);
      return { ...x, diff: p === null || q === null ? null : q - p, base: p, cand: q };
    });
    const diffMetric = { label: `difference in ${label} (candidate − baseline)`, diverging: true, value: (x) => x.diff,
      fmt: (x) => SL.fmtDelta(x, '%'), info: (x) => `${label}: baseline ${SL.pct(x.base, 2)} → candidate ${SL.pct(x.cand, 2)} (${SL.fmtDelta(x.diff, '%')})` };
    const maps = [['baseline', b.cpus, sideMetric(b)], ['candidate', c.cpus, sideMetric(c)], ['difference', diff, diffMetric]];
    return [h('p', { class: 'muted' }, `Where each side's wakeups landed, all tasks (per-CPU counts are not kept per group)` +
      (SL.hasRange(ctx.range) ? `, in ${SL.rangeText(ctx.range)}${b.minute || c.minute ? ' (counted by whole minutes)' : ''}` : '') +
      `: ${label} per CPU, the runs of a side summed.`),
    maps.map(([name, cpus, m]) => h('figure', { class: 'drill-map', 'data-map': name },
      h('figcaption', {}, h('strong', {}, name), name === 'difference' ? '' : ` (${SL.num(name === 'baseline' ? b.total : c.total)} wakeups)`),
      SL.heatmap(cpus, m)))];
  }

  // The evidence of finding f: ctx = {runs: {baseline, candidate} (run objects, or a
  // promise of them: Overview asks for its comparison's runs only when evidence is opened),
  // range}
  SL.drilldown = function drilldown(f, ctx, signal) {
    const kind = SL.drillKind(f.metric), order = SL.drillOrder(f.metric);
    const what = kind === 'lhp' ? 'costliest lock-holder preemptions with their waiters (those the holder woke within 5 ms of running again; waiters released down a convoy count in Waiters but are not listed)'
      : order === 'missed' ? 'longest wakeups that passed an idle CPU or SMT sibling over' : 'longest wakeups';
    const box = h('div', { class: 'drilldown', 'data-kind': kind, 'data-metric': f.metric },
      h('p', { class: 'muted' }, `Evidence for ${f.metric.replace(/_/g, ' ')} of `, h('code', {}, f.group),
        `: each side's ${LIMIT} ${what}${kind === 'lhp' ? '' : ` of ${f.group}`}, ` +
        (SL.hasRange(ctx.range) ? `in ${SL.rangeText(ctx.range)} of each run` : 'over whole runs') + '.'));
    if (SL.isPlacement(f.metric)) {
      const maps = h('div');
      box.appendChild(h('section', { class: 'drill-maps' }, h('h3', {}, 'CPUs: baseline, candidate, difference'), maps));
      SL.section(maps, 'CPU heatmaps', () => placementMaps(f, ctx, signal));
    }
    for (const side of SIDES) {
      const body = h('div');
      box.appendChild(h('section', { class: 'drill-side', 'data-side': side }, h('h3', {}, side), body));
      SL.section(body, `${side} events`, async () => {
        const runs = (await ctx.runs)[side];
        return kind === 'lhp' ? lhpSide(side, runs, ctx.range, signal) : wakeupSide(side, runs, f.group, order, ctx.range, signal);
      });
    }
    return box;
  };

  // The finding's "evidence" control: a button that opens (and closes) the drill-down in
  // place: inside the headline's list item, or for a table row right below the findings
  // table (inside a row it would be as wide as the table and scroll away with it at 800 px)
  let nextId = 0;
  SL.evidenceButton = function evidenceButton(f, ctx, where) {
    let open = null;
    const id = 'evidence-' + ++nextId;
    const btn = h('button', { type: 'button', class: 'secondary evidence', 'aria-expanded': 'false', 'aria-controls': id,
      'aria-label': `evidence for ${f.metric.replace(/_/g, ' ')} of ${f.group}` }, 'evidence');
    btn.addEventListener('click', () => {
      if (open) { open.remove(); open = null; btn.setAttribute('aria-expanded', 'false'); return; }
      open = SL.drilldown(f, ctx);
      open.id = id;
      if (where === 'tr') btn.closest('.table-scroll').after(open);
      else btn.closest(where).appendChild(open);
      btn.setAttribute('aria-expanded', 'true');
    });
    return btn;
  };
})(window.SL);
