// SPDX-License-Identifier: GPL-2.0-only
// Hand-written SVG charts of the dashboard: 100% stacked bars, time lines, histograms on a
// log axis, share bars. Each returns an element; colours come from the caller (Okabe-Ito
// palette in util.js) and every series also differs by dash or label, never colour alone.
'use strict';
(function (SL) {
  const NS = 'http://www.w3.org/2000/svg';
  function s(tag, attrs, ...kids) {
    const el = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, v);
    for (const k of kids.flat(Infinity)) {
      if (k === null || k === undefined || k === false) continue;
      el.appendChild(k instanceof Node ? k : document.createTextNode(String(k)));
    }
    return el;
  }
  SL.svg = s;

  function legend(items) {
    return SL.h('ul', { class: 'legend' }, items.map((it) => SL.h('li', {},
      SL.h('span', { class: 'swatch' + (it.dash ? ' dashed' : ''), style: `--c:${it.colour}`, 'data-colour': it.colour }), it.name)));
  }
  SL.legend = legend;

  // "nice" axis ticks covering lo..hi: the last tick is at or above hi, so nothing drawn
  // on the axis can reach above its top (a line once ran into the chart's title)
  function ticks(lo, hi, n) {
    if (!(hi > lo)) hi = lo + 1;
    const step0 = (hi - lo) / (n || 5);
    const mag = Math.pow(10, Math.floor(Math.log10(step0)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((x) => x >= step0 * (1 - 1e-9)) || step0;
    const out = [];
    const first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
    for (let i = first; i <= last; i++) out.push(+(i * step).toPrecision(12));
    return out;
  }
  SL.ticks = ticks;
  // Tick labels from fmt(v, digits) with the fewest digits that keep them all distinct
  // ("0.2, 0.1, 0.1, 0" was 0.15, 0.1, 0.05, 0 at one digit)
  const decimals = (v) => { const t = String(+v.toPrecision(12)); return t.includes('e') ? 6 : (t.split('.')[1] || '').length; };
  function tickLabels(vals, fmt) {
    let out = [];
    // at least the digits the ticks have (2.5 is not "3"), more if that is not enough
    for (let d = Math.min(6, Math.max(0, ...vals.map(decimals))); d <= 6; d++) {
      out = vals.map((v) => fmt(v, d));
      if (new Set(out).size === out.length) break;
    }
    return out;
  }
  SL.tickLabels = tickLabels;
  // One unit for every tick of a time axis (seconds), chosen by the largest, and ticks
  // nice in that unit: never "0 ms" beside "5.0 s", nor "14 h, 28 h" on a 2-day axis
  SL.durUnit = function durUnit(m) {
    return m < 1 ? [1e-3, ' ms'] : m < 120 ? [1, ' s'] : m < 7200 ? [60, ' min'] :
      m < 172800 ? [3600, ' h'] : [86400, ' d'];
  };
  // -> {at: positions in seconds, labels}
  function timeTicks(x0, x1, n) {
    const [div, u] = SL.durUnit(Math.max(Math.abs(x0), Math.abs(x1)));
    const vals = ticks(x0 / div, x1 / div, n).filter((t) => t >= x0 / div - 1e-9 && t <= x1 / div + 1e-9);
    return { at: vals.map((t) => t * div), labels: tickLabels(vals, (v, d) => SL.num(v, d) + u),
      fmt: (x) => SL.num(x / div, 2) + u };
  }
  // A value formatter for ticks: fmt(v, digits); a plain one-argument formatter gets the
  // digits ignored and is used as is
  const plainTick = (v, d) => SL.num(v, d);

  // rows: [{label, parts: {key: count}, note}] drawn as horizontal 100% bars
  SL.stackedBars = function stackedBars(rows, keys, colours, opts = {}) {
    const W = opts.width || 560, bh = 22, gap = 12, left = opts.left || 150, right = 10;
    const H = rows.length * (bh + gap) + 24;
    const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', class: 'chart', role: 'img',
      'aria-label': opts.title || 'stacked bars' });
    rows.forEach((r, i) => {
      const y = i * (bh + gap) + 4;
      const total = keys.reduce((a, k) => a + (r.parts[k] || 0), 0);
      svg.appendChild(s('text', { x: left - 8, y: y + bh / 2 + 4, 'text-anchor': 'end', class: 'lbl' }, r.label));
      let x = left;
      const w = W - left - right;
      if (!total) {
        svg.appendChild(s('text', { x: left, y: y + bh / 2 + 4, class: 'muted' }, 'no wakeups'));
        return;
      }
      for (const k of keys) {
        const v = r.parts[k] || 0;
        if (!v) continue;
        const ww = (v / total) * w;
        const share = (100 * v) / total;
        svg.appendChild(s('rect', { x, y, width: Math.max(ww, 0.5), height: bh, fill: colours[k], class: 'seg' },
          s('title', {}, `${r.label}: ${k} ${share.toFixed(1)}% (${SL.num(v)})`)));
        if (ww > 34) svg.appendChild(s('text', { x: x + ww / 2, y: y + bh / 2 + 4, 'text-anchor': 'middle',
          class: 'seg-lbl' + (k === 'package' || k === 'smt' ? ' dark' : '') }, share.toFixed(0) + '%'));
        x += ww;
      }
    });
    [0, 25, 50, 75, 100].forEach((p) => {
      const x = left + (p / 100) * (W - left - right);
      svg.appendChild(s('text', { x, y: H - 4, 'text-anchor': 'middle', class: 'tick' }, p + '%'));
    });
    return SL.h('figure', { class: 'fig' }, svg, legend(keys.map((k) => ({ name: k, colour: colours[k] }))));
  };

  // series: [{name, colour, dash, points: [[x, y], ...]}]; x in seconds (elapsed) unless
  // opts.xFmt says otherwise. Gaps (y null) break the line. opts.bands shade x spans. opts.xDomain [lo, hi] fixes the
  // x axis (a zoomed time range: points outside it are not drawn); opts.onBrush(lo, hi) and
  // opts.group (SL.timeGroup) make it a time chart one can zoom in and that shares a
  // crosshair (timerange.js).
  SL.lineChart = function lineChart(series, opts = {}) {
    const W = opts.width || 560, H = opts.height || 200, L = 52, R = 12, T = 10, B = 28;
    const ok = (y) => y !== null && y !== undefined && Number.isFinite(y);
    const dom = opts.xDomain;
    if (dom) series = series.map((se) => ({ ...se, points: se.points.filter((p) => p[0] >= dom[0] && p[0] <= dom[1]) }));
    const pts = series.flatMap((se) => se.points.filter((p) => ok(p[1])));
    const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', class: 'chart', role: 'img',
      'aria-label': opts.title || 'line chart' });
    if (!pts.length) {
      svg.appendChild(s('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'muted' }, 'no data'));
      return SL.h('figure', { class: 'fig' }, svg);
    }
    const x0 = dom ? dom[0] : Math.min(...pts.map((p) => p[0])), x1 = dom ? dom[1] : Math.max(...pts.map((p) => p[0]));
    let y1 = Math.max(...pts.map((p) => p[1]));
    if (opts.yMax !== undefined) y1 = Math.max(y1, opts.yMax);
    if (!(y1 > 0)) y1 = 1;
    const yt = ticks(0, y1 * 1.05, 4);
    y1 = yt[yt.length - 1];
    const X = (x) => L + ((x - x0) / (x1 - x0 || 1)) * (W - L - R);
    // clamped to the plot: a value can never be drawn above the top tick
    const Y = (y) => T + (1 - Math.min(Math.max(y / y1, 0), 1)) * (H - T - B);
    const yfmt = opts.yFmt || plainTick;
    // shaded x spans under everything else: [{from, to, cls}], null ends open
    for (const b of opts.bands || []) {
      const lo = X(Math.max(b.from || 0, x0)), hi = X(b.to === null || b.to === undefined ? x1 : Math.min(b.to, x1));
      svg.appendChild(s('rect', { class: 'band ' + b.cls, x: lo, width: Math.max(hi - lo, 1), y: T, height: H - T - B }));
    }
    const ylabels = tickLabels(yt, yfmt);
    yt.forEach((t, i) => {
      svg.appendChild(s('line', { x1: L, x2: W - R, y1: Y(t), y2: Y(t), class: 'grid' }));
      svg.appendChild(s('text', { x: L - 6, y: Y(t) + 4, 'text-anchor': 'end', class: 'tick y-tick' }, ylabels[i]));
    });
    const xt = opts.xFmt ? ticks(x0, x1, 5).filter((t) => t >= x0 - 1e-9 && t <= x1 + 1e-9) : null;
    const tt = opts.xFmt ? { at: xt, labels: tickLabels(xt, opts.xFmt), fmt: (x) => opts.xFmt(x, 2) } : timeTicks(x0, x1, 5);
    const xfmt = tt.fmt;
    tt.at.forEach((t, i) => svg.appendChild(s('text', { x: X(t), y: H - 8, 'text-anchor': 'middle', class: 'tick x-tick' }, tt.labels[i])));
    const pointFmt = (v) => yfmt(v, 2);
    for (const se of series) {
      let d = '', pen = false;
      for (const [x, y] of se.points) {
        if (!ok(y)) { pen = false; continue; }
        d += (pen ? 'L' : 'M') + X(x).toFixed(1) + ' ' + Y(y).toFixed(1);
        pen = true;
      }
      svg.appendChild(s('path', { d, fill: 'none', stroke: se.colour, 'stroke-width': 2,
        'stroke-dasharray': se.dash ? '6 4' : null, class: 'series' }, s('title', {}, se.name)));
      if (se.points.length < 60)
        for (const [x, y] of se.points) if (ok(y))
          svg.appendChild(s('circle', { cx: X(x), cy: Y(y), r: 2.5, fill: se.colour },
            s('title', {}, `${se.name}: ${pointFmt(y)} at ${xfmt(x)}`)));
    }
    // each series' value nearest to time x, for the crosshair's readout
    const valuesAt = (x) => series.map((se) => {
      let best = null;
      for (const p of se.points) if (ok(p[1]) && (!best || Math.abs(p[0] - x) < Math.abs(best[0] - x))) best = p;
      return { name: se.name, colour: se.colour, text: best ? pointFmt(best[1]) : '–' };
    });
    if (opts.onBrush || opts.group)
      SL.timeInteract(svg, { W, H, L, R, T, B, x0, x1, X, fmt: xfmt, valuesAt }, opts);
    return SL.h('figure', { class: 'fig' }, opts.yLabel ? SL.h('figcaption', {}, opts.yLabel) : null, svg,
      legend(series.map((se) => ({ name: se.name, colour: se.colour, dash: se.dash }))));
  };

  // A bucket's extent on the log axis. The first buckets are 1 µs wide from 0: [0, 1) is
  // drawn as [0.5, 1). The overflow bucket (hi null: no upper bound) is drawn one decade
  // wide from its lower bound and labelled as open-ended.
  function span([lo, hi]) {
    if (hi === null || hi === undefined) return [Math.max(lo, 0.5), Math.max(lo, 0.5) * 10];
    const hh = Math.max(hi, 1);
    return [Math.max(lo, hh / 2), hh];
  }

  // series: [{name, colour, dash, buckets: [[lo_us, hi_us|null, count]]}]: each drawn as a
  // step line of its share per bucket over a log10 x axis (1 µs .. 10 s)
  SL.histOverlay = function histOverlay(series, opts = {}) {
    const W = opts.width || 560, H = opts.height || 200, L = 48, R = 12, T = 10, B = 28;
    const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', class: 'chart', role: 'img',
      'aria-label': opts.title || 'latency histogram' });
    const all = series.flatMap((se) => se.buckets);
    if (!all.length) {
      svg.appendChild(s('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'muted' }, 'no latencies'));
      return SL.h('figure', { class: 'fig' }, svg);
    }
    // share per log-decade unit so buckets of different widths compare fairly
    const dens = series.map((se) => {
      const tot = se.buckets.reduce((a, b) => a + b[2], 0) || 1;
      return se.buckets.map((b) => {
        const [l, hh] = span(b);
        return [l, hh, (100 * b[2]) / tot / (Math.log10(hh) - Math.log10(l)), b[1] === null || b[1] === undefined, b[2]];
      });
    });
    const lo = Math.max(0.5, Math.min(...all.map((b) => span(b)[0])));
    const hi = Math.max(...all.map((b) => span(b)[1]));
    const lx0 = Math.floor(Math.log10(lo)), lx1 = Math.ceil(Math.log10(hi));
    const ymax = Math.max(...dens.flat().map((b) => b[2])) || 1;
    const yt = ticks(0, ymax * 1.05, 4), y1 = yt[yt.length - 1];
    const X = (v) => L + ((Math.log10(v) - lx0) / (lx1 - lx0 || 1)) * (W - L - R);
    const Y = (y) => T + (1 - Math.min(Math.max(y / y1, 0), 1)) * (H - T - B);
    const ylabels = tickLabels(yt, plainTick);
    yt.forEach((t, i) => {
      svg.appendChild(s('line', { x1: L, x2: W - R, y1: Y(t), y2: Y(t), class: 'grid' }));
      svg.appendChild(s('text', { x: L - 6, y: Y(t) + 4, 'text-anchor': 'end', class: 'tick y-tick' }, ylabels[i]));
    });
    for (let e = lx0; e <= lx1; e++) {
      const v = Math.pow(10, e);
      svg.appendChild(s('line', { x1: X(v), x2: X(v), y1: T, y2: H - B, class: 'grid' }));
      svg.appendChild(s('text', { x: X(v), y: H - 8, 'text-anchor': 'middle', class: 'tick' }, SL.usec(v * 1000)));
    }
    series.forEach((se, i) => {
      let d = '';
      for (const [l, hh, y, open] of dens[i]) {
        // the open-ended bucket: a separate dotted step, so it does not read as a measured width
        if (open) continue;
        d += `${d ? 'L' : 'M'}${X(l).toFixed(1)} ${Y(y).toFixed(1)}H${X(hh).toFixed(1)}`;
      }
      svg.appendChild(s('path', { d, fill: 'none', stroke: se.colour, 'stroke-width': 2,
        'stroke-dasharray': se.dash ? '6 4' : null, class: 'hist-step' }, s('title', {}, se.name)));
      for (const [l, hh, y, open, c] of dens[i]) if (open) {
        svg.appendChild(s('path', { d: `M${X(l).toFixed(1)} ${Y(y).toFixed(1)}H${X(hh).toFixed(1)}`, fill: 'none',
          stroke: se.colour, 'stroke-width': 2, 'stroke-dasharray': '1 3', class: 'overflow' },
        s('title', {}, `${se.name}: ${SL.num(c)} wakeups at ${SL.usec(l * 1000)} or more`)));
        svg.appendChild(s('text', { x: X(hh) - 2, y: Y(y) - 4, 'text-anchor': 'end', class: 'tick' }, '≥ ' + SL.usec(l * 1000)));
      }
    });
    return SL.h('figure', { class: 'fig' },
      SL.h('figcaption', {}, opts.caption || 'share of wakeups per decade of latency (%), log axis'), svg,
      legend(series.map((se) => ({ name: se.name, colour: se.colour, dash: se.dash }))));
  };

  // rows: [{label, value, text}] as horizontal bars, the figures under each bar (HTML:
  // wraps within a narrow card instead of overflowing it)
  SL.barList = function barList(rows, colour, opts = {}) {
    if (!rows.length) return SL.empty(opts.empty || 'nothing to show');
    const max = Math.max(...rows.map((r) => r.value)) || 1;
    return SL.h('table', { class: 'barlist' }, SL.h('tbody', {}, rows.map((r) =>
      SL.h('tr', {}, SL.h('th', { scope: 'row' }, r.label),
        SL.h('td', { class: 'bar-cell' },
          SL.h('span', { class: 'bar', style: `width:${Math.max((100 * r.value) / max, 0.5)}%;background:${colour}` }),
          SL.h('div', { class: 'bar-text' }, r.text))))));
  };

  // Sequential colour-blind-safe scale (viridis stops), t in [0, 1]
  const ramp = (stops) => function (t) {
    if (t === null || t === undefined || Number.isNaN(t)) return '#d9d9d9';
    t = Math.min(1, Math.max(0, t));
    const p = t * (stops.length - 1), i = Math.min(Math.floor(p), stops.length - 2), f = p - i;
    const a = stops[i], b = stops[i + 1];
    const c = [1, 3, 5].map((o) => Math.round(parseInt(a.substr(o, 2), 16) * (1 - f) + parseInt(b.substr(o, 2), 16) * f));
    return `rgb(${c.join(',')})`;
  };
  SL.viridis = ramp(['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725']);
  // Diverging scale for a difference, t = 0.5 at 0: the baseline's blue below (less in the
  // candidate), white at no change, the candidate's orange above (more)
  SL.diverging = ramp(['#0072B2', '#8fc1e3', '#ffffff', '#f2b27f', '#D55E00']);
})(window.SL);
