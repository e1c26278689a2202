// SPDX-License-Identifier: GPL-2.0-only
// The dashboard's router: the URL hash names the view and its state
// (#/compare?baseline=kernel:3.5&candidate=kernel:3.6&group=postgres), so any view can be
// pasted into a bug report. Each view is SL.views[name](main, params, signal).
'use strict';
(function (SL) {
  SL.views = SL.views || {};
  let current = null;

  function parseHash() {
    const h = location.hash.replace(/^#\/?/, '');
    const [name, query] = h.split('?');
    return { name: name || 'overview', params: Object.fromEntries(new URLSearchParams(query || '')) };
  }

  // Replace the view's state in the URL (and re-render it) with new params.
  SL.go = function go(name, params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== '') q.set(k, v);
    const next = '#/' + name + (q.toString() ? '?' + q : '');
    if (location.hash !== next) location.hash = next;
    else route();
  };
  SL.link = (name, params) => {
    const q = new URLSearchParams(params || {});
    return '#/' + name + (q.toString() ? '?' + q : '');
  };

  async function route() {
    const { name, params } = parseHash();
    const view = SL.views[name] ? name : 'notfound';
    if (current) current.abort();
    SL.tip(null);
    current = new AbortController();
    for (const a of document.querySelectorAll('nav a'))
      if (a.dataset.view === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    const main = document.getElementById('main');
    SL.clear(main);
    main.dataset.view = view;
    main.dataset.ready = '0';
    document.title = 'schedlens – ' + name;
    const t0 = performance.now();
    const nCalls = SL.timings.length;
    try {
      await SL.views[view](main, params, current.signal);
    } catch (e) {
      if (e.name !== 'AbortError') SL.clear(main).appendChild(SL.error(e));
    }
    focusScrollers();
    const calls = SL.timings.slice(nCalls);
    SL.readyAt = performance.now(); // since navigation start: the page-load benchmark reads it
    main.dataset.ready = '1';
    document.getElementById('timing').textContent = `${name} loaded in ${(performance.now() - t0).toFixed(0)} ms` +
      (calls.length ? ` · ${calls.length} API call${calls.length > 1 ? 's' : ''}, slowest ${Math.max(...calls.map((c) => c.ms)).toFixed(0)} ms` : '');
  }

  // A table that scrolls sideways in its box (.table-scroll, at 800 px) is a tab stop, so
  // the keyboard can scroll it; one that fits is not (no empty stops)
  function focusScrollers() {
    for (const el of document.querySelectorAll('.table-scroll')) {
      if (el.scrollWidth > el.clientWidth + 1) el.setAttribute('tabindex', '0');
      else el.removeAttribute('tabindex');
    }
  }
  let resizing = 0;
  window.addEventListener('resize', () => { clearTimeout(resizing); resizing = setTimeout(focusScrollers, 200); });
  // a details element opened later shows a table the first pass saw at width 0
  document.addEventListener('toggle', focusScrollers, true);

  SL.views.notfound = async (main) => {
    main.appendChild(SL.empty('No such view', 'Pick one of the views above.'));
  };

  // Shared tooltip for charts that want more than <title>
  SL.tip = function tip(evt, html) {
    const t = document.getElementById('tip');
    if (!html) { t.hidden = true; return; }
    t.innerHTML = html;
    t.hidden = false;
    const r = evt.target.getBoundingClientRect ? evt.target.getBoundingClientRect() : { left: evt.clientX, bottom: evt.clientY };
    t.style.left = Math.min(window.innerWidth - 260, r.left + window.scrollX) + 'px';
    t.style.top = (r.bottom + window.scrollY + 6) + 'px';
  };

  // Host line in the header, once
  async function host() {
    try {
      const st = await SL.status();
      document.getElementById('host').textContent =
        `${st.hostname || ''} · ${st.kernel_release || ''}`;
    } catch (e) { /* the overview shows the error */ }
  }

  // The skip link moves focus to the content; followed as a link, its #main would be a
  // view name to the router ("No such view")
  document.addEventListener('click', (e) => {
    const skip = e.target.closest && e.target.closest('a.skip');
    if (!skip) return;
    e.preventDefault();
    document.getElementById('main').focus();
  });

  window.addEventListener('hashchange', route);
  window.addEventListener('DOMContentLoaded', () => { SL.watchExports(document.getElementById('main')); host(); route(); });
})(window.SL);
