// SPDX-License-Identifier: GPL-2.0-only
// Overview: this host (kernel, topology, uptime, events/s, lost events), the latest run
// and the latest findings with their verdicts. Four small API calls, none over windows,
// so it stays fast however many days of windows the database holds.
'use strict';
(function (SL) {
  const h = SL.h;

  SL.topoSummary = function topoSummary(cpus) {
    const on = cpus.filter((c) => c.online !== false);
    const uniq = (k) => new Set(on.map((c) => c[k])).size;
    const cores = uniq('core');
    return { cpus: cpus.length, online: on.length, packages: uniq('package'), llcs: uniq('llc'), cores,
      smt: cores ? Math.round(on.length / cores) : 1, nodes: uniq('node') };
  };

  function kv(pairs) {
    return h('dl', { class: 'kv' }, pairs.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  }

  SL.views.overview = async function overview(main, params, signal) {
    main.appendChild(h('h1', {}, 'Overview'));
    const grid = h('div', { class: 'grid' });
    main.appendChild(grid);
    const hostCard = h('div'), runCard = h('div'), findCard = h('div');
    grid.appendChild(SL.card('This host', hostCard));
    grid.appendChild(SL.card('Latest run', runCard));
    main.appendChild(SL.card('Latest findings', findCard, 'wide'));

    // the first overview of a page load shares the header's request; later ones refresh
    const status = SL.overviewShown ? SL.api('status', {}, signal) : SL.status();
    SL.overviewShown = true;
    const topo = SL.api('topology', {}, signal);
    const runs = SL.api('runs', { limit: 20 }, signal);
    const finds = SL.api('findings', { limit: 5 }, signal);

    await Promise.all([
      SL.section(hostCard, 'host', async () => {
        const st = await status;
        let t = null;
        try { t = SL.topoSummary((await topo).topology.cpus || []); } catch (e) { if (e.name === 'AbortError') throw e; }
        return kv([
          ['Host', st.hostname || '–'],
          ['Kernel', h('code', {}, st.kernel_release || '–')],
          ['Topology', t ? `${t.online} CPUs: ${t.packages} package${t.packages > 1 ? 's' : ''} × ${t.llcs / t.packages} LLC × ${t.cores / t.llcs} cores × ${t.smt} SMT` : 'unknown'],
          ['Daemon', `${st.state || '–'}, up ${SL.dur(st.uptime_s)}, version ${st.version || '–'}`],
          ['Events/s', SL.si(st.events_per_s)],
          ['Lost events', h('span', { class: st.lost_events ? 'warn' : '' }, SL.num(st.lost_events || 0) +
            (st.gaps ? ` · ${SL.num(st.gaps)} gap${st.gaps > 1 ? 's' : ''}` : ''))],
          ['Dropped rows', SL.num(st.dropped_rows || 0)],
          ['Database', st.db ? `${st.db.path || ''} (${SL.si(st.db.bytes)}B)` : '–'],
        ]);
      }),
      SL.section(runCard, 'run', async () => {
        const st = await status;
        const list = (await runs).runs || [];
        const r = list.find((x) => x.id === st.run_id) || list[0];
        if (!r) return SL.empty('No runs yet', 'Start schedlensd with recording, or run `schedlens record -o DB`.');
        const secs = SL.runSeconds(r);
        return [kv([
          ['Run', h('a', { href: SL.link('lhp', { run: r.id }) }, '#' + r.id), r.id === st.run_id ? ' (recording)' : ''],
          ['Kernel', h('code', {}, r.kernel_release)],
          ['Label', r.label || '–'],
          ['Started', SL.runStarted(r)],
          ['Duration', SL.dur(secs)],
          ['Events', SL.si(r.events)],
          ['Lost / gaps', `${SL.num(r.lost_events || 0)} / ${r.has_gaps ? 'yes' : 'no'}`],
        ]), h('p', {}, h('a', { href: SL.link('topology', { run: r.id }) }, 'Heatmap of this run'), ' · ',
          h('a', { href: SL.link('runs') }, list.length >= 20 ? 'all 20+ runs' : list.length > 1 ? `all ${list.length} runs` : 'all runs'))];
      }),
      SL.section(findCard, 'findings', async () => {
        const f = await finds;
        const M = await SL.metricTable(signal);
        const comps = f.comparisons || [];
        if (!comps.length) return SL.empty('No comparisons yet', 'Compare two kernels in the Compare view, or wait for the daemon to compare a newly booted kernel.');
        const rowsOf = (c) => (f.findings || []).filter((x) => x.comparison_id === c.id);
        const sides = (c) => [h('code', {}, c.baseline), ' → ', h('code', {}, c.candidate)];
        const open = (c) => h('a', { class: 'open-compare', href: SL.link('compare', { baseline: sideParam(c.baseline), candidate: sideParam(c.candidate) }) }, 'Open in Compare');
        // the newest comparison that flagged something leads; when the newest flagged
        // nothing, the page says so first instead of leading with it
        const newest = comps[0];
        const lead = comps.find((c) => SL.isFlagged(c) || rowsOf(c).some(SL.isFlagged));
        const out = [];
        if (newest !== lead)
          out.push(h('p', { class: 'newest-unchanged' }, 'The newest comparison, ', sides(newest),
            ` (${SL.wall(newest.created_wall)}), flagged nothing (`, SL.verdictBadge(newest.verdict), '). ', open(newest),
            lead ? '' : ' No recent comparison flagged anything.'));
        if (lead) {
          const ctx = evidenceContext(lead, signal);
          out.push(h('div', { class: 'comparison lead', 'data-comparison': lead.id },
            SL.headline(lead.verdict, rowsOf(lead), M, { title: [sides(lead), h('span', { class: 'muted' }, ' · ' + SL.wall(lead.created_wall))], ctx, level: lead.ci_level, fdr: lead.unconfirmed_fdr }),
            lead.summary ? h('p', { class: 'muted' }, SL.fixUnits(lead.summary)) : null,
            h('details', { class: 'flagged-all' }, h('summary', {}, `All ${rowsOf(lead).filter(SL.isFlagged).length} flagged findings`),
              SL.findingsTable(SL.rankFindings(rowsOf(lead)), M, ctx, lead.ci_level)),
            h('p', {}, open(lead))));
        }
        const others = comps.filter((c) => c !== lead && c !== newest);
        if (others.length)
          out.push(h('details', { class: 'other-comparisons' }, h('summary', {}, `${others.length} other recent comparison${others.length > 1 ? 's' : ''}`),
            h('ul', {}, others.map((c) => h('li', { class: 'comparison', 'data-comparison': c.id }, SL.verdictBadge(c.verdict), ' ', sides(c),
              h('span', { class: 'muted' }, ' · ' + SL.wall(c.created_wall)), ' · ', open(c))))));
        return out;
      }),
    ]);
  };

  // The evidence of a stored comparison's findings (SL.drilldown): the runs its sides name
  // ("kernel=3.6 runs=3,4"), asked of the daemon when a finding's evidence is first opened,
  // so the overview makes no call for them; over whole runs, as the comparison was
  function evidenceContext(c, signal) {
    let runs = null;
    const ids = (desc) => ((/runs=([\d,]+)/.exec(desc || '') || [])[1] || '').split(',').filter(Boolean);
    return {
      range: { from: null, to: null },
      get runs() {
        if (!runs) {
          runs = Promise.all(['baseline', 'candidate'].map((s) => Promise.all(ids(c[s]).map((id) => SL.api(`runs/${id}`, {}, signal)))))
            .then(([baseline, candidate]) => ({ baseline, candidate }))
            .catch((e) => { runs = null; throw e; });
        }
        return runs;
      },
    };
  }

  // "kernel=6.1.0-31 runs=1,2" (a comparison's description) -> "kernel:6.1.0-31"
  function sideParam(desc) {
    const k = /kernel=(\S+)/.exec(desc || '');
    if (k) return 'kernel:' + k[1];
    const r = /runs=([\d,]+)/.exec(desc || '');
    return r ? 'runs:' + r[1] : '';
  }
  SL.sideParam = sideParam;
})(window.SL);
