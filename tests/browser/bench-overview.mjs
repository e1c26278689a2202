// SPDX-License-Identifier: GPL-2.0-only
// Times the overview page in Debian's chromium (headless, playwright-core) against the
// daemon at $SL_URL, for tests/bench/bench-dashboard.c: $SL_BENCH_LOADS (5) loads, each
// from navigation start to the view being ready (main[data-ready=1], every panel filled),
// the first with an empty browser cache. Prints one line per load and the median; exits 1
// if a load shows an error panel. With $SL_ARTEFACTS, a screenshot of the last load goes
// there as overview-bench.png.
//   SL_URL=http://127.0.0.1:PORT [SL_ARTEFACTS=DIR] node bench-overview.mjs
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

const URL = process.env.SL_URL || 'http://127.0.0.1:9347';
const LOADS = Number(process.env.SL_BENCH_LOADS || 5);

const browser = await chromium.launch({
  executablePath: process.env.SL_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const times = [];
let bad = 0;
for (let i = 0; i < LOADS; i++) {
  // a new query string each time: a full load, not a same-document hash change
  await page.goto(`${URL}/?load=${i}#/overview`, { waitUntil: 'commit' });
  await page.waitForFunction(() => document.getElementById('main')?.dataset.ready === '1' && !document.querySelector('.state.loading'), null, { timeout: 60000 });
  // SL.readyAt: performance.now() (from this document's navigation start) when the view
  // said it was ready
  const r = await page.evaluate(() => ({
    ms: window.SL.readyAt,
    nav: performance.getEntriesByType('navigation')[0].toJSON(),
    errors: document.querySelectorAll('.state.error').length,
    footer: document.getElementById('timing').textContent,
  }));
  times.push(r.ms);
  if (r.errors) bad++;
  const n = r.nav;
  console.log(`  load ${i + 1}${i ? '' : ' (empty cache)'}: ${r.ms.toFixed(0)} ms to ready (HTML ${n.responseEnd.toFixed(0)} ms,` +
    ` scripts run by ${n.domContentLoadedEventStart.toFixed(0)} ms); page says: ${r.footer}${r.errors ? ' ERROR PANELS' : ''}`);
}
if (process.env.SL_ARTEFACTS) {
  mkdirSync(process.env.SL_ARTEFACTS, { recursive: true });
  const file = `${process.env.SL_ARTEFACTS}/overview-bench.png`;
  await page.screenshot({ path: file, fullPage: true });
  console.log(`  screenshot ${file}`);
}
await browser.close();
const sorted = times.slice().sort((a, b) => a - b);
console.log(`overview page: median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, first ${times[0].toFixed(0)} ms, worst ${sorted[sorted.length - 1].toFixed(0)} ms (budget 300 ms)`);
process.exit(bad ? 1 : 0);
