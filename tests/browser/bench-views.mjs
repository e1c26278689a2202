// SPDX-License-Identifier: GPL-2.0-only
// Times every dashboard view in Debian's chromium (headless, playwright-core) against the
// daemon at $SL_URL, for tests/bench/bench-dashboard.c (issue 20: every view of a 7-day
// database ready within 1 s of navigation): each view $SL_BENCH_LOADS (3) times, each a
// full page load (a new query string) from navigation start to the view being ready
// (main[data-ready=1], no panel still loading: SL.readyAt), the first with the daemon's
// SQLite cache as the previous view left it. Prints one line per view: median, first and
// worst load, the number of API calls and the slowest, and whether it is within the budget;
// exits 1 if a view shows an error panel. $SL_BENCH_VIEWS: the views as "name=#/hash"
// separated by spaces (default: overview, runs, compare, topology and LHP of run 1).
// With $SL_ARTEFACTS, a screenshot of each view goes there as bench-NAME.png.
//   SL_URL=http://127.0.0.1:PORT [SL_BENCH_VIEWS='...'] node bench-views.mjs
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

const URL = process.env.SL_URL || 'http://127.0.0.1:9347';
const LOADS = Number(process.env.SL_BENCH_LOADS || 3);
const BUDGET = Number(process.env.SL_BENCH_BUDGET_MS || 1000);
const VIEWS = (process.env.SL_BENCH_VIEWS || 'overview=#/overview runs=#/runs compare=#/compare topology=#/topology?run=1 lhp=#/lhp?run=1')
  .split(/\s+/).filter(Boolean).map((v) => v.split(/=(.*)/s).slice(0, 2));

const browser = await chromium.launch({
  executablePath: process.env.SL_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
let bad = 0, over = 0;
console.log(`  ${'view'.padEnd(10)} ${'median'.padStart(7)} ${'first'.padStart(7)} ${'worst'.padStart(7)}  API calls, slowest   (ms, ${LOADS} loads each; budget ${BUDGET} ms)`);
for (const [name, hash] of VIEWS) {
  const times = [];
  let last = null;
  for (let i = 0; i < LOADS; i++) {
    await page.goto(`${URL}/?load=${name}-${i}${hash}`, { waitUntil: 'commit' });
    await page.waitForFunction(() => document.getElementById('main')?.dataset.ready === '1' && !document.querySelector('.state.loading'), null, { timeout: 120000 });
    last = await page.evaluate(() => ({
      ms: window.SL.readyAt,
      calls: window.SL.timings.length,
      slowest: window.SL.timings.reduce((a, t) => (t.ms > a.ms ? t : a), { ms: 0, path: '' }),
      errors: [...document.querySelectorAll('.state.error')].map((e) => e.textContent),
    }));
    times.push(last.ms);
    if (last.errors.length) { bad++; console.log(`  ${name}: ERROR PANEL: ${last.errors.join(' | ')}`); }
  }
  if (process.env.SL_ARTEFACTS) {
    mkdirSync(process.env.SL_ARTEFACTS, { recursive: true });
    await page.screenshot({ path: `${process.env.SL_ARTEFACTS}/bench-${name}.png`, fullPage: true });
  }
  const sorted = times.slice().sort((a, b) => a - b);
  const med = sorted[Math.floor(sorted.length / 2)], worst = sorted[sorted.length - 1];
  if (worst > BUDGET) over++;
  console.log(`  ${name.padEnd(10)} ${med.toFixed(0).padStart(7)} ${times[0].toFixed(0).padStart(7)} ${worst.toFixed(0).padStart(7)}  ` +
    `${last.calls}, ${last.slowest.ms.toFixed(0)} ms ${last.slowest.path.replace(/^\/api\/v1\//, '')}  ${worst > BUDGET ? 'OVER' : 'within'}`);
}
await browser.close();
console.log(`every view: ${over ? over + ' over' : 'all within'} the ${BUDGET} ms budget (worst of ${LOADS} loads)`);
process.exit(bad ? 1 : 0);
