/**
 * Benchmark: what the MCP Apps realm guard (electron/core/appRealmGuard.ts) costs an app's own DOM
 * work, in Chromium. The guard wraps the DOM's insertion calls to remove nested frames as they are
 * inserted; this times, in one page without it and one with it (as the sandbox proxy writes it:
 * after the CSP meta tag, before the app's scripts):
 * - append: 20,000 × (createElement + appendChild of a text node + appendChild into the page);
 * - innerHTML: 2,000 × setting a small fragment's HTML;
 * - mutation: the same 20,000 appends in a page whose DOM the guard's MutationObserver also sees.
 * Each is the median of BENCH_GUARD_RUNS fresh pages. Prints a table, then one JSON line.
 * Run: npm run bench:app-guard
 */
import { chromium } from '@playwright/test';
import { APP_REALM_GUARD_SCRIPT } from '../electron/core/appRealmGuard.js';

const RUNS = Number(process.env.BENCH_GUARD_RUNS ?? 5);
const WORK = `<script>
function run() {
  const root = document.createElement('div');
  document.body.appendChild(root);
  const t0 = performance.now();
  for (let i = 0; i < 20000; i++) {
    const d = document.createElement('div');
    d.appendChild(document.createTextNode('x' + i));
    root.appendChild(d);
  }
  const t1 = performance.now();
  for (let i = 0; i < 2000; i++) root.lastChild.innerHTML = '<span>a</span><b>b</b>';
  const t2 = performance.now();
  return { append: t1 - t0, innerHTML: t2 - t1 };
}
</script>`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
const results: Record<string, { append: number; innerHTML: number }> = {};
try {
  for (const guarded of [false, true]) {
    const samples: Array<{ append: number; innerHTML: number }> = [];
    for (let run = 0; run < RUNS; run++) {
      const page = await browser.newPage();
      await page.setContent(
        `<!doctype html><meta http-equiv="Content-Security-Policy" content="frame-src 'none'">${
          guarded ? `<script>${APP_REALM_GUARD_SCRIPT}</script>` : ''
        }${WORK}<body></body>`,
      );
      samples.push(await page.evaluate<{ append: number; innerHTML: number }>('run()'));
      await page.close();
    }
    results[guarded ? 'guarded' : 'plain'] = {
      append: median(samples.map((s) => s.append)),
      innerHTML: median(samples.map((s) => s.innerHTML)),
    };
  }
} finally {
  await browser.close();
}
const plain = results.plain!;
const guarded = results.guarded!;
console.log('page      20k appends (ms)   2k innerHTML (ms)');
console.log(`plain     ${plain.append.toFixed(1).padStart(16)}   ${plain.innerHTML.toFixed(1).padStart(17)}`);
console.log(`guarded   ${guarded.append.toFixed(1).padStart(16)}   ${guarded.innerHTML.toFixed(1).padStart(17)}`);
console.log(JSON.stringify({ runs: RUNS, plain, guarded }));
