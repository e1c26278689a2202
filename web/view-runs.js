// SPDX-License-Identifier: GPL-2.0-only
// Runs, grouped by kernel release and workload label, with events, duration and gaps;
// each group links to a comparison against the newest other kernel, and, where its runs
// differ in what was run (runs.params), each variant to a comparison with the first.
'use strict';
(function (SL) {
  const h = SL.h;

  // An imported run (source other than "live") with start_ns 0: the importer stored no
  // start of the trace, and its start_wall/end_wall are when the import ran. Its duration
  // is unknown (not the import's wall time) and its start is shown as the import's time,
  // said as such. A live run's clock may start at 0: start_ns 0 is not "missing" there.
  SL.importTimeOnly = (r) => !!r.source && r.source !== 'live' && !r.start_ns;
  const known = (v) => v !== null && v !== undefined;
  SL.runSeconds = function runSeconds(r) {
    if (SL.importTimeOnly(r)) return null;
    if (known(r.end_ns) && known(r.start_ns)) return (r.end_ns - r.start_ns) / 1e9;
    return known(r.end_wall) && known(r.start_wall) ? (r.end_wall - r.start_wall) / 1e9 : null;
  };
  SL.runStarted = (r) => (SL.importTimeOnly(r)
    ? SL.h('span', { class: 'muted imported', title: 'the trace was imported without its start time' }, 'unknown (imported ' + SL.wall(r.start_wall) + ')')
    : SL.wall(r.start_wall));
  // runs with the same workload label and topology (what lib/compare compares)
  SL.comparableKey = (r) => (r.label || '') + '\u0000' + (r.topo_hash || '');

  // The runs.params keys whose values differ between the runs of a group: what was varied
  // (the lab's features=..., a recording's --param). Each run shows its values of them,
  // and every variant gets a link comparing it with the group's first (oldest) variant.
  const paramOf = (r, k) => (r.params && r.params[k] !== undefined ? String(r.params[k]) : '–');
  function variedKeys(rs) {
    const keys = new Set(rs.flatMap((r) => Object.keys(r.params || {})));
    return [...keys].filter((k) => new Set(rs.map((r) => paramOf(r, k))).size > 1).sort();
  }
  const MAX_VARIANT_LINKS = 6;
  const allParams = (r) => Object.entries(r.params || {}).map(([k, v]) => `${k}=${v}`).join(' ');
  function variantLinks(rs, keys) {
    const variants = new Map();
    const oldest = rs[rs.length - 1];
    // only runs the comparison accepts together: one label and topology
    for (const r of [...rs].reverse().filter((x) => SL.comparableKey(x) === SL.comparableKey(oldest))) {
      const v = keys.map((k) => `${k}=${paramOf(r, k)}`).join(' ');
      if (!variants.has(v)) variants.set(v, []);
      variants.get(v).push(r.id);
    }
    const [[v0, ids0], ...others] = [...variants];
    // a param that is unique per run (a seed, a run number) makes every run a variant:
    // a list of links then helps nobody
    if (others.length > MAX_VARIANT_LINKS) {
      return [h('li', { class: 'muted' }, `${others.length + 1} variants of ${keys.join(', ')}: pick the runs to compare in Compare`)];
    }
    return others.map(([v, ids]) => h('li', {}, h('a', { class: 'compare-variant', href: SL.link('compare', { baseline: 'runs:' + ids0.join(','), candidate: 'runs:' + ids.join(',') }) },
      `Compare ${v0} (${ids0.length} run${ids0.length > 1 ? 's' : ''}) with ${v} (${ids.length} run${ids.length > 1 ? 's' : ''})`)));
  }

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
      return [...groups.values()].map((rs) => {
        const k = rs[0].kernel_release, label = rs[0].label || '';
        // the newest other kernel with runs of this label and topology (list: newest first)
        const keys = new Set(rs.map(SL.comparableKey));
        const peer = list.find((x) => x.kernel_release !== k && keys.has(SL.comparableKey(x)));
        const other = peer ? peer.kernel_release : null;
        const events = rs.reduce((a, r) => a + (r.events || 0), 0);
        const secs = rs.map(SL.runSeconds);
        const total = secs.every((x) => x === null) ? null : secs.reduce((a, x) => a + (x || 0), 0);
        const varied = variedKeys(rs);
        return SL.card(null, [
          h('h2', {}, 'Kernel ', h('code', {}, k), label ? [' · label ', h('code', {}, label)] : ' · no label',
            h('span', { class: 'muted' }, ` · ${rs.length} run${rs.length > 1 ? 's' : ''}, ${SL.si(events)} events, ${total === null ? 'duration unknown' : SL.dur(total)}`)),
          other ? h('p', {}, h('a', { class: 'compare-with', href: SL.link('compare', { baseline: 'kernel:' + other, candidate: 'kernel:' + k, label }) },
            `Compare with ${other}`)) : h('p', { class: 'muted no-peer' }, 'No other kernel has runs of this label on this topology to compare with.'),
          varied.length ? h('ul', { class: 'variants' }, variantLinks(rs, varied)) : null,
          SL.scroll(h('table', { class: 'runs' },
            h('thead', {}, h('tr', {}, ['Run', 'Host', 'Started', 'Duration', 'Events', 'Lost', 'Gaps', 'Dropped rows', 'Source', 'Preempt'].concat(varied.length ? ['What differs'] : [], ['']).map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, rs.map((r) => h('tr', { 'data-run': r.id },
              h('td', {}, '#' + r.id),
              h('td', {}, r.hostname || '–'),
              h('td', {}, SL.runStarted(r)),
              h('td', { class: 'num' }, r.end_wall || r.end_ns ? (SL.runSeconds(r) === null ? 'unknown' : SL.dur(SL.runSeconds(r))) : 'running'),
              h('td', { class: 'num' }, SL.si(r.events)),
              h('td', { class: 'num' + (r.lost_events ? ' warn' : '') }, SL.num(r.lost_events || 0)),
              h('td', {}, r.has_gaps ? h('span', { class: 'warn' }, 'yes') : 'no'),
              h('td', { class: 'num' }, SL.num(r.dropped_rows || 0)),
              h('td', {}, r.source || '–'),
              h('td', {}, r.preempt_mode || '–'),
              varied.length ? h('td', { class: 'params', title: allParams(r) }, varied.map((k) => `${k}=${paramOf(r, k)}`).join(' ')) : null,
              h('td', {}, h('a', { href: SL.link('topology', { run: r.id }) }, 'heatmap'), ' · ',
                h('a', { href: SL.link('lhp', { run: r.id }) }, 'LHP')))))), 'runs of kernel ' + k),
        ], 'runs-group');
      });
    });
  };
})(window.SL);
