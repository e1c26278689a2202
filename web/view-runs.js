// SPDX-License-Identifier: GPL-2.0-only
// Runs, grouped by kernel release and workload label, with events, duration and gaps;
// each group links to a comparison against the newest other kernel.
'use strict';
(function (SL) {
  const h = SL.h;

  SL.runSeconds = (r) => (r.end_ns && r.start_ns ? (r.end_ns - r.start_ns) / 1e9 :
    r.end_wall && r.start_wall ? (r.end_wall - r.start_wall) / 1e9 : null);

  SL.views.runs = async function runs(main, params, signal) {
    main.appendChild(h('h1', {}, 'Runs'));
    const body = h('div');
    main.appendChild(body);
    await SL.section(body, 'runs', async () => {
      const list = (await SL.api('runs', { limit: 1000 }, signal)).runs || [];
      if (!list.length) return SL.empty('No runs in the database', 'Record one with `schedlens record -o DB` or let schedlensd record.');
      const groups = new Map();
      for (const r of list) {
        const key = r.kernel_release + '\u0000' + (r.label || '');
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push(r);
      }
      const kernels = [...new Set(list.map((r) => r.kernel_release))];
      return [...groups.values()].map((rs) => {
        const k = rs[0].kernel_release, label = rs[0].label || '';
        const other = kernels.find((x) => x !== k);
        const events = rs.reduce((a, r) => a + (r.events || 0), 0);
        const secs = rs.reduce((a, r) => a + (SL.runSeconds(r) || 0), 0);
        return SL.card(null, [
          h('h2', {}, 'Kernel ', h('code', {}, k), label ? [' · label ', h('code', {}, label)] : ' · no label',
            h('span', { class: 'muted' }, ` · ${rs.length} run${rs.length > 1 ? 's' : ''}, ${SL.si(events)} events, ${SL.dur(secs)}`)),
          other ? h('p', {}, h('a', { href: SL.link('compare', { baseline: 'kernel:' + other, candidate: 'kernel:' + k, label }) },
            `Compare with ${other}`)) : null,
          h('table', { class: 'runs' },
            h('thead', {}, h('tr', {}, ['Run', 'Host', 'Started', 'Duration', 'Events', 'Lost', 'Gaps', 'Dropped rows', 'Source', 'Preempt', ''].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, rs.map((r) => h('tr', { 'data-run': r.id },
              h('td', {}, '#' + r.id),
              h('td', {}, r.hostname || '–'),
              h('td', {}, SL.wall(r.start_wall)),
              h('td', { class: 'num' }, r.end_wall || r.end_ns ? SL.dur(SL.runSeconds(r)) : 'running'),
              h('td', { class: 'num' }, SL.si(r.events)),
              h('td', { class: 'num' + (r.lost_events ? ' warn' : '') }, SL.num(r.lost_events || 0)),
              h('td', {}, r.has_gaps ? h('span', { class: 'warn' }, 'yes') : 'no'),
              h('td', { class: 'num' }, SL.num(r.dropped_rows || 0)),
              h('td', {}, r.source || '–'),
              h('td', {}, r.preempt_mode || '–'),
              h('td', {}, h('a', { href: SL.link('topology', { run: r.id }) }, 'heatmap'), ' · ',
                h('a', { href: SL.link('lhp', { run: r.id }) }, 'LHP')))))),
        ], 'runs-group');
      });
    });
  };
})(window.SL);
