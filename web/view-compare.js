// SPDX-License-Identifier: GPL-2.0-only
// Compare: a baseline and a candidate (kernels or runs) and a group. Shows the findings of
// the comparison (the daemon runs lib/compare), the placement mix side by side, missed-idle
// rate, preemptions and LHP cost over time, the wakeup-latency histograms overlaid on a log
// axis, and the policy fingerprint shares. State: #/compare?baseline=kernel:X&candidate=..
'use strict';
(function (SL) {
  const h = SL.h;
  const SIDES = ['baseline', 'candidate'];
  const MAX_POINTS = 300;

  // "kernel:6.1" / "runs:1,2" -> runs of the list
  function sideRuns(spec, list, label) {
    if (!spec) return [];
    const [kind, val] = [spec.slice(0, spec.indexOf(':')), spec.slice(spec.indexOf(':') + 1)];
    if (kind === 'runs') {
      const ids = val.split(',').map(Number);
      return list.filter((r) => ids.includes(r.id));
    }
    return list.filter((r) => r.kernel_release === val && (!label || r.label === label));
  }
  // a side in the daemon's /api/v1/compare syntax: "runs:1,2" -> "1,2" (run ids),
  // "kernel:6.1.0-31" -> "6.1.0-31" (a release)
  function apiSide(spec) {
    if (!spec) return '';
    return spec.slice(spec.indexOf(':') + 1);
  }

  // rows of one run -> [[seconds since t0 (the run's start), value]] binned to at most
  // MAX_POINTS
  function series(rows, t0, f) {
    if (!rows.length) return [];
    const bin = Math.max(1, Math.ceil(rows.length / MAX_POINTS));
    const out = [];
    for (let i = 0; i < rows.length; i += bin) {
      const chunk = rows.slice(i, i + bin);
      out.push([(chunk[0].start_ns - t0) / 1e9, f(chunk)]);
    }
    return out;
  }
  const sum = (rows, k) => rows.reduce((a, r) => a + (r[k] || 0), 0);

  function picker(name, value, kernels, runs) {
    // a run list from the URL ("runs:1,2") that no single-run option matches gets its own
    // option, so the form shows it and pressing Compare keeps it
    const single = new Set(runs.map((r) => 'runs:' + r.id));
    const multi = value && value.startsWith('runs:') && !single.has(value)
      ? h('option', { value, selected: true }, 'runs ' + value.slice(5).split(',').map((x) => '#' + x).join(', ')) : null;
    return h('label', {}, name + ' ',
      h('select', { name, 'aria-label': name },
        h('option', { value: '' }, '— pick —'),
        h('optgroup', { label: 'Kernels' }, kernels.map((k) => h('option', { value: 'kernel:' + k, selected: value === 'kernel:' + k }, k))),
        h('optgroup', { label: 'Runs' }, multi, runs.map((r) => h('option', { value: 'runs:' + r.id, selected: value === 'runs:' + r.id },
          `#${r.id} ${r.kernel_release} ${r.label || ''} ${SL.wall(r.start_wall)}`)))));
  }

  // The newest pair of kernels with runs of one workload label on one topology (list is
  // newest first): {baseline, candidate, label} or null when no two kernels are comparable
  function comparablePair(list) {
    for (const r of list) {
      const o = list.find((x) => x.kernel_release !== r.kernel_release && SL.comparableKey(x) === SL.comparableKey(r));
      if (o) return { candidate: 'kernel:' + r.kernel_release, baseline: 'kernel:' + o.kernel_release, label: r.label || '' };
    }
    return null;
  }
  // Both sides' runs restricted to the label and topology they share most runs of (what the
  // daemon compares), so the charts never show runs the comparison left out
  function restrict(runs) {
    const n = new Map();
    for (const r of runs.baseline.concat(runs.candidate)) n.set(SL.comparableKey(r), (n.get(SL.comparableKey(r)) || 0) + 1);
    const keys = [...n.keys()].filter((k) => runs.baseline.some((r) => SL.comparableKey(r) === k) &&
      runs.candidate.some((r) => SL.comparableKey(r) === k));
    if (!keys.length) return null;
    const key = keys.sort((a, b) => n.get(b) - n.get(a))[0];
    return { baseline: runs.baseline.filter((r) => SL.comparableKey(r) === key),
      candidate: runs.candidate.filter((r) => SL.comparableKey(r) === key) };
  }

  // The three charts over time, for the range (whole runs without one): each run from its
  // own start, summed by the daemon into about MAX_POINTS bins of the range; the range form,
  // the brush and a shared crosshair; links to each run's heatmap and LHP for the range
  async function overTime(runs, group, params, range, signal) {
    const win = {}, origin = {};
    const span = (r) => (range.to !== null ? range.to : SL.runSeconds(r) || 0) - (range.from || 0);
    await Promise.all(SIDES.flatMap((s) => runs[s].map(async (r) => {
      origin[r.id] = await SL.runOrigin(r, signal);
      const secs = span(r);
      const step = SL.windowStep(secs, MAX_POINTS);
      win[r.id] = (await SL.api(`runs/${r.id}/windows`, { group, limit: 20000, step, ...SL.rangeQuery(range, origin[r.id]) }, signal)).windows || [];
    })));
    const mk = (f) => SIDES.flatMap((s) => runs[s].map((r, i) => ({ name: `${s} #${r.id}`, colour: SL.runColour(s, i), dash: s === 'candidate', points: series(win[r.id], origin[r.id], f) })));
    const M = await SL.metricTable(signal);
    const metric = (name) => (c) => SL.metricValue(M[name], (k) => sum(c, k));
    const missed = mk(metric('missed_idle_rate'));
    // all preemptions per second: the two causes' rate metrics, of one denominator
    const pre = mk((c) => metric('preempt_wakeup_rate')(c) + metric('preempt_tick_rate')(c));
    const lhp = mk(metric('lhp_cost'));
    const go = (r) => SL.go('compare', { ...params, ...SL.rangeParams(r) });
    const all = SIDES.flatMap((s) => runs[s]);
    // the axis: the range, or 0 s to the longest run's end (not the first window's start)
    const longest = Math.max(...all.map((r) => SL.runSeconds(r) || 0));
    const xDomain = SL.hasRange(range) ? [range.from || 0, range.to !== null ? range.to : longest] : longest > 0 ? [0, longest] : undefined;
    const live = h('p', { class: 'sr-only', role: 'status' });
    const common = { group: SL.timeGroup(), onBrush: (a, b) => go({ from: a, to: b }), xDomain, live };
    return [
      SL.rangeForm(range, go),
      h('p', { class: 'muted' }, 'The findings above are over whole runs; the range zooms these charts, and opens each run\'s heatmap and LHP for it: ',
        all.map((r, i) => [i ? ' · ' : '', `#${r.id} `, h('a', { href: SL.link('topology', { run: r.id, ...SL.rangeParams(range) }) }, 'heatmap'), ' ',
          h('a', { href: SL.link('lhp', { run: r.id, ...SL.rangeParams(range) }) }, 'LHP')]), '.'),
      h('div', { class: 'grid3' },
        SL.lineChart(missed, { ...common, yLabel: 'missed-idle rate (% of wakeups)', yFmt: (v, d) => SL.num(v, d) + '%', title: 'missed idle over time' }),
        SL.lineChart(pre, { ...common, yLabel: 'preemptions per second', yFmt: (v, d) => (Math.abs(v) >= 1e4 ? SL.num(v / 1e3, d) + ' k' : SL.num(v, d)), title: 'preemptions over time' }),
        SL.lineChart(lhp, { ...common, yLabel: 'LHP cost (ms of waiting per second)', yFmt: (v, d) => SL.num(v, d), title: 'LHP cost over time' })),
      live,
    ];
  }

  SL.views.compare = async function compare(main, params, signal) {
    main.appendChild(h('h1', {}, 'Compare kernels'));
    const range = SL.rangeOf(params);
    const formBox = h('div'), body = h('div');
    main.append(formBox, body);
    let list = [];
    await SL.section(formBox, 'runs', async () => {
      list = (await SL.api('runs', { limit: 1000 }, signal)).runs || [];
      if (!list.length) return SL.empty('No runs to compare', 'Record runs on two kernels first.');
      const kernels = [...new Set(list.map((r) => r.kernel_release))];
      // defaults: the newest two kernels that have runs of one label on one topology
      if (!params.baseline && !params.candidate) {
        const pair = comparablePair(list);
        if (pair) Object.assign(params, pair);
      }
      const form = h('form', { class: 'pickers', onsubmit: (e) => {
        e.preventDefault();
        const fd = new FormData(form);
        SL.go('compare', { baseline: fd.get('baseline'), candidate: fd.get('candidate'), group: fd.get('group'), label: params.label, ...SL.rangeParams(range) });
      } },
      picker('baseline', params.baseline, kernels, list), picker('candidate', params.candidate, kernels, list),
      h('label', {}, 'group ', h('input', { name: 'group', value: params.group || '', placeholder: 'e.g. postgres, * = all', list: 'groups', size: 14 })),
      h('datalist', { id: 'groups' }),
      h('button', { type: 'submit' }, 'Compare'));
      return form;
    });
    if (!list.length) return;
    if (!params.baseline || !params.candidate) {
      body.appendChild(SL.empty('No two kernels to compare',
        'A comparison needs runs of two kernels with the same workload label on the same topology; ' +
        'pick a baseline and a candidate above, or record runs of the same workload on another kernel.'));
      return;
    }
    const picked = { baseline: sideRuns(params.baseline, list, params.label), candidate: sideRuns(params.candidate, list, params.label) };
    for (const s of SIDES) if (!picked[s].length) {
      body.appendChild(SL.empty(`No runs for the ${s} (${params[s]})`, 'Pick another kernel or run.'));
      return;
    }
    const runs = restrict(picked);
    if (!runs) {
      body.appendChild(SL.empty('These two sides are not comparable',
        'The baseline and the candidate share no workload label and topology: ' +
        SIDES.map((s) => `${s} ${[...new Set(picked[s].map((r) => (r.label || 'no label') + ' on ' + (r.hostname || 'host') + ' (' + SL.num(r.nr_cpus) + ' CPUs)'))].join(', ')}`).join('; ') + '.'));
      return;
    }
    const label = params.label || runs.baseline[0].label || '';
    // placement of every run (also gives the groups)
    const placements = {};
    await Promise.all(SIDES.flatMap((s) => runs[s].map(async (r) => {
      placements[r.id] = (await SL.api(`runs/${r.id}/placement`, {}, signal)).groups || [];
    })));
    const groupsOf = (s) => new Set(runs[s].flatMap((r) => placements[r.id].map((g) => g.name)));
    const common = [...groupsOf('baseline')].filter((g) => groupsOf('candidate').has(g));
    const dl = document.getElementById('groups');
    if (dl) for (const g of common) dl.appendChild(h('option', { value: g }));
    const group = params.group || (common.includes('postgres') ? 'postgres' : common.find((g) => g !== '*') || '*');
    const gi = formBox.querySelector('input[name=group]');
    if (gi && !gi.value) gi.value = group;
    // a group neither side has windows of: say so, never "no change"
    if (!common.includes(group)) {
      const only = SIDES.filter((s) => groupsOf(s).has(group));
      body.appendChild(SL.h('section', { class: 'headline hl-insufficient_data', 'data-verdict': 'insufficient_data', 'aria-label': 'headline' },
        h('p', { class: 'headline-verdict' }, SL.verdictBadge('insufficient_data'), ' ',
          h('strong', {}, only.length ? `Group ${group} has windows on the ${only[0]} only` : `No group ${group} in these runs`)),
        h('p', {}, 'Groups both sides have (most wakeups first): ', common.length ? common.slice(0, 10).map((g, i) => [i ? ', ' : '',
          h('a', { href: SL.link('compare', { baseline: params.baseline, candidate: params.candidate, group: g, label: params.label }) }, g)]) : 'none',
        common.length > 10 ? ` and ${common.length - 10} more` : '', '.')));
      return;
    }

    const findBox = h('div'), mixBox = h('div'), polBox = h('div'), timeBox = h('div'), latBox = h('div');
    body.append(
      SL.card(null, findBox, 'wide findings-card'),
      h('div', { class: 'grid' }, SL.card('Placement mix (class_prev and class_waker)', mixBox), SL.card('Policy fingerprint', polBox)),
      SL.card('Over time' + (SL.hasRange(range) ? ` (${SL.rangeText(range)} of each run)` : ''), timeBox, 'wide over-time'),
      SL.card('Wakeup latency', latBox, 'wide'));

    const sideName = (s) => `${s} ${params[s].replace(':', ' ')}`;
    await Promise.all([
      SL.section(findBox, 'comparison (bootstrap: may take a few seconds)', async () => {
        const [c, M] = await Promise.all([
          SL.api('compare', { baseline: apiSide(params.baseline), candidate: apiSide(params.candidate), group, label }, signal),
          SL.metricTable(signal)]);
        const fs = (c.findings || []).filter((f) => f.group === group || !f.group);
        // one kernel both sides (a lab feature A/B): the sides' selections say which variant
        // each is ("runs=3,8 features=default"), the kernel once
        const same = c.baseline.kernel === c.candidate.kernel && c.baseline.selection && c.candidate.selection;
        const sel = (side) => side.selection.replace(/^kernel=\S+ /, '');
        const title = [...(same ? [h('code', {}, c.baseline.kernel), ': ', h('code', {}, sel(c.baseline)), ' → ', h('code', {}, sel(c.candidate))]
          : [h('code', {}, c.baseline.kernel), ' → ', h('code', {}, c.candidate.kernel)]),
          h('span', { class: 'muted' }, ` · group ${group}, label ${c.label || 'none'}, ${c.baseline.runs.length} vs ${c.candidate.runs.length} runs`)];
        // the evidence of a finding: the events of these runs (the range's, with one)
        const ctx = { runs, range };
        return [
          SL.headline(fs.length ? c.verdict : 'insufficient_data', fs, M, { title, ctx, level: c.params && c.params.ci_level, fdr: c.params && c.params.unconfirmed_fdr }),
          (c.notes || []).length ? h('ul', { class: 'notes' }, c.notes.map((n) => h('li', {}, SL.fixUnits(n)))) : null,
          fs.length ? SL.findingsBlock(fs, M, ctx, c.params && c.params.ci_level) : SL.empty('No findings for this group', 'The group may have too few windows on one side.'),
          h('p', { class: 'muted summary' }, SL.fixUnits(c.summary)),
        ];
      }),
      SL.section(mixBox, 'placement', async () => {
        const agg = {};
        for (const s of SIDES) {
          agg[s] = {};
          for (const r of runs[s]) {
            const g = placements[r.id].find((x) => x.name === group);
            if (g) for (const [k, v] of Object.entries(g)) if (typeof v === 'number') agg[s][k] = (agg[s][k] || 0) + v;
          }
        }
        SL.lastPlacement = agg;
        const rows = [];
        for (const cls of ['prev', 'waker'])
          for (const s of SIDES)
            rows.push({ label: `${s} · class_${cls}`, parts: Object.fromEntries(SL.RELATIONS.map((k) => [k, agg[s][cls + '_' + k] || 0])) });
        const M = await SL.metricTable(signal);
        const missed = (s) => SL.metricValue(M.missed_idle_rate, (k) => agg[s][k]);
        return [SL.stackedBars(rows, SL.RELATIONS, SL.REL_COLOURS, { title: 'placement mix', left: 170 }),
          h('p', {}, SIDES.map((s) => h('span', { class: 'stat' }, `${s}: missed idle ${SL.pct(missed(s))} of ${SL.si(agg[s].wakeups)} wakeups`)))];
      }).then(() => SL.section(polBox, 'fingerprint', async () => {
        const agg = SL.lastPlacement;
        const M = await SL.metricTable(signal);
        const rows = SL.POLICIES.map((p) => [p, SIDES.map((s) => SL.metricValue(M[`policy_${p}_share`], (k) => agg[s][k]))]);
        return [SL.scroll(h('table', { class: 'policy' },
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Policy'), SIDES.map((s) => h('th', { scope: 'col' }, s)))),
          h('tbody', {}, rows.map(([p, v]) => h('tr', {}, h('th', { scope: 'row' }, p.replace('_', ' ')),
            v.map((x, i) => h('td', { class: 'num' }, h('span', { class: 'bar', style: `width:${(x || 0) * 0.8}px;background:${SL.SIDE_COLOURS[SIDES[i]]}` }), ' ', SL.pct(x))))))), 'policy fingerprint'),
        h('p', { class: 'muted' }, 'Share of wakeups (with known state) where each textbook policy would have chosen the CPU the kernel chose.')];
      })),
      SL.section(timeBox, 'windows', () => overTime(runs, group, params, range, signal)),
      SL.section(latBox, 'latency histograms', async () => {
        const hists = {};
        for (const s of SIDES) {
          const merged = new Map();
          for (const r of runs[s]) {
            const q = SL.rangeQuery(range, await SL.runOrigin(r, signal));
            const l = await SL.api(`runs/${r.id}/latency`, { group, ...q }, signal);
            for (const b of l.buckets || []) {
              const key = b.lo_ns;
              const m = merged.get(key) || { lo_ns: b.lo_ns, hi_ns: b.hi_ns, count: 0 };
              m.count += b.count;
              merged.set(key, m);
            }
          }
          hists[s] = [...merged.values()].sort((a, b) => a.lo_ns - b.lo_ns).map((b) => [b.lo_ns / 1e3, b.hi_ns === null ? null : b.hi_ns / 1e3, b.count]);
        }
        return SL.histOverlay(SIDES.map((s) => ({ name: sideName(s), colour: SL.SIDE_COLOURS[s], dash: s === 'candidate', buckets: hists[s] })),
          { width: 1100, height: 240, caption: `wakeup → run latency of ${group}${SL.hasRange(range) ? ' in the range' : ''}: share of wakeups per decade (%), log axis` });
      }),
    ]);
  };
})(window.SL);
