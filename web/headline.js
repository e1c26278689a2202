// SPDX-License-Identifier: GPL-2.0-only
// The headline of a comparison, shared by Compare and Overview: its verdict in words, the
// few flagged findings that matter most (by verdict, then severity), then any unconfirmed
// changes (inconclusive, significant alone, not after adjustment), with their values in
// units and their relative change, and a diagnosis line from the findings themselves (the
// policy fingerprint shift, the LHP cost ratio). The full findings table follows it, with
// the unchanged (equivalent) metrics collapsed behind a toggle.
'use strict';
(function (SL) {
  const h = SL.h;
  const FLAGGED = ['regression', 'improvement', 'change'];
  const RANK = { regression: 0, improvement: 1, change: 2, inconclusive: 3 };
  const HEADLINE_MAX = 5;
  // largest change over its margin first
  const bySeverity = (a, b) => (b.severity || 0) - (a.severity || 0);
  // "95%", "98.75%": an interval level as the page says it
  const levelText = (level) => `${+(100 * (level || 0.95)).toFixed(2)}%`;
  const POLICY_NAMES = { prev_idle: 'prev-if-idle', affine: 'affine', llc_scan: 'llc-scan', buddy: 'buddy', smt_first: 'idle-core-first' };

  SL.isFlagged = (f) => FLAGGED.includes(f.verdict);
  // an unconfirmed change (docs/statistics.md): a headline metric past its margin whose
  // interval excludes 0, inconclusive only after its family's adjustment: what an
  // inconclusive comparison most likely hides. lib decides it; every finding the API
  // serves carries it.
  SL.isUnconfirmed = (f) => f.unconfirmed === true;
  // unchanged: behind the toggle (no_change: comparisons stored before schema 8)
  SL.isUnchanged = (f) => ['equivalent', 'no_change', 'insufficient_data'].includes(f.verdict);

  const VERDICT_TEXT = {
    regression: 'Regression: the candidate is worse',
    improvement: 'Improvement: the candidate is better',
    change: 'Change: the candidate places or preempts differently, neither better nor worse by itself',
    inconclusive: 'Inconclusive: the runs vary too much to tell',
    equivalent: 'Equivalent: nothing changed beyond the metrics\' floors',
    no_change: 'No change',
    insufficient_data: 'Insufficient data: too few windows on a side to compare',
  };
  SL.verdictText = (v) => VERDICT_TEXT[v] || String(v || '–').replace(/_/g, ' ');

  const val = (f, k) => SL.pick(f, k + '_value', k);
  // a finding's unit: the compare response carries it, /findings does not (the metric table does)
  const unitOf = (f, M) => f.unit || (M && M[f.metric] ? M[f.metric].unit : '');
  SL.findingUnit = unitOf;
  const groupName = (g) => (g === '*' ? 'all tasks' : g);

  // flagged findings, most severe first: regressions, improvements, changes, each by severity
  SL.rankFindings = (fs) => fs.filter(SL.isFlagged).slice().sort((a, b) =>
    (RANK[a.verdict] - RANK[b.verdict]) || ((b.severity || 0) - (a.severity || 0)) ||
    (Math.abs(b.rel_change || 0) - Math.abs(a.rel_change || 0)));

  // "policy fingerprint: llc-scan 100% -> 67%, buddy 77% -> 100%; LHP cost 3.3x (1.24 -> 4.04 ms/s)"
  // from the findings of one group, or null when they hold neither
  SL.diagnosis = function diagnosis(all, M) {
    // one group's findings: the group of the most severe finding when several are mixed
    const groups = new Set(all.map((f) => f.group));
    const top = SL.rankFindings(all)[0];
    const group = groups.size > 1 && top ? top.group : null;
    const fs = group === null ? all : all.filter((f) => f.group === group);
    const parts = [];
    const pol = fs.filter((f) => /^policy_.*_share$/.test(f.metric) && SL.isFlagged(f) &&
      val(f, 'baseline') !== null && val(f, 'candidate') !== null)
      .sort((a, b) => Math.abs(val(b, 'candidate') - val(b, 'baseline')) - Math.abs(val(a, 'candidate') - val(a, 'baseline')))
      .slice(0, 3);
    if (pol.length)
      parts.push(h('span', { class: 'diag-policy' }, 'policy fingerprint: ', pol.map((f, i) => {
        const p = f.metric.replace(/^policy_|_share$/g, '');
        return [i ? ', ' : '', h('strong', {}, POLICY_NAMES[p] || p), ` ${SL.pct(val(f, 'baseline'), 0)} → ${SL.pct(val(f, 'candidate'), 0)}`];
      })));
    const lhp = fs.find((f) => f.metric === 'lhp_cost' && val(f, 'baseline') > 0 && val(f, 'candidate') !== null);
    if (lhp) {
      const r = val(lhp, 'candidate') / val(lhp, 'baseline'), u = unitOf(lhp, M);
      parts.push(h('span', { class: 'diag-lhp' }, 'LHP cost ', h('strong', {}, `${SL.num(r, r >= 10 ? 0 : 1)}×`),
        ` the baseline's (${SL.fmtValue(val(lhp, 'baseline'), u)} → ${SL.fmtValue(val(lhp, 'candidate'), u)})`));
    }
    if (!parts.length) return null;
    return h('p', { class: 'diagnosis' }, h('span', { class: 'muted' }, group === null ? 'Diagnosis: ' : ['Diagnosis for ', h('code', {}, groupName(group)), ': ']),
      parts.map((p, i) => [i ? '; ' : '', p]));
  };

  // ctx (optional): the comparison's runs and range, for each finding's evidence control
  function findingLine(f, M, ctx) {
    const u = unitOf(f, M);
    const kind = SL.isUnconfirmed(f) ? 'unconfirmed' : f.verdict;
    return h('li', { class: 'headline-finding hl-' + kind, 'data-metric': f.metric, 'data-group': f.group },
      SL.verdictBadge(kind), ' ',
      h('span', { class: 'hf-metric' }, f.metric.replace(/_/g, ' '), ' of ', h('code', {}, groupName(f.group))), ' ',
      h('span', { class: 'hf-values' }, `${SL.fmtValue(val(f, 'baseline'), u)} → ${SL.fmtValue(val(f, 'candidate'), u)}`), ' ',
      h('span', { class: 'hf-rel' }, `(${SL.fmtRel(f.rel_change)}${u === '%' ? ', ' + SL.fmtDelta(val(f, 'candidate') - val(f, 'baseline'), u) : ''})`),
      ctx ? [' ', SL.evidenceButton(f, ctx, 'li')] : null);
  }

  // verdict: the comparison's; fs: its findings (of the groups shown); M: the metric table;
  // opts.title: what was compared, opts.note: a sentence after the verdict, opts.ctx: the
  // runs and range for the findings' evidence (SL.drilldown), opts.level: the comparison's
  // interval level (params.ci_level; 0.95 without), opts.fdr: the false discovery rate of
  // its unconfirmed changes (params.unconfirmed_fdr)
  SL.headline = function headline(verdict, fs, M, opts = {}) {
    // the flagged findings first, then (room left) the unconfirmed changes, largest first
    const unconfirmed = fs.filter(SL.isUnconfirmed).sort(bySeverity);
    const ranked = SL.rankFindings(fs);
    const top = ranked.concat(unconfirmed).slice(0, HEADLINE_MAX);
    const flagged = ranked.length;
    const unchanged = fs.filter(SL.isUnchanged).length;
    const inconclusive = fs.filter((f) => f.verdict === 'inconclusive').length;
    const counts = [flagged ? `${flagged} flagged` : 'nothing flagged',
      unconfirmed.length ? `${unconfirmed.length} unconfirmed` : null,
      inconclusive ? `${inconclusive} inconclusive` : null, unchanged ? `${unchanged} unchanged` : null].filter(Boolean).join(', ');
    // what they are and the error rate they come with: the interval at the comparison's
    // level (`lab ab` spends it over its looks), the false discovery rate lib lists them at
    const fdr = opts.fdr ? `${SL.num(100 * opts.fdr, 2)}%` : null;
    const unconfirmedNote = unconfirmed.length ? h('p', { class: 'headline-unconfirmed muted' },
      `Unconfirmed: moved past the margin with a ${levelText(opts.level)} interval clear of 0, ` +
      (fdr ? `a discovery at a ${fdr} false discovery rate but not significant after the family-wise adjustment; ` +
        `with nothing changed, a comparison lists any with chance of about ${fdr}.` :
        'not significant after the family-wise adjustment.') + ' More runs a side would tell.') : null;
    return h('section', { class: 'headline hl-' + (verdict || 'none'), 'data-verdict': verdict || '', 'aria-label': 'headline' },
      h('p', { class: 'headline-verdict' }, SL.verdictBadge(verdict), ' ', h('strong', {}, SL.verdictText(verdict)),
        opts.title ? [' · ', opts.title] : null, h('span', { class: 'muted' }, ` · ${counts}`)),
      opts.note ? h('p', { class: 'headline-note' }, opts.note) : null,
      top.length ? h('ol', { class: 'headline-findings' }, top.map((f) => findingLine(f, M, opts.ctx))) : null,
      unconfirmedNote,
      SL.diagnosis(fs, M));
  };

  // The findings table: flagged rows, the unconfirmed ones (largest first), the other
  // inconclusive ones, then the unchanged ones behind a toggle (closed by default); ctx as
  // for SL.headline, level the comparison's interval level (default 0.95)
  SL.findingsBlock = function findingsBlock(fs, M, ctx, level) {
    const shown = SL.rankFindings(fs)
      .concat(fs.filter(SL.isUnconfirmed).sort(bySeverity))
      .concat(fs.filter((f) => f.verdict === 'inconclusive' && !SL.isUnconfirmed(f)));
    const rest = fs.filter(SL.isUnchanged);
    return [
      shown.length ? SL.findingsTable(shown, M, ctx, level) : h('p', { class: 'muted' }, 'No metric flagged.'),
      rest.length ? h('details', { class: 'unchanged' },
        h('summary', {}, `${rest.length} unchanged metric${rest.length > 1 ? 's' : ''} (equivalent or too little data)`),
        SL.findingsTable(rest, M, ctx, level)) : null,
    ];
  };

  // The findings table shared by the overview and the compare view; M (the metric table)
  // supplies units the rows lack; in its own scroller (nine columns are wider than 800 px);
  // with ctx (the runs and range, SL.drilldown) a last column holds each row's evidence
  // control. The intervals are at the comparison's level; p is adjusted within its family
  // (Holm for the headline metrics, Benjamini-Hochberg for the rest).
  SL.findingsTable = function findingsTable(rows, M, ctx, level) {
    const heads = ['Verdict', 'Group', 'Metric', 'Baseline', 'Candidate', 'Change', `${levelText(level)} CI of Δ`, 'p (adjusted)', 'Explanation'];
    const title = { 'p (adjusted)': 'adjusted within the family: Holm for headline metrics, Benjamini-Hochberg for the others' };
    return SL.scroll(h('table', { class: 'findings' },
      h('thead', {}, h('tr', {}, heads.concat(ctx ? ['Evidence'] : [])
        .map((t) => h('th', title[t] ? { scope: 'col', title: title[t] } : { scope: 'col' }, t)))),
      h('tbody', {}, rows.map((f) => {
        const u = unitOf(f, M);
        return h('tr', { class: 'finding v-' + f.verdict + (SL.isUnconfirmed(f) ? ' unconfirmed' : ''), 'data-metric': f.metric, 'data-group': f.group },
          h('td', { class: 'verdicts' }, SL.verdictBadge(f.verdict), SL.isUnconfirmed(f) ? [' ', SL.verdictBadge('unconfirmed')] : null),
          h('td', {}, h('code', {}, f.group)),
          h('td', { class: 'metric' }, f.metric.replace(/_/g, ' ')),
          h('td', { class: 'num' }, SL.fmtValue(val(f, 'baseline'), u)),
          h('td', { class: 'num' }, SL.fmtValue(val(f, 'candidate'), u)),
          h('td', { class: 'num' }, SL.fmtRel(f.rel_change)),
          h('td', { class: 'num ci' }, f.ci_low === null || f.ci_low === undefined ? '–' :
            [h('span', {}, SL.fmtDelta(f.ci_low, u)), ' … ', h('span', {}, SL.fmtDelta(f.ci_high, u))]),
          h('td', { class: 'num' }, f.p_adjusted === null || f.p_adjusted === undefined ? '–' :
            f.p_adjusted < 0.001 ? '< 0.001' : SL.num(f.p_adjusted, 3)),
          h('td', { class: 'expl' }, SL.fixUnits(f.explanation)),
          ctx ? h('td', {}, SL.evidenceButton(f, ctx, 'tr')) : null);
      }))), 'findings');
  };
})(window.SL);
