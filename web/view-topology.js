// SPDX-License-Identifier: GPL-2.0-only
// Topology heatmap: packages -> LLCs -> cores -> SMT threads as a grid, one cell per CPU,
// coloured by wakeups landed or by busy-target share, for a run or a time range of it
// (timerange.js: picked on a chart of the run's wakeups over time or typed).
// Each package is one block; within it LLCs side by side, cores as columns, SMT threads as
// rows, so 80 CPUs in 4 sockets (or 160) read as 4 blocks of small columns.
'use strict';
(function (SL) {
  const h = SL.h, s = SL.svg;
  // cpus rows count busy (claimed included) and idle targets: their sum is missed_idle_rate's
  // denominator (known-state wakeups), so a CPU shows what `schedlens diff` would
  const missedPct = (c) => SL.ratioPct(c.missed_idle, c.busy + c.idle);
  const METRICS = {
    wakeups: { label: 'wakeups landed', value: (c) => c.wakeups, fmt: (v) => SL.si(v) },
    busy: { label: 'busy-target share', value: (c) => (c.wakeups ? (100 * c.busy) / c.wakeups : null), fmt: (v) => SL.pct(v) },
    // of wakeups whose target's state was known (busy, claimed or idle), as missed_idle_rate
    missed: { label: 'missed-idle share', value: (c) => missedPct(c), fmt: (v) => SL.pct(v) },
  };

  // metric: a METRICS key or {label, value(cpu), fmt(v), diverging}: a diverging metric (a
  // difference) gets a scale symmetric about 0, blue below, orange above, white at 0
  function heatmap(cpus, metric) {
    const m = typeof metric === 'string' ? METRICS[metric] : metric;
    const vals = cpus.map((c) => m.value(c)).filter((v) => v !== null && v !== undefined);
    const top = Math.max(...vals.map(Math.abs), 1e-9);
    const lo = m.diverging ? -top : metric === 'wakeups' ? 0 : Math.min(...vals, 0);
    const hi = m.diverging ? top : Math.max(...vals, lo + 1e-9);
    const norm = (v) => (v === null || v === undefined ? null : (v - lo) / (hi - lo || 1));
    const colour = m.diverging ? SL.diverging : SL.viridis;
    const cell = 26, pad = 3;
    const on = cpus.filter((c) => c.online !== false && c.online !== 0);
    const byPkg = new Map();
    for (const c of on) {
      if (!byPkg.has(c.package)) byPkg.set(c.package, new Map());
      const llcs = byPkg.get(c.package);
      if (!llcs.has(c.llc)) llcs.set(c.llc, new Map());
      const cores = llcs.get(c.llc);
      if (!cores.has(c.core)) cores.set(c.core, []);
      cores.get(c.core).push(c);
    }
    const wrap = h('div', { class: 'heatmap', role: 'group', 'aria-label': `CPUs coloured by ${m.label}` });
    for (const [pkg, llcs] of [...byPkg].sort((a, b) => a[0] - b[0])) {
      const smt = Math.max(...[...llcs.values()].flatMap((cores) => [...cores.values()].map((t) => t.length)));
      const ncores = [...llcs.values()].reduce((a, cores) => a + cores.size, 0);
      const W = ncores * (cell + pad) + (llcs.size - 1) * 8 + 4, H = smt * (cell + pad) + 22;
      const svg = s('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: 'pkg' });
      let x = 2;
      for (const [llc, cores] of [...llcs].sort((a, b) => a[0] - b[0])) {
        const x0 = x;
        for (const [, threads] of [...cores].sort((a, b) => a[0] - b[0])) {
          threads.sort((a, b) => a.cpu - b.cpu).forEach((c, row) => {
            const v = m.value(c);
            const fill = colour(norm(v));
            const dark = norm(v) !== null && (m.diverging ? Math.abs(norm(v) - 0.5) > 0.35 : norm(v) > 0.6);
            const info = `CPU ${c.cpu} · package ${c.package} · LLC ${c.llc} · core ${c.core}<br>` + (m.info ? m.info(c) :
              `wakeups landed ${SL.num(c.wakeups)} · busy target ${SL.pct(SL.ratioPct(c.busy, c.wakeups))}` +
              ` · missed idle ${SL.pct(missedPct(c))}`);
            const g = s('g', { class: 'cpu-cell', 'data-cpu': c.cpu, tabindex: 0, role: 'img',
              'aria-label': `CPU ${c.cpu}: ${m.label} ${m.fmt(v)}` },
            s('rect', { x, y: 18 + row * (cell + pad), width: cell, height: cell, rx: 3, fill }),
            s('text', { x: x + cell / 2, y: 18 + row * (cell + pad) + cell / 2 + 4, 'text-anchor': 'middle',
              class: 'cell-lbl' + (dark ? ' dark' : '') }, c.cpu),
            s('title', {}, info.replace(/<br>/g, '\n')));
            const show = (e) => SL.tip(e, info);
            g.addEventListener('mouseenter', show);
            g.addEventListener('focus', show);
            g.addEventListener('mouseleave', () => SL.tip(null));
            g.addEventListener('blur', () => SL.tip(null));
            svg.appendChild(g);
          });
          x += cell + pad;
        }
        svg.appendChild(s('text', { x: x0, y: 12, class: 'tick' }, `LLC ${llc}`));
        x += 8;
      }
      wrap.appendChild(h('figure', { class: 'pkg-box' }, h('figcaption', {}, `Package ${pkg}`), svg));
    }
    const scale = h('div', { class: 'scale' }, h('span', {}, m.fmt(lo)),
      h('span', { class: 'ramp', style: `background:linear-gradient(90deg,${[0, 0.25, 0.5, 0.75, 1].map(colour).join(',')})` }),
      h('span', {}, m.fmt(hi)), h('span', { class: 'muted' }, ' ' + m.label + '; grey: no wakeups'));
    return [scale, wrap];
  }
  SL.heatmap = heatmap;
  SL.missedPct = missedPct;

  // The minutes a per-minute count of a range covers: cpu_counts minutes start at the run's
  // first event + k * 60 s (schema/0005), and every minute that overlaps the range counts
  // whole, so 5-10 s of a 20 s run is 0 s-20 s (the last minute ends with the run)
  function countedMinutes(range, runSecs) {
    const a = Math.floor((range.from || 0) / 60) * 60;
    let b = range.to === null ? null : Math.ceil(range.to / 60) * 60;
    if (b !== null && runSecs) b = Math.min(b, runSecs);
    return { from: a, to: b };
  }
  SL.countedMinutes = countedMinutes;

  // Wakeups over the whole run, a small time chart to brush a range on
  async function overviewChart(run, origin, range, counted, go, signal) {
    const secs = SL.runSeconds(run) || 0;
    const step = SL.windowStep(secs, 300);
    const rows = (await SL.api(`runs/${run.id}/windows`, { group: '*', metric: 'wakeups', limit: 20000, step }, signal)).windows || [];
    const pts = rows.map((w) => [(w.start_ns - origin) / 1e9, w.dur_ns ? w.wakeups / (w.dur_ns / 1e9) : null]);
    const live = h('p', { class: 'sr-only', role: 'status' });
    // bands under the line: the minutes counted (lighter) and the range asked for
    const bands = SL.hasRange(range) ? [counted && { ...counted, cls: 'band-counted' }, { ...range, cls: 'band-range' }].filter(Boolean) : [];
    const fig = SL.lineChart([{ name: 'wakeups per second, all tasks', colour: '#0072B2', points: pts }],
      { height: 130, width: 900, xDomain: secs ? [0, secs] : undefined, yFmt: (v, d) => (Math.abs(v) >= 1e4 ? SL.num(v / 1e3, d) + ' k' : SL.num(v, d)), title: 'wakeups over the run',
        yLabel: 'wakeups per second over the run: drag across to pick a range', onBrush: (a, b) => go({ from: a, to: b }), live, bands });
    return [fig, live];
  }

  SL.views.topology = async function topology(main, params, signal) {
    main.appendChild(h('h1', {}, 'Topology heatmap'));
    const range = SL.rangeOf(params);
    const ctl = h('div'), time = h('div'), body = h('div');
    main.append(ctl, time, body);
    let list = [];
    await SL.section(ctl, 'runs', async () => {
      list = (await SL.api('runs', { limit: 1000 }, signal)).runs || [];
      if (!list.length) return SL.empty('No runs', 'The heatmap shows where a run\'s wakeups landed.');
      if (!params.run) params.run = String(list[0].id);
      // a choice applies at once (Enter or Space on a select changes nothing until picked)
      const pick = (k) => (e) => SL.go('topology', { ...params, [k]: e.target.value });
      return h('form', { class: 'pickers', onsubmit: (e) => e.preventDefault() },
        h('label', {}, 'run ', h('select', { name: 'run', onchange: pick('run') }, list.map((r) => h('option', { value: r.id, selected: String(r.id) === params.run },
          `#${r.id} ${r.kernel_release} ${r.label || ''} ${SL.wall(r.start_wall)}`)))),
        h('label', {}, 'colour by ', h('select', { name: 'metric', onchange: pick('metric') }, Object.entries(METRICS).map(([k, m]) =>
          h('option', { value: k, selected: (params.metric || 'wakeups') === k }, m.label)))));
    });
    if (!list.length) return;
    const run = list.find((r) => String(r.id) === params.run);
    if (!run) { body.appendChild(SL.empty(`No run ${params.run}`)); return; }
    const origin = await SL.runOrigin(run, signal);
    const go = (r) => SL.go('topology', { run: run.id, metric: params.metric, ...SL.rangeParams(r) });
    ctl.appendChild(SL.rangeForm(range, go));
    let d = null;
    await SL.section(body, 'CPUs', async () => {
      d = await SL.api(`runs/${run.id}/cpus`, SL.rangeQuery(range, origin), signal);
      const cpus = d.cpus || [];
      if (!cpus.length) return SL.empty('The topology of this run\'s host is unknown');
      const t = SL.topoSummary(cpus);
      const minutes = d.resolution === 'minute' && SL.hasRange(range) ? countedMinutes(range, SL.runSeconds(run)) : null;
      return [h('p', {}, `Run #${run.id} on ${run.hostname || 'its host'}: ${t.online} CPUs, ${t.packages} packages, ${t.llcs} LLCs, ${t.cores} cores, ${t.smt} thread${t.smt > 1 ? 's' : ''} per core. `,
        `${SL.num(d.wakeups)} wakeups${SL.hasRange(range) ? ` in ${SL.rangeText(range)}` : ''}.`),
        minutes ? h('p', { class: 'resolution-note', role: 'note' }, h('strong', {}, 'Counted by whole minutes: '),
          `per-CPU counts are stored per minute, so the range ${SL.rangeText(range)} shows the wakeups of ${SL.rangeText(minutes)}, every minute that overlaps it. `,
          h('a', { href: SL.link('lhp', { run: run.id, ...SL.rangeParams(range) }) }, 'LHP of this range'), ' counts at exact times.') :
          SL.hasRange(range) ? h('p', { class: 'resolution-note' }, 'Counted at exact times (this run\'s per-wakeup rows). ',
            h('a', { href: SL.link('lhp', { run: run.id, ...SL.rangeParams(range) }) }, 'LHP of this range')) : null,
        d.wakeups ? null : h('p', { class: 'warn' }, 'No wakeups counted for this span (a running run\'s current minute is counted once it is over; runs stored before schema 5 are counted from per-wakeup rows, which retention keeps for a bounded time): cells are grey.'),
        heatmap(cpus, params.metric && METRICS[params.metric] ? params.metric : 'wakeups')];
    });
    const minutes = d && d.resolution === 'minute' && SL.hasRange(range) ? countedMinutes(range, SL.runSeconds(run)) : null;
    await SL.section(time, 'wakeups over time', () => overviewChart(run, origin, range, minutes, go, signal));
  };
})(window.SL);
