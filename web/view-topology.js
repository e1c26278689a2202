// SPDX-License-Identifier: GPL-2.0-only
// Topology heatmap: packages -> LLCs -> cores -> SMT threads as a grid, one cell per CPU,
// coloured by wakeups landed or by busy-target share, for a run or a time range of it.
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

  function heatmap(cpus, metric) {
    const m = METRICS[metric];
    const vals = cpus.map((c) => m.value(c)).filter((v) => v !== null && v !== undefined);
    const lo = metric === 'wakeups' ? 0 : Math.min(...vals, 0), hi = Math.max(...vals, lo + 1e-9);
    const norm = (v) => (v === null || v === undefined ? null : (v - lo) / (hi - lo || 1));
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
            const fill = SL.viridis(norm(v));
            const dark = norm(v) !== null && norm(v) > 0.6;
            const info = `CPU ${c.cpu} · package ${c.package} · LLC ${c.llc} · core ${c.core}` +
              `<br>wakeups landed ${SL.num(c.wakeups)} · busy target ${SL.pct(SL.ratioPct(c.busy, c.wakeups))}` +
              ` · missed idle ${SL.pct(missedPct(c))}`;
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
      h('span', { class: 'ramp', style: `background:linear-gradient(90deg,${[0, 0.25, 0.5, 0.75, 1].map(SL.viridis).join(',')})` }),
      h('span', {}, m.fmt(hi)), h('span', { class: 'muted' }, ' ' + m.label + '; grey: no wakeups'));
    return [scale, wrap];
  }
  SL.heatmap = heatmap;

  SL.views.topology = async function topology(main, params, signal) {
    main.appendChild(h('h1', {}, 'Topology heatmap'));
    const ctl = h('div'), body = h('div');
    main.append(ctl, body);
    let list = [];
    await SL.section(ctl, 'runs', async () => {
      list = (await SL.api('runs', { limit: 1000 }, signal)).runs || [];
      if (!list.length) return SL.empty('No runs', 'The heatmap shows where a run\'s wakeups landed.');
      if (!params.run) params.run = String(list[0].id);
      const form = h('form', { class: 'pickers', onsubmit: (e) => {
        e.preventDefault();
        const fd = new FormData(form);
        SL.go('topology', { run: fd.get('run'), metric: fd.get('metric'), from: fd.get('from'), to: fd.get('to') });
      } },
      h('label', {}, 'run ', h('select', { name: 'run' }, list.map((r) => h('option', { value: r.id, selected: String(r.id) === params.run },
        `#${r.id} ${r.kernel_release} ${r.label || ''} ${SL.wall(r.start_wall)}`)))),
      h('label', {}, 'colour by ', h('select', { name: 'metric' }, Object.entries(METRICS).map(([k, m]) =>
        h('option', { value: k, selected: (params.metric || 'wakeups') === k }, m.label)))),
      h('label', {}, 'from (s) ', h('input', { name: 'from', value: params.from || '', size: 6, inputmode: 'decimal', placeholder: 'start' })),
      h('label', {}, 'to (s) ', h('input', { name: 'to', value: params.to || '', size: 6, inputmode: 'decimal', placeholder: 'end' })),
      h('button', { type: 'submit' }, 'Show'));
      return form;
    });
    if (!list.length) return;
    await SL.section(body, 'CPUs', async () => {
      const run = list.find((r) => String(r.id) === params.run);
      if (!run) return SL.empty(`No run ${params.run}`);
      const start = run.start_ns || 0;
      const q = {};
      if (params.from) q.from = Math.round(start + Number(params.from) * 1e9);
      if (params.to) q.to = Math.round(start + Number(params.to) * 1e9);
      const d = await SL.api(`runs/${run.id}/cpus`, q, signal);
      const cpus = d.cpus || [];
      if (!cpus.length) return SL.empty('The topology of this run\'s host is unknown');
      const t = SL.topoSummary(cpus);
      return [h('p', {}, `Run #${run.id} on ${run.hostname || 'its host'}: ${t.online} CPUs, ${t.packages} packages, ${t.llcs} LLCs, ${t.cores} cores, ${t.smt} thread${t.smt > 1 ? 's' : ''} per core. `,
        `${SL.num(d.wakeups)} wakeups${params.from || params.to ? ` between ${params.from || 'start'} s and ${params.to || 'end'} s ${d.resolution === 'minute' ? ' (counted by whole minutes)' : ''}` : ''}.`),
        d.wakeups ? null : h('p', { class: 'warn' }, 'No wakeups counted for this span (a running run\'s current minute is counted once it is over; runs stored before schema 5 are counted from per-wakeup rows, which retention keeps for a bounded time): cells are grey.'),
        heatmap(cpus, params.metric && METRICS[params.metric] ? params.metric : 'wakeups')];
    });
  };
})(window.SL);
