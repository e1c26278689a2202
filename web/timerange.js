// SPDX-License-Identifier: GPL-2.0-only
// The time range of the dashboard's time views (Compare's charts over time, Topology, LHP):
// kept in the URL as from= and to=, seconds since the run's start (every run of a view is
// drawn from its own start, so one range reads the same on each), set by dragging over a
// time chart (the brush), by the keyboard on a focused chart, or typed into the range form.
// Time charts of one view share a crosshair: pointing at one shows the same instant on all.
'use strict';
(function (SL) {
  const h = SL.h, s = SL.svg;

  // {from, to} in seconds from params (either may be null: open on that side); a bad or
  // empty range is no range, so a hand-edited URL shows the whole run instead of an error
  SL.rangeOf = function rangeOf(params) {
    const num = (v) => (v === undefined || v === null || v === '' || !Number.isFinite(Number(v)) ? null : Math.max(0, Number(v)));
    const from = num(params.from), to = num(params.to);
    if (from !== null && to !== null && to <= from) return { from: null, to: null };
    return { from, to };
  };
  SL.hasRange = (r) => r.from !== null || r.to !== null;
  // "5.0 s – 10 s", "start – 10 s", "0 s – 1 min"
  const at = (x) => (x === 0 ? '0 s' : SL.dur(x));
  SL.rangeText = (r) => `${r.from === null ? 'start' : at(r.from)} – ${r.to === null ? 'end' : at(r.to)}`;
  // seconds, rounded to what a person would type (ms), as URL text
  const secs = (x) => (x === null || x === undefined ? '' : String(+Math.max(0, x).toFixed(3)));
  SL.rangeParams = (r) => ({ from: secs(r.from), to: secs(r.to) });
  // The range as a run's API bounds (trace-clock ns): {from, to} with only those set
  // The step (ns) of /windows for about maxPoints points over secs, undefined when every
  // window fits. A step of whole 10-minute bins is read from the run's window_bins (schema 12)
  // instead of summing every 1 s window (2 s for 7 days): longer steps are rounded up to one.
  SL.windowStep = function windowStep(secs, maxPoints) {
    if (!(secs > maxPoints)) return undefined;
    const step = Math.ceil(secs / maxPoints);
    return (step > 600 ? Math.ceil(step / 600) * 600 : step) * 1e9;
  };

  SL.rangeQuery = function rangeQuery(r, startNs) {
    const q = {};
    if (r.from !== null) q.from = Math.round((startNs || 0) + r.from * 1e9);
    if (r.to !== null) q.to = Math.round((startNs || 0) + r.to * 1e9);
    return q;
  };

  // The trace-clock ns a run's "0 s" is: its start_ns, or for a run stored without one (an
  // import that kept no start) its first window's, asked of the daemon once per run
  const origins = new Map();
  SL.runOrigin = function runOrigin(run, signal) {
    if (run.start_ns) return Promise.resolve(run.start_ns);
    if (!origins.has(run.id))
      origins.set(run.id, SL.api(`runs/${run.id}`, {}, signal).then((d) => d.first_window_ns || 0)
        .catch((e) => { origins.delete(run.id); throw e; }));
    return origins.get(run.id);
  };

  // The keyboard's and typist's way to set the range (the brush's alternative): two inputs,
  // Apply (Enter in an input submits too) and Whole run. go(range) navigates.
  SL.rangeForm = function rangeForm(r, go, opts = {}) {
    const from = h('input', { name: 'from', type: 'number', min: 0, step: 'any', inputmode: 'decimal', size: 7,
      value: r.from === null ? '' : secs(r.from), placeholder: 'start', 'aria-describedby': 'range-help' });
    const to = h('input', { name: 'to', type: 'number', min: 0, step: 'any', inputmode: 'decimal', size: 7,
      value: r.to === null ? '' : secs(r.to), placeholder: 'end', 'aria-describedby': 'range-help' });
    const form = h('form', { class: 'pickers range-form', 'aria-label': 'time range', onsubmit: (e) => {
      e.preventDefault();
      const next = SL.rangeOf({ from: from.value, to: to.value });
      if ((from.value || to.value) && !SL.hasRange(next)) {
        to.setCustomValidity('"to" must be after "from"');
        to.reportValidity();
        return;
      }
      go(next);
    } },
    h('span', { class: 'range-label' }, opts.label || 'Time range'),
    h('label', {}, 'from (s) ', from), h('label', {}, 'to (s) ', to),
    h('button', { type: 'submit' }, 'Apply range'),
    h('button', { type: 'button', class: 'secondary', disabled: !SL.hasRange(r), onclick: () => go({ from: null, to: null }) }, 'Whole run'),
    h('span', { id: 'range-help', class: 'muted range-help' },
      opts.help || 'seconds from each run\'s start; or drag across a time chart, or focus it and use ← → and Enter'));
    to.addEventListener('input', () => to.setCustomValidity(''));
    return form;
  };

  // A group of time charts that share a crosshair: each chart registers its svg and its
  // geometry; pointing at one (or moving the keyboard cursor) draws the line on all.
  SL.timeGroup = function timeGroup() {
    const charts = [];
    return {
      add(c) { charts.push(c); },
      show(x) { for (const c of charts) c.cross(x); },
    };
  };

  // svg viewBox coordinates of a pointer event
  function toSvg(svg, evt) {
    const p = svg.createSVGPoint();
    p.x = evt.clientX; p.y = evt.clientY;
    const m = svg.getScreenCTM();
    return m ? p.matrixTransform(m.inverse()) : { x: 0, y: 0 };
  }

  // The pointed chart's values at x in the shared tooltip (g.valuesAt: [{name, colour, text}])
  const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  function readout(svg, g, x) {
    if (!g.valuesAt || x === null) { SL.tip(null); return; }
    SL.tip({ target: svg }, `<strong>${esc(g.fmt(x))}</strong>` + g.valuesAt(x).map((v) =>
      `<br><span class="swatch" style="--c:${esc(v.colour)}"></span>${esc(v.name)}: ${esc(v.text)}`).join(''));
  }

  // Brush, crosshair and keyboard on a time chart. g: {W, H, L, R, T, B, x0, x1, X, fmt,
  // valuesAt} (plot box, data domain, data -> svg x, x label, the values at x if any). opts.onBrush(a, b) gets a domain range;
  // opts.group is a SL.timeGroup. Keyboard: ← → move the cursor (Shift: 10 times farther),
  // Enter or Space marks one end then zooms to the other, Escape cancels.
  SL.timeInteract = function timeInteract(svg, g, opts) {
    const { W, H, L, R, T, B, x0, x1, X } = g;
    const inv = (px) => x0 + ((Math.min(Math.max(px, L), W - R) - L) / (W - L - R || 1)) * (x1 - x0);
    const line = s('line', { class: 'crosshair', y1: T, y2: H - B, visibility: 'hidden' });
    const label = s('text', { class: 'crosshair-lbl tick', y: T + 10, visibility: 'hidden' });
    const band = s('rect', { class: 'brush', y: T, height: H - T - B, visibility: 'hidden' });
    svg.append(band, line, label);
    let cursor = null; // domain x of the keyboard cursor
    let anchor = null; // domain x where a brush started (pointer or keyboard)

    const cross = (x) => {
      const vis = x === null || x < x0 || x > x1 ? 'hidden' : 'visible';
      line.setAttribute('visibility', vis);
      label.setAttribute('visibility', vis);
      if (vis === 'hidden') return;
      const px = X(x);
      line.setAttribute('x1', px); line.setAttribute('x2', px);
      label.setAttribute('x', px + (px > W - R - 60 ? -4 : 4));
      label.setAttribute('text-anchor', px > W - R - 60 ? 'end' : 'start');
      label.textContent = g.fmt(x);
    };
    const drawBand = (a, b) => {
      if (a === null) { band.setAttribute('visibility', 'hidden'); return; }
      const [lo, hi] = [Math.min(a, b), Math.max(a, b)];
      band.setAttribute('x', X(lo)); band.setAttribute('width', Math.max(X(hi) - X(lo), 1));
      band.setAttribute('visibility', 'visible');
    };
    const group = opts.group || SL.timeGroup();
    group.add({ cross });
    const zoom = (a, b) => {
      const [lo, hi] = [Math.min(a, b), Math.max(a, b)];
      // a click (or two presses on one spot) is not a range: only a visible width zooms
      if (X(hi) - X(lo) >= 3 && opts.onBrush) opts.onBrush(lo, hi);
    };

    if (opts.onBrush) svg.classList.add('brushable');
    svg.addEventListener('pointermove', (e) => {
      const x = inv(toSvg(svg, e).x);
      group.show(x);
      readout(svg, g, x);
      if (anchor !== null) drawBand(anchor, x);
    });
    svg.addEventListener('pointerleave', () => { if (anchor === null) group.show(null); SL.tip(null); });
    if (opts.onBrush) {
      svg.addEventListener('pointerdown', (e) => {
        if (e.button !== 0) return;
        anchor = inv(toSvg(svg, e).x);
        svg.setPointerCapture(e.pointerId);
        e.preventDefault();
      });
      svg.addEventListener('pointerup', (e) => {
        if (anchor === null) return;
        const a = anchor;
        anchor = null;
        drawBand(null);
        zoom(a, inv(toSvg(svg, e).x));
      });
    }

    // the keyboard: the chart is one tab stop; its help is its accessible description
    svg.setAttribute('tabindex', '0');
    svg.setAttribute('aria-roledescription', 'time chart');
    svg.setAttribute('aria-keyshortcuts', 'ArrowLeft ArrowRight Enter Space Escape');
    const live = opts.live; // a role=status element that reads the cursor out, if given
    const say = (t) => { if (live) live.textContent = t; };
    svg.addEventListener('focus', () => {
      if (cursor === null) cursor = x0;
      group.show(cursor);
      readout(svg, g, cursor);
      say(`cursor at ${g.fmt(cursor)}` + (opts.onBrush ? '; Enter marks the start of a range' : ''));
    });
    svg.addEventListener('blur', () => { group.show(null); SL.tip(null); anchor = null; drawBand(null); });
    svg.addEventListener('keydown', (e) => {
      const step = ((x1 - x0) / 50) * (e.shiftKey ? 10 : 1);
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
        cursor = Math.min(Math.max((cursor === null ? x0 : cursor) + (e.key === 'ArrowLeft' ? -step : step), x0), x1);
        group.show(cursor);
        readout(svg, g, cursor);
        if (anchor !== null) drawBand(anchor, cursor);
        say(`cursor at ${g.fmt(cursor)}`);
      } else if ((e.key === 'Enter' || e.key === ' ') && opts.onBrush) {
        if (anchor === null) {
          anchor = cursor === null ? x0 : cursor;
          drawBand(anchor, anchor);
          say(`range starts at ${g.fmt(anchor)}; move with ← → and press Enter to zoom, Escape to cancel`);
        } else {
          const a = anchor;
          anchor = null;
          drawBand(null);
          zoom(a, cursor);
        }
      } else if (e.key === 'Escape' && anchor !== null) {
        anchor = null;
        drawBand(null);
        say('range cancelled');
      } else {
        return;
      }
      e.preventDefault();
    });
  };
})(window.SL);
