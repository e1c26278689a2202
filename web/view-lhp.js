// SPDX-License-Identifier: GPL-2.0-only
// Lock-holder preemption of a run: who gets preempted while others wait on it (victims),
// who preempts them, the hubs (tasks that wake many of their group) and a timeline of the
// costliest LHP events.
'use strict';
(function (SL) {
  const h = SL.h, s = SL.svg;

  function timeline(events, start, end) {
    const W = 1100, H = 150, L = 40, R = 12, T = 12, B = 26;
    const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', class: 'chart', role: 'img', 'aria-label': 'largest LHP events over time' });
    if (!events.length) return SL.empty('No lock-holder preemption with waiters in this run');
    const t0 = start, t1 = Math.max(end || 0, ...events.map((e) => e.ts_ns + (e.off_ns || 0)));
    const cmax = Math.max(...events.map((e) => e.lhp_cost_ns));
    const X = (t) => L + ((t - t0) / (t1 - t0 || 1)) * (W - L - R);
    const Y = (c) => T + (1 - c / cmax) * (H - T - B);
    svg.appendChild(s('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }));
    // nice ticks in one unit for the whole axis (never "0 ms" beside "5.0 s")
    const span = (t1 - t0) / 1e9, [div, unit] = SL.durUnit(span);
    const at = SL.ticks(0, span / div, 5).filter((v) => v <= span / div + 1e-9);
    SL.tickLabels(at, (v, d) => SL.num(v, d) + unit).forEach((lbl, i) =>
      svg.appendChild(s('text', { x: X(t0 + at[i] * div * 1e9), y: H - 8, 'text-anchor': 'middle', class: 'tick x-tick' }, lbl)));
    svg.appendChild(s('text', { x: L - 4, y: T + 8, 'text-anchor': 'end', class: 'tick' }, SL.usec(cmax)));
    for (const e of events) {
      const x = X(e.ts_ns);
      svg.appendChild(s('g', { class: 'lhp-event' },
        s('line', { x1: x, x2: x, y1: H - B, y2: Y(e.lhp_cost_ns), stroke: '#D55E00', 'stroke-width': 2 }),
        s('circle', { cx: x, cy: Y(e.lhp_cost_ns), r: 3.5, fill: '#D55E00' }),
        s('title', {}, `${e.victim_comm} (${e.victim_pid}) preempted by ${e.preemptor_comm} (${e.preemptor_pid}) on CPU ${e.cpu} at ${SL.dur((e.ts_ns - t0) / 1e9)}: ` +
          `${e.waiters} waiter${e.waiters === 1 ? '' : 's'}, cost ${SL.usec(e.lhp_cost_ns)}, off CPU ${SL.usec(e.off_ns)}`)));
    }
    return h('figure', { class: 'fig' }, h('figcaption', {}, `the ${events.length} costliest LHP events: height = waiters' lost time`), svg);
  }

  const costRows = (rows) => rows.map((r) => ({ label: `${r.comm} (${r.grp})`, value: r.lhp_cost_ns || 0,
    text: `${SL.usec(r.lhp_cost_ns || 0)} · ${SL.num(r.lhp)} LHP of ${SL.num(r.preemptions)} preemptions` }));

  SL.views.lhp = async function lhp(main, params, signal) {
    main.appendChild(h('h1', {}, 'Lock-holder preemption'));
    const ctl = h('div'), body = h('div');
    main.append(ctl, body);
    let list = [];
    await SL.section(ctl, 'runs', async () => {
      list = (await SL.api('runs', { limit: 1000 }, signal)).runs || [];
      if (!list.length) return SL.empty('No runs', 'Record a run first.');
      if (!params.run) params.run = String(list[0].id);
      return h('form', { class: 'pickers' }, h('label', {}, 'run ', h('select', { name: 'run', onchange: (e) => SL.go('lhp', { run: e.target.value }) },
        list.map((r) => h('option', { value: r.id, selected: String(r.id) === params.run }, `#${r.id} ${r.kernel_release} ${r.label || ''} ${SL.wall(r.start_wall)}`)))));
    });
    if (!list.length) return;
    const run = list.find((r) => String(r.id) === params.run);
    if (!run) { body.appendChild(SL.empty(`No run ${params.run}`)); return; }
    const totals = h('div'), tops = h('div', { class: 'stack' }), tl = h('div');
    body.append(SL.card('Totals per group', totals, 'wide'), tops, SL.card('Timeline of the largest LHP events', tl, 'wide'));
    const lhpP = SL.api(`runs/${run.id}/lhp`, { limit: 50 }, signal);
    await Promise.all([
      SL.section(totals, 'preemptions', async () => {
        const p = await SL.api(`runs/${run.id}/preemptions`, { limit: 0 }, signal);
        const all = p.groups || [];
        const gs = all.filter((g) => g.name === '*' || g.preempt_wakeup + g.preempt_tick > 0);
        if (!gs.length) return SL.empty('No windows in this run');
        // shares and rates as diff computes them: the metric table's, over the windows' sums
        const M = await SL.metricTable(signal);
        const metric = (name, g) => SL.metricValue(M[name], (k) => g[k]);
        return h('div', {}, h('table', { class: 'groups' },
          h('thead', {}, h('tr', {}, ['Group', 'Switches', 'Preemptions', 'of which wakeup', 'Same group', 'LHP', 'LHP cost', 'LHP cost/s', 'Hub preemptions'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, gs.map((g) => h('tr', {}, h('th', { scope: 'row' }, h('code', {}, g.name)),
            h('td', { class: 'num' }, SL.si(g.switches)),
            h('td', { class: 'num' }, SL.si(g.preempt_wakeup + g.preempt_tick), ' ', h('span', { class: 'muted' }, SL.pct(metric('preempt_share', g)))),
            h('td', { class: 'num' }, SL.si(g.preempt_wakeup)),
            h('td', { class: 'num' }, SL.si(g.same_group)),
            h('td', { class: 'num' }, SL.num(g.lhp)),
            h('td', { class: 'num' }, SL.usec(g.lhp_cost_ns)),
            h('td', { class: 'num' }, SL.fmtValue(metric('lhp_cost', g), 'ms/s')),
            h('td', { class: 'num' }, SL.num(g.hub_preemptions))))),
          all.length > gs.length ? h('p', { class: 'muted' }, `${all.length - gs.length} groups without preemptions not shown.`) : null));
      }),
      SL.section(tops, 'LHP ranking', async () => {
        const d = await lhpP;
        return h('div', { class: 'grid3' },
          SL.card('Top victims (by waiters\' lost time)', SL.barList(costRows(d.victims || []), '#D55E00', { empty: 'no preemptions' })),
          SL.card('Top preemptors', SL.barList(costRows(d.preemptors || []), '#0072B2', { empty: 'no preemptions' })),
          SL.card('Hubs preempted', SL.barList((d.hubs || []).map((r) => ({ label: `${r.comm} ${r.pid}`, value: r.delayed_wakeups || r.preemptions,
            text: `${SL.num(r.preemptions)} preemptions, ${SL.num(r.delayed_wakeups)} wakeups delayed` })), '#009E73', { empty: 'no hub was preempted' })));
      }),
      SL.section(tl, 'LHP events', async () => {
        const d = await lhpP;
        const ev = (d.largest || []).slice().sort((a, b) => a.ts_ns - b.ts_ns);
        return [timeline(ev, run.start_ns || d.start_ns, run.end_ns),
          ev.length ? h('table', { class: 'events' },
            h('thead', {}, h('tr', {}, ['At', 'CPU', 'Victim', 'Preemptor', 'Cause', 'Off CPU', 'Waiters', 'Cost'].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, (d.largest || []).slice(0, 15).map((e) => h('tr', {},
              h('td', { class: 'num' }, SL.dur((e.ts_ns - (run.start_ns || d.start_ns)) / 1e9)),
              h('td', { class: 'num' }, e.cpu), h('td', {}, `${e.victim_comm} ${e.victim_pid}`), h('td', {}, `${e.preemptor_comm} ${e.preemptor_pid}`),
              h('td', {}, e.cause), h('td', { class: 'num' }, SL.usec(e.off_ns)), h('td', { class: 'num' }, e.waiters), h('td', { class: 'num' }, SL.usec(e.lhp_cost_ns)))))) : null];
      }),
    ]);
  };
})(window.SL);
