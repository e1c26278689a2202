// SPDX-License-Identifier: GPL-2.0-only
// Export: every chart as SVG and PNG, every table as CSV and JSON. A watcher on the view
// (SL.watchExports, from app.js) gives each chart (figure.fig with an svg.chart, a topology
// .heatmap) and each table that appears its buttons, so a view needs no code of its own and
// a section loaded later (a drill-down) gets them too. A chart's SVG is a standalone file:
// the drawn SVG with the page's CSS inlined as attributes (an SVG file has no app.css); its
// PNG is that SVG drawn on a canvas at twice its size. A table's CSV and JSON hold its cells
// as shown (the drill-down's tables export their raw rows themselves, drilldown.js).
'use strict';
(function (SL) {
  const h = SL.h;
  const NS = 'http://www.w3.org/2000/svg';

  // The browser saves text or a Blob as name
  SL.download = function download(name, type, data) {
    const url = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type }));
    const a = h('a', { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
    // the click has handed the Blob to the download; free it after this task
    setTimeout(() => URL.revokeObjectURL(url), 0);
  };
  const csvCell = (v) => {
    const t = v === null || v === undefined ? '' : String(v);
    return /[",\n\r]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  };
  SL.toCSV = (cols, rows) => [cols.map(csvCell).join(',')]
    .concat(rows.map((r) => cols.map((c) => csvCell(r[c])).join(','))).join('\r\n') + '\r\n';
  // CSV and JSON buttons; get() -> {cols, rows} when pressed (rows: objects keyed by cols)
  SL.exportButtons = (name, get, what) => h('span', { class: 'exports' },
    h('button', { type: 'button', class: 'secondary export-csv', 'aria-label': what ? `save ${what} as CSV` : null,
      onclick: () => { const d = get(); SL.download(name + '.csv', 'text/csv', SL.toCSV(d.cols, d.rows)); } }, 'CSV'), ' ',
    h('button', { type: 'button', class: 'secondary export-json', 'aria-label': what ? `save ${what} as JSON` : null,
      onclick: () => SL.download(name + '.json', 'application/json', JSON.stringify(get().rows, null, 1)) }, 'JSON'));

  // "wakeup latency of postgres" -> "wakeup-latency-of-postgres"
  const slug = (t) => String(t || 'chart').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'chart';
  const viewName = () => document.getElementById('main').dataset.view || 'view';

  // --- charts -------------------------------------------------------------------------
  // presentation properties app.css sets on chart parts, copied onto the clone
  const PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity',
    'font-size', 'font-family', 'font-weight', 'text-anchor', 'dominant-baseline'];
  function inlined(svg) {
    const copy = svg.cloneNode(true);
    const src = [svg, ...svg.querySelectorAll('*')], dst = [copy, ...copy.querySelectorAll('*')];
    src.forEach((el, i) => {
      const cs = getComputedStyle(el), d = dst[i];
      d.removeAttribute('class');
      d.removeAttribute('tabindex');
      // the crosshair, the brush and other hidden parts stay out of the file
      if (cs.display === 'none' || cs.visibility === 'hidden') { d.setAttribute('display', 'none'); return; }
      for (const p of PROPS) d.setAttribute(p, cs.getPropertyValue(p));
    });
    return copy;
  }
  // The chart's SVGs (one, or a heatmap's packages side by side) as one standalone SVG
  // document at their drawn size: {text, width, height}
  SL.svgFile = function svgFile(svgs) {
    const out = document.createElementNS(NS, 'svg');
    let x = 0, height = 0;
    for (const svg of svgs) {
      const r = svg.getBoundingClientRect();
      const one = inlined(svg);
      one.setAttribute('x', x);
      one.setAttribute('y', 0);
      one.setAttribute('width', Math.ceil(r.width));
      one.setAttribute('height', Math.ceil(r.height));
      out.appendChild(one);
      x += Math.ceil(r.width) + 12;
      height = Math.max(height, Math.ceil(r.height));
    }
    const width = Math.max(1, x - 12);
    out.setAttribute('xmlns', NS);
    out.setAttribute('width', width);
    out.setAttribute('height', height);
    out.setAttribute('viewBox', `0 0 ${width} ${height}`);
    // a white ground: viewers show a transparent SVG on black or a checkerboard
    const bg = document.createElementNS(NS, 'rect');
    for (const [k, v] of Object.entries({ x: 0, y: 0, width, height, fill: '#ffffff' })) bg.setAttribute(k, v);
    out.insertBefore(bg, out.firstChild);
    return { text: '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(out) + '\n', width, height };
  };
  // The SVG drawn on a canvas at scale (2: sharp on a high-density screen), as a PNG Blob
  SL.pngOf = function pngOf(file, scale = 2) {
    return new Promise((resolve, reject) => {
      const url = URL.createObjectURL(new Blob([file.text], { type: 'image/svg+xml' }));
      const img = new Image();
      img.onload = () => {
        const c = document.createElement('canvas');
        c.width = file.width * scale;
        c.height = file.height * scale;
        const g = c.getContext('2d');
        g.scale(scale, scale);
        g.drawImage(img, 0, 0, file.width, file.height);
        URL.revokeObjectURL(url);
        c.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas made no PNG'))), 'image/png');
      };
      img.onerror = () => { URL.revokeObjectURL(url); reject(new Error('the chart\'s SVG did not load as an image')); };
      img.src = url;
    });
  };
  function chartButtons(name, svgs) {
    return h('span', { class: 'exports chart-exports' },
      h('button', { type: 'button', class: 'secondary export-svg', 'aria-label': `save ${name} as SVG`,
        onclick: () => SL.download(slug(viewName() + ' ' + name) + '.svg', 'image/svg+xml', SL.svgFile(svgs()).text) }, 'SVG'), ' ',
      h('button', { type: 'button', class: 'secondary export-png', 'aria-label': `save ${name} as PNG`,
        onclick: async () => SL.download(slug(viewName() + ' ' + name) + '.png', 'image/png', await SL.pngOf(SL.svgFile(svgs()))) }, 'PNG'));
  }

  // --- tables -------------------------------------------------------------------------
  // a cell's text as shown, without the controls in it (the findings' evidence button)
  const cellText = (c) => {
    const k = c.cloneNode(true);
    k.querySelectorAll('button, .exports').forEach((b) => b.remove());
    return k.textContent.replace(/\s+/g, ' ').trim();
  };
  function tableRows(table) {
    let cols = [...table.querySelectorAll(':scope > thead th')].map(cellText);
    const trs = [...table.querySelectorAll(':scope > tbody > tr')].filter((tr) => !tr.hidden);
    const width = Math.max(0, ...trs.map((tr) => tr.children.length));
    if (cols.length !== width) cols = Array.from({ length: width }, (_, i) => cols[i] || (i ? `column ${i + 1}` : 'name'));
    // headings may repeat ("" twice): make each key unique
    const seen = new Map();
    cols = cols.map((c) => { const n = (seen.get(c) || 0) + 1; seen.set(c, n); return n > 1 ? `${c} ${n}` : c; });
    return { cols, rows: trs.map((tr) => Object.fromEntries([...tr.children].map((td, i) => [cols[i], cellText(td)]))) };
  }
  // what a table is ("findings", "totals per group"): its scroller's label or its card's title
  const tableWhat = (t) => t.closest('[aria-label]')?.getAttribute('aria-label') ||
    t.closest('.card')?.querySelector('h2')?.textContent || t.className || 'table';

  // Give every chart and table under root its buttons (once)
  function decorate(root) {
    for (const fig of root.querySelectorAll('figure.fig')) {
      const svg = fig.querySelector('svg.chart');
      if (!svg || fig.dataset.exports) continue;
      fig.dataset.exports = '1';
      const name = svg.getAttribute('aria-label') || fig.querySelector('figcaption')?.textContent || 'chart';
      fig.appendChild(chartButtons(name, () => [svg]));
    }
    for (const map of root.querySelectorAll('.heatmap')) {
      if (map.dataset.exports) continue;
      map.dataset.exports = '1';
      const name = map.closest('[data-map]') ? 'heatmap ' + map.closest('[data-map]').dataset.map : 'heatmap';
      map.after(h('p', { class: 'heatmap-exports' }, chartButtons(name, () => [...map.querySelectorAll('svg.pkg')])));
    }
    for (const t of root.querySelectorAll('table')) {
      // the drill-down's tables have their own (raw values), nested tables none
      if (t.dataset.exports || t.closest('.drill-table')) continue;
      t.dataset.exports = '1';
      const what = tableWhat(t), name = slug(viewName() + ' ' + what);
      // the buttons read the table when pressed: it may have changed since
      const tools = h('p', { class: 'table-exports' }, SL.exportButtons(name, () => tableRows(t), `the ${what} table`));
      (t.parentElement.classList.contains('table-scroll') ? t.parentElement : t).before(tools);
    }
  }
  SL.decorateExports = decorate;
  // app.js: watch the view's element for charts and tables as they appear
  SL.watchExports = function watchExports(main) {
    let queued = false;
    new MutationObserver(() => {
      if (queued) return;
      queued = true;
      // once per task, after the view's section has put all its nodes in
      queueMicrotask(() => { queued = false; decorate(main); });
    }).observe(main, { childList: true, subtree: true });
  };
})(window.SL);
