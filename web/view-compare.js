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

  // rows of one run -> [[elapsed_s, value]] binned to at most MAX_POINTS
  function series(rows, f) {
    if (!rows.length) return [];
    const t0 = rows[0].start_ns, bin = Math.max(1, Math.ceil(rows.length / MAX_POINTS));
    const out = [];
    for (let i = 0; i < rows.length; i += bin) {
      const chunk = rows.slice(i, i + bin);
      out.push([(chunk[0].start_ns - t0) / 1e9, f(chunk)]);
    }
    return out;
  }
  const sum = (rows, k) => rows.reduce((a, r) => a + (r[k] || 0), 0);

  function picker(name, value, kernels, runs) {
    return h('label', {}, name + ' ',
      h('select', { name, 'aria-label': name },
        h('option', { value: '' }, '— pick —'),
        h('optgroup', { label: 'Kernels' }, kernels.map((k) => h('option', { value: 'kernel:' + k, selected: value === 'kernel:' + k }, k))),
        h('optgroup', { label: 'Runs' }, runs.map((r) => h('option', { value: 'runs:' + r.id, selected: value === 'runs:' + r.id },
          `#${r.id} ${r.kernel_release} ${r.label || ''} ${SL.wall(r.start_wall)}`)))));
  }

  SL.views.compare = async function compare(main, params, signal) {
    main.appendChild(h('h1', {}, 'Compare kernels'));
    const formBox = h('div'), body = h('div');
    main.append(formBox, body);
    let list = [];
    await SL.section(formBox, 'runs', async () => {
      list = (await SL.api('runs', { limit: 1000 }, signal)).runs || [];
      if (!list.length) return SL.empty('No runs to compare', 'Record runs on two kernels first.');
      const kernels = [...new Set(list.map((r) => r.kernel_release))];
      // defaults: the two newest kernels, older as baseline
      if (!params.baseline && !params.candidate && kernels.length >= 2) {
        params.candidate = 'kernel:' + kernels[0];
        params.baseline = 'kernel:' + kernels[1];
      }
      const form = h('form', { class: 'pickers', onsubmit: (e) => {
        e.preventDefault();
        const fd = new FormData(form);
        SL.go('compare', { baseline: fd.get('baseline'), candidate: fd.get('candidate'), group: fd.get('group'), label: params.label });
      } },
      picker('baseline', params.baseline, kernels, list), picker('candidate', params.candidate, kernels, list),
      h('label', {}, 'group ', h('input', { name: 'group', value: params.group || '', placeholder: 'e.g. postgres, * = all', list: 'groups', size: 14 })),
      h('datalist', { id: 'groups' }),
      h('button', { type: 'submit' }, 'Compare'));
      return form;
    });
    if (!list.length) return;
    if (!params.baseline || !params.candidate) {
      body.appendChild(SL.empty('Pick a baseline and a candidate', 'Kernels need at least one run each.'));
      return;
    }
    const runs = { baseline: sideRuns(params.baseline, list, params.label), candidate: sideRuns(params.candidate, list, params.label) };
    for (const s of SIDES) if (!runs[s].length) {
      body.appendChild(SL.empty(`No runs for the ${s} (${params[s]})`, 'Pick another kernel or run.'));
      return;
    }
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

    const findBox = h('div'), mixBox = h('div'), polBox = h('div'), timeBox = h('div'), latBox = h('div');
    body.append(
      SL.card(`Findings for group ${group}`, findBox, 'wide'),
      h('div', { class: 'grid' }, SL.card('Placement mix (class_prev and class_waker)', mixBox), SL.card('Policy fingerprint', polBox)),
      SL.card('Over time', timeBox, 'wide'),
      SL.card('Wakeup latency', latBox, 'wide'));

    const sideName = (s) => `${s} ${params[s].replace(':', ' ')}`;
    await Promise.all([
      SL.section(findBox, 'comparison (bootstrap: may take a few seconds)', async () => {
        const c = await SL.api('compare', { baseline: apiSide(params.baseline), candidate: apiSide(params.candidate), group, label: params.label }, signal);
        const fs = (c.findings || []).filter((f) => f.group === group || !f.group);
        const flagged = fs.filter((f) => ['regression', 'improvement', 'change'].includes(f.verdict));
        const rest = fs.filter((f) => !flagged.includes(f));
        return [
          h('p', { class: 'summary' }, SL.verdictBadge(c.verdict), ' ', c.summary || ''),
          (c.notes || []).length ? h('ul', { class: 'notes' }, c.notes.map((n) => h('li', {}, n))) : null,
          fs.length ? SL.findingsTable(flagged.concat(rest)) : SL.empty('No findings for this group', 'The group may have too few windows on one side.'),
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
        return [h('table', { class: 'policy' },
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Policy'), SIDES.map((s) => h('th', { scope: 'col' }, s)))),
          h('tbody', {}, rows.map(([p, v]) => h('tr', {}, h('th', { scope: 'row' }, p.replace('_', ' ')),
            v.map((x, i) => h('td', { class: 'num' }, h('span', { class: 'bar', style: `width:${(x || 0) * 0.8}px;background:${SL.SIDE_COLOURS[SIDES[i]]}` }), ' ', SL.pct(x))))))),
        h('p', { class: 'muted' }, 'Share of wakeups (with known state) where each textbook policy would have chosen the CPU the kernel chose.')];
      })),
      SL.section(timeBox, 'windows', async () => {
        const win = {};
        await Promise.all(SIDES.flatMap((s) => runs[s].map(async (r) => {
          // a long run is summed into about MAX_POINTS bins by the daemon (step, in ns)
          const secs = SL.runSeconds(r);
          const step = secs > MAX_POINTS ? Math.ceil(secs / MAX_POINTS) * 1e9 : undefined;
          win[r.id] = (await SL.api(`runs/${r.id}/windows`, { group, limit: 20000, step }, signal)).windows || [];
        })));
        const mk = (f) => SIDES.flatMap((s) => runs[s].map((r) => ({ name: `${s} #${r.id}`, colour: SL.SIDE_COLOURS[s], dash: s === 'candidate', points: series(win[r.id], f) })));
        const M = await SL.metricTable(signal);
        const metric = (name) => (c) => SL.metricValue(M[name], (k) => sum(c, k));
        const missed = mk(metric('missed_idle_rate'));
        // all preemptions per second: the two causes' rate metrics, of one denominator
        const pre = mk((c) => metric('preempt_wakeup_rate')(c) + metric('preempt_tick_rate')(c));
        const lhp = mk(metric('lhp_cost'));
        return h('div', { class: 'grid3' },
          SL.lineChart(missed, { yLabel: 'missed-idle rate (% of wakeups)', yFmt: (v) => v.toFixed(0) + '%', title: 'missed idle over time' }),
          SL.lineChart(pre, { yLabel: 'preemptions per second', title: 'preemptions over time' }),
          SL.lineChart(lhp, { yLabel: 'LHP cost (ms of waiting per second)', yFmt: (v) => SL.num(v, 1), title: 'LHP cost over time' }));
      }),
      SL.section(latBox, 'latency histograms', async () => {
        const hists = {};
        for (const s of SIDES) {
          const merged = new Map();
          for (const r of runs[s]) {
            const l = await SL.api(`runs/${r.id}/latency`, { group }, signal);
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
          { width: 1100, height: 240, caption: `wakeup → run latency of ${group}: share of wakeups per decade (%), log axis` });
      }),
    ]);
  };
})(window.SL);
