// SPDX-License-Identifier: GPL-2.0-only
// Lock-holder preemption of a run: who gets preempted while others wait on it (victims),
// who preempts them, the hubs (tasks that wake many of their group) and a timeline of the
// costliest LHP events; for the run or a time range of it (timerange.js).
'use strict';
(function (SL) {
  const h = SL.h, s = SL.svg;

  // events on a time axis of seconds since the run's start (origin, trace-clock ns), from a
  // to b: the whole run or the range; a brush on it zooms the view (onBrush)
  function timeline(events, origin, a, b, opts) {
    const W = 1100, H = 150, L = 40, R = 12, T = 12, B = 26;
    if (!events.length) return SL.empty('No lock-holder preemption with waiters in this ' + (opts.ranged ? 'range' : 'run'));
    const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', class: 'chart', role: 'img', 'aria-label': 'largest LHP events over time' });
    const at = (e) => (e.ts_ns - origin) / 1e9;
    const cmax = Math.max(...events.map((e) => e.lhp_cost_ns));
    const X = (x) => L + ((x - a) / (b - a || 1)) * (W - L - R);
    const Y = (c) => T + (1 - c / cmax) * (H - T - B);
    svg.appendChild(s('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }));
    // nice ticks in one unit for the whole axis (never "0 ms" beside "5.0 s")
    const [div, unit] = SL.durUnit(Math.max(Math.abs(a), Math.abs(b)));
    const ticks = SL.ticks(a / div, b / div, 5).filter((v) => v >= a / div - 1e-9 && v <= b / div + 1e-9);
    SL.tickLabels(ticks, (v, d) => SL.num(v, d) + unit).forEach((lbl, i) =>
      svg.appendChild(s('text', { x: X(ticks[i] * div), y: H - 8, 'text-anchor': 'middle', class: 'tick x-tick' }, lbl)));
    svg.appendChild(s('text', { x: L - 4, y: T + 8, 'text-anchor': 'end', class: 'tick' }, SL.usec(cmax)));
    for (const e of events) {
      const x = X(at(e));
      svg.appendChild(s('g', { class: 'lhp-event' },
        s('line', { x1: x, x2: x, y1: H - B, y2: Y(e.lhp_cost_ns), stroke: '#D55E00', 'stroke-width': 2 }),
        s('circle', { cx: x, cy: Y(e.lhp_cost_ns), r: 3.5, fill: '#D55E00' }),
        s('title', {}, `${e.victim_comm} (${e.victim_pid}) preempted by ${e.preemptor_comm} (${e.preemptor_pid}) on CPU ${e.cpu} at ${SL.dur(at(e))}: ` +
          `${e.waiters} waiter${e.waiters === 1 ? '' : 's'}, cost ${SL.usec(e.lhp_cost_ns)}, off CPU ${SL.usec(e.off_ns)}`)));
    }
    SL.timeInteract(svg, { W, H, L, R, T, B, x0: a, x1: b, X, fmt: (x) => SL.num(x / div, 2) + unit }, opts);
    return h('figure', { class: 'fig' }, h('figcaption', {}, `the ${events.length} costliest LHP events${opts.ranged ? ' of the range' : ''}: height = waiters' lost time; drag across to zoom`), svg);
  }

  const costRows = (rows) => rows.map((r) => ({ label: `${r.comm} (${r.grp})`, value: r.lhp_cost_ns || 0,
    text: `${SL.usec(r.lhp_cost_ns || 0)} · ${SL.num(r.lhp)} LHP of ${SL.num(r.preemptions)} preemptions` }));

  SL.views.lhp = async function lhp(main, params, signal) {
    main.appendChild(h('h1', {}, 'Lock-holder preemption'));
    const range = SL.rangeOf(params);
    const ctl = h('div'), body = h('div');
    main.append(ctl, body);
    let list = [];
    await SL.section(ctl, 'runs', async () => {
      list = (await SL.api('runs', { limit: 1000 }, signal)).runs || [];
      if (!list.length) return SL.empty('No runs', 'Record a run first.');
      if (!params.run) params.run = String(list[0].id);
      return h('form', { class: 'pickers', onsubmit: (e) => e.preventDefault() }, h('label', {}, 'run ', h('select', { name: 'run', onchange: (e) => SL.go('lhp', { run: e.target.value, ...SL.rangeParams(range) }) },
        list.map((r) => h('option', { value: r.id, selected: String(r.id) === params.run }, `#${r.id} ${r.kernel_release} ${r.label || ''} ${SL.wall(r.start_wall)}`)))));
    });
    if (!list.length) return;
    const run = list.find((r) => String(r.id) === params.run);
    if (!run) { body.appendChild(SL.empty(`No run ${params.run}`)); return; }
    const origin = await SL.runOrigin(run, signal);
    const q = SL.rangeQuery(range, origin);
    const go = (r) => SL.go('lhp', { run: run.id, ...SL.rangeParams(r) });
    const ranged = SL.hasRange(range);
    ctl.appendChild(SL.rangeForm(range, go));
    if (ranged)
      ctl.appendChild(h('p', { class: 'range-note' }, `Range ${SL.rangeText(range)} of run #${run.id}: the rankings, the timeline and the events count the preemptions in it at their exact times; `,
        'the totals per group count the whole windows (1 s each by default) that start in it. ',
        h('a', { href: SL.link('topology', { run: run.id, ...SL.rangeParams(range) }) }, 'Heatmap of this range')));
    const totals = h('div'), tops = h('div', { class: 'stack' }), tl = h('div');
    body.append(SL.card('Totals per group' + (ranged ? ' (whole windows in the range)' : ''), totals, 'wide'), tops,
      SL.card('Timeline of the largest LHP events', tl, 'wide'));
    const lhpP = SL.api(`runs/${run.id}/lhp`, { limit: 50, ...q }, signal);
    await Promise.all([
      SL.section(totals, 'preemptions', async () => {
        const p = await SL.api(`runs/${run.id}/preemptions`, { limit: 0, ...q }, signal);
        const all = p.groups || [];
        const gs = all.filter((g) => g.name === '*' || g.preempt_wakeup + g.preempt_tick > 0);
        if (!gs.length) return SL.empty(ranged ? 'No windows start in this range' : 'No windows in this run');
        // shares and rates as diff computes them: the metric table's, over the windows' sums
        const M = await SL.metricTable(signal);
        const metric = (name, g) => SL.metricValue(M[name], (k) => g[k]);
        return h('div', {}, SL.scroll(h('table', { class: 'groups' },
          h('thead', {}, h('tr', {}, ['Group', 'Switches', 'Preemptions', 'of which wakeup', 'Same group', 'LHP', 'LHP cost', 'LHP cost/s', 'Hub preemptions'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, gs.map((g) => h('tr', {}, h('th', { scope: 'row' }, h('code', {}, g.name)),
            h('td', { class: 'num' }, SL.si(g.switches)),
            h('td', { class: 'num' }, SL.si(g.preempt_wakeup + g.preempt_tick), ' ', h('span', { class: 'muted' }, SL.pct(metric('preempt_share', g)))),
            h('td', { class: 'num' }, SL.si(g.preempt_wakeup)),
            h('td', { class: 'num' }, SL.si(g.same_group)),
            h('td', { class: 'num' }, SL.num(g.lhp)),
            h('td', { class: 'num' }, SL.usec(g.lhp_cost_ns)),
            h('td', { class: 'num' }, SL.fmtValue(metric('lhp_cost', g), 'ms/s')),
            h('td', { class: 'num' }, SL.num(g.hub_preemptions)))))), 'totals per group'),
          all.length > gs.length ? h('p', { class: 'muted' }, `${all.length - gs.length} groups without preemptions not shown.`) : null);
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
        // the axis: the range, or the whole run (to its end or its last event)
        const end = run.end_ns ? (run.end_ns - origin) / 1e9 : 0;
        const a = range.from || 0;
        const b = range.to !== null ? range.to : Math.max(end, ...ev.map((e) => (e.ts_ns + (e.off_ns || 0) - origin) / 1e9));
        const live = h('p', { class: 'sr-only', role: 'status' });
        return [timeline(ev, origin, a, b, { ranged, live, onBrush: (x, y) => go({ from: x, to: y }) }), live,
          ev.length ? SL.scroll(h('table', { class: 'events' },
            h('thead', {}, h('tr', {}, ['At', 'CPU', 'Victim', 'Preemptor', 'Cause', 'Off CPU', 'Waiters', 'Cost'].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, (d.largest || []).slice(0, 15).map((e) => h('tr', {},
              h('td', { class: 'num' }, SL.dur((e.ts_ns - origin) / 1e9)),
              h('td', { class: 'num' }, e.cpu), h('td', {}, `${e.victim_comm} ${e.victim_pid}`), h('td', {}, `${e.preemptor_comm} ${e.preemptor_pid}`),
              h('td', {}, e.cause), h('td', { class: 'num' }, SL.usec(e.off_ns)), h('td', { class: 'num' }, e.waiters), h('td', { class: 'num' }, SL.usec(e.lhp_cost_ns)))))), 'largest LHP events') : null];
      }),
    ]);
  };
})(window.SL);
