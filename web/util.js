// SPDX-License-Identifier: GPL-2.0-only
// Small helpers every view uses: building DOM nodes, formatting numbers and times, calling
// /api/v1 (with timing, so the page can say how long the data took), and the loading,
// empty and error panels. Plain script, no build step: it defines window.SL.
'use strict';
window.SL = window.SL || {};
window.SL.views = window.SL.views || {};
(function (SL) {
  // h('div', {class: 'x', onclick: f}, child, 'text', [more]) -> Element
  SL.h = function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'html') el.innerHTML = v;
      else el.setAttribute(k, v === true ? '' : v);
    }
    SL.append(el, kids);
    return el;
  };
  SL.append = function append(el, kids) {
    for (const k of kids.flat(Infinity)) {
      if (k === null || k === undefined || k === false) continue;
      el.appendChild(k instanceof Node ? k : document.createTextNode(String(k)));
    }
    return el;
  };
  SL.clear = (el) => { while (el.firstChild) el.removeChild(el.firstChild); return el; };

  // --- formatting ---------------------------------------------------------------------
  SL.num = function num(v, digits) {
    if (v === null || v === undefined || Number.isNaN(v)) return '–';
    if (typeof v !== 'number') return String(v);
    if (digits === undefined) digits = Math.abs(v) >= 100 || Number.isInteger(v) ? 0 : 2;
    return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  };
  SL.si = function si(v) {
    if (v === null || v === undefined || Number.isNaN(v)) return '–';
    const a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toFixed(1) + ' G';
    if (a >= 1e6) return (v / 1e6).toFixed(1) + ' M';
    if (a >= 1e4) return (v / 1e3).toFixed(1) + ' k';
    return SL.num(v, a < 10 ? 2 : 0);
  };
  SL.pct = (v, d = 1) => (v === null || v === undefined || Number.isNaN(v) ? '–' : v.toFixed(d) + '%');
  SL.ratioPct = (a, b) => (b > 0 ? (100 * a) / b : null);
  SL.dur = function dur(s) {
    if (s === null || s === undefined || Number.isNaN(s)) return '–';
    if (s < 1) return (s * 1000).toFixed(0) + ' ms';
    if (s < 120) return s.toFixed(s < 10 ? 1 : 0) + ' s';
    if (s < 7200) return (s / 60).toFixed(0) + ' min';
    if (s < 172800) return (s / 3600).toFixed(1) + ' h';
    return (s / 86400).toFixed(1) + ' d';
  };
  // n significant digits, trailing zeros dropped: 5.04, 118, 1.5, 10
  const sig = (v, n) => String(+v.toPrecision(n || 3));
  // ns -> "5.04 µs", "118 µs", "158 ms", "10 s": the unit chosen by magnitude, one style
  // ("µs", never "us") everywhere the dashboard shows a latency or a cost
  SL.usec = function usec(ns) {
    if (ns === null || ns === undefined || Number.isNaN(ns)) return '–';
    const a = Math.abs(ns);
    if (a < 1e6) return sig(ns / 1e3) + ' µs';
    if (a < 1e9) return sig(ns / 1e6) + ' ms';
    return sig(ns / 1e9) + ' s';
  };
  // A metric value in its unit (lib/common/metrics.c: "%", "us", "/s", "ms/s"), scaled by magnitude:
  // p99 157696 "us" -> "158 ms", lhp_cost 0.004 "ms/s" -> "4 µs/s", 48958 "/s" -> "49 k/s"
  SL.fmtValue = function fmtValue(v, unit) {
    if (v === null || v === undefined || Number.isNaN(v)) return '–';
    if (unit === '%') return SL.pct(v);
    if (unit === 'us') return SL.usec(v * 1e3);
    if (unit === 'ms/s') return v === 0 ? '0 ms/s' : SL.usec(v * 1e6) + '/s';
    if (unit === '/s') return (Math.abs(v) >= 1e4 ? SL.si(v) : sig(v)) + '/s';
    return SL.num(v, 2) + (unit ? ' ' + unit : '');
  };
  // A difference in the metric's unit: shares in percentage points
  SL.fmtDelta = function fmtDelta(v, unit) {
    if (v === null || v === undefined || Number.isNaN(v)) return '–';
    const sign = v > 0 ? '+' : v < 0 ? '−' : '';
    return sign + (unit === '%' ? SL.num(Math.abs(v), 1) + ' pts' : SL.fmtValue(Math.abs(v), unit));
  };
  SL.fmtRel = (r) => (r === null || r === undefined || Number.isNaN(r) ? '–' :
    (r > 0 ? '+' : r < 0 ? '−' : '') + SL.num(Math.abs(100 * r), 1) + '%');
  // The comparison's explanations come from lib/common/metrics.c, whose CLI text writes "us"
  SL.fixUnits = (text) => String(text || '').replace(/(\d) us\b/g, '$1 µs');
  // Unix ns (a *_wall column) -> "2026-12-03 06:52"
  SL.wall = function wall(ns) {
    if (!ns) return '–';
    const d = new Date(ns / 1e6);
    const p = (x) => String(x).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
  };
  // first present field of obj among names (the API's names are matched in one place)
  SL.pick = function pick(obj, ...names) {
    if (!obj) return undefined;
    for (const n of names) if (obj[n] !== undefined && obj[n] !== null) return obj[n];
    return undefined;
  };

  // --- the API ------------------------------------------------------------------------
  SL.timings = []; // {path, ms, status} of this page's calls, newest last
  // The bearer token, when the daemon wants one (--token-file): asked once in a form, kept in
  // sessionStorage (this tab only, gone when it closes), sent as a header, never in a URL.
  const TOKEN_KEY = 'schedlens.token';
  const token = () => { try { return sessionStorage.getItem(TOKEN_KEY); } catch (e) { return null; } };
  // the token for a request made outside SL.api (the trace slice's download), or null
  SL.authToken = () => token() || SL.sessionToken || null;
  let asking = null; // one form for every call that got a 401
  SL.askToken = function askToken(refused) {
    if (asking) return asking;
    asking = new Promise((resolve) => {
      const input = SL.h('input', { id: 'sl-token', type: 'password', name: 'token', autocomplete: 'current-password', required: true, minlength: 16, spellcheck: 'false' });
      const form = SL.h('form', { class: 'auth-form' },
        SL.h('h2', { id: 'sl-token-title' }, 'This schedlensd needs a token'),
        SL.h('p', { id: 'sl-token-help' }, refused
          ? 'The daemon refused that token. Enter the one in its --token-file.'
          : 'Enter the token from the daemon\'s --token-file. It is kept for this tab only.'),
        SL.h('label', { for: 'sl-token' }, 'Token'), input,
        SL.h('button', { type: 'submit' }, 'Use token'));
      const box = SL.h('div', { class: 'auth', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'sl-token-title', 'aria-describedby': 'sl-token-help' }, form);
      form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const v = input.value.trim();
        if (!v) return;
        try { sessionStorage.setItem(TOKEN_KEY, v); } catch (e) { /* storage off: this page only */ }
        SL.sessionToken = v;
        box.remove();
        asking = null;
        resolve(v);
      });
      document.body.appendChild(box);
      input.focus();
    });
    return asking;
  };
  SL.api = async function api(path, params, signal) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {}))
      if (v !== undefined && v !== null && v !== '') q.set(k, v);
    const url = '/api/v1/' + path + (q.toString() ? '?' + q : '');
    let res, ms;
    for (let attempt = 0; ; attempt++) {
      const headers = { Accept: 'application/json' };
      const t = token() || SL.sessionToken;
      if (t) headers.Authorization = 'Bearer ' + t;
      const t0 = performance.now();
      try {
        res = await fetch(url, { signal, headers });
      } catch (e) {
        if (e.name === 'AbortError') throw e;
        throw new SL.ApiError(url, 0, 'the daemon did not answer (' + e.message + ')');
      }
      ms = performance.now() - t0;
      if (res.status !== 401 || attempt === 3) break;
      // a token another call already replaced: retry with it before asking
      const now = token() || SL.sessionToken;
      if (!now || now === t) {
        if (t) { try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* */ } SL.sessionToken = null; }
        await SL.askToken(!!t);
      }
    }
    SL.timings.push({ path: url, ms, status: res.status });
    if (SL.timings.length > 50) SL.timings.shift();
    let body = null;
    try { body = await res.json(); } catch (e) { /* empty or not JSON */ }
    if (!res.ok) {
      const msg = body && body.error ? body.error.message || JSON.stringify(body.error) : res.statusText;
      throw new SL.ApiError(url, res.status, msg);
    }
    return body;
  };
  // /api/v1/status once per page load: the header and the overview both show it
  let statusOnce = null;
  SL.status = function status(signal) {
    if (!statusOnce) statusOnce = SL.api('status', {}, signal).catch((e) => { statusOnce = null; throw e; });
    return statusOnce;
  };
  // The comparison's metric table (/api/v1/metrics, lib/common/metrics.c) once per page load, by
  // name: every metric value shown is computed from it, so it divides by what diff does.
  let metricsOnce = null;
  SL.metricTable = function metricTable(signal) {
    if (!metricsOnce) {
      metricsOnce = SL.api('metrics', {}, signal)
        .then((b) => Object.fromEntries(b.metrics.map((m) => [m.name, m])))
        .catch((e) => { metricsOnce = null; throw e; });
    }
    return metricsOnce;
  };
  // Metric m's value from summed window columns, get(column) -> number (quantiles: null).
  SL.metricValue = function metricValue(m, get) {
    const add = (cols) => cols.reduce((a, k) => a + (get(k) || 0), 0);
    if (m.kind === 'share') return SL.ratioPct(add(m.num), add(m.den));
    if (m.kind === 'rate') {
      const s = add(m.den) / 1e9;
      return s > 0 ? (add(m.num) * m.scale) / s : null;
    }
    return null;
  };
  SL.ApiError = class ApiError extends Error {
    constructor(url, status, msg) {
      super(msg);
      this.url = url;
      this.status = status;
    }
  };

  // --- states -------------------------------------------------------------------------
  SL.loading = (what) => SL.h('div', { class: 'state loading', role: 'status' },
    SL.h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Loading ' + (what || '') + '…');
  SL.empty = (msg, hint) => SL.h('div', { class: 'state empty', role: 'status' },
    SL.h('strong', {}, msg), hint ? SL.h('p', {}, hint) : null);
  SL.error = (e) => SL.h('div', { class: 'state error', role: 'alert' },
    SL.h('strong', {}, 'Could not load: '), e.message || String(e),
    e.url ? SL.h('div', { class: 'muted' }, (e.status ? 'HTTP ' + e.status + ' from ' : '') + e.url) : null);

  // Fill el with a loading panel, run f(); f returns nodes or throws.
  SL.section = async function section(el, what, f) {
    SL.clear(el).appendChild(SL.loading(what));
    try {
      const kids = await f();
      SL.clear(el);
      SL.append(el, [kids]);
    } catch (e) {
      if (e.name === 'AbortError') return;
      SL.clear(el).appendChild(SL.error(e));
    }
  };
  // A table in its own horizontal scroller, so a wide table never widens the page (at 800
  // px); app.js makes the scroller a tab stop when it does scroll, for the keyboard
  SL.scroll = (table, label) => SL.h('div', { class: 'table-scroll', role: 'region', 'aria-label': label || 'table' }, table);
  SL.card = (title, body, extra) => SL.h('section', { class: 'card' + (extra ? ' ' + extra : '') },
    title ? SL.h('h2', {}, title) : null, body);

  SL.verdictBadge = (v) => SL.h('span', { class: 'verdict v-' + (v || 'none') }, (v || '–').replace(/_/g, ' '));

  // Relation and palette names shared by the charts (Okabe-Ito, colour-blind safe).
  SL.RELATIONS = ['same', 'smt', 'llc', 'package', 'remote', 'unknown'];
  SL.REL_COLOURS = { same: '#0072B2', smt: '#56B4E9', llc: '#009E73', package: '#F0E442', remote: '#D55E00', unknown: '#999999' };
  SL.SIDE_COLOURS = { baseline: '#0072B2', candidate: '#D55E00' };
  // The i-th run of a side: shades of the side's colour (blues for the baseline, oranges
  // for the candidate), so six runs of a side are six distinguishable swatches
  const SIDE_SHADES = {
    baseline: ['#0072B2', '#56B4E9', '#003f66', '#009E73', '#7fb8d8', '#1d5f8a', '#00624a', '#9ecae1'],
    candidate: ['#D55E00', '#E69F00', '#8a3d00', '#CC79A7', '#f4a261', '#a34800', '#7a4060', '#f0c27b'],
  };
  SL.runColour = (side, i) => SIDE_SHADES[side][i % SIDE_SHADES[side].length];
  SL.POLICIES = ['prev_idle', 'affine', 'llc_scan', 'buddy', 'smt_first'];
})(window.SL);
