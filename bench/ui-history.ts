/**
 * Benchmark: the History view over 100,000 recorded calls, in Chromium.
 *
 * A fresh data folder's checkpoint store (`<dataDir>/miniharness.db`, as the core names it) is
 * filled with BENCH_UI_RECORDS records of one session through the store's own claim/complete, in
 * transactions, BEFORE the host starts. Then the real browser-mode host (`electron/web/cli.ts`)
 * serves the built renderer to Chromium, and we time:
 * - open: a click on "History" (fresh page, so nothing is cached in the renderer; a raw mouse
 *   click, so Playwright's own checks are not timed) until the first row is in the DOM
 *   (page.waitForSelector, wall clock) — also measured inside the page, up to the first frame
 *   painted with rows;
 * - switch: choosing the session in the picker (coming from an empty one) until its first row;
 * and count the row elements in the DOM, at the top and after scrolling far down (the list is
 * virtualized: the count must stay small however many records are loaded).
 *
 * Prints a table, then one JSON line. Run: npm run bench:ui
 * Env: BENCH_UI_RECORDS (100000), BENCH_UI_RUNS (5), BENCH_UI_SCROLLS (60: pages loaded by scrolling).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from '@playwright/test';
import { chromium } from '@playwright/test';
import { hashArguments } from '../electron/checkpoints/hash.js';
import { SqliteCheckpointStore } from '../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../electron/core/database.js';
import type { WebHostProcess } from '../test/e2e/support/webHost.js';
import { buildAppOnce, ROOT, startWebHost } from '../test/e2e/support/webHost.js';
import { armTimer, flingUp, lastRowIndex, readTimer, rowsBeyond, scrollToEnd, timerDone } from './uiHistoryHelpers.js';

const RECORDS = Number(process.env.BENCH_UI_RECORDS ?? 100_000);
const RUNS = Number(process.env.BENCH_UI_RUNS ?? 5);
const SCROLLS = Number(process.env.BENCH_UI_SCROLLS ?? 60);
/** One record in this many is left `started` (its owner "died"): shown as result unknown. */
const STARTED_EVERY = 5_000;
const TOOLS = ['read_file', 'write_file', 'search_issues', 'create_ticket', 'send_message', 'fetch_url'];
const GOAL_FIRST_ROWS_MS = 300;
const GOAL_ROW_ELEMENTS = 200;
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A session id in the GUI's own format, from an hour ago (History names it by its start). */
const SESSION = `gui-${new Date(Date.now() - 3_600_000).toISOString().replace(/[:.]/g, '-')}-bench000`;

const work = mkdtempSync(join(tmpdir(), 'mh-bench-ui-'));
const dataDir = join(work, 'data');
let host: WebHostProcess | undefined;
let browser: Browser | undefined;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function fmt(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '—';
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  rows.forEach((row, i) => {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
    if (i === 0) console.log(widths.map((w) => '─'.repeat(w)).join('  '));
  });
}

/** Fills the checkpoint store the way calls do: claim, then complete (or leave started). */
function fillStore(): { completed: number; started: number; ms: number } {
  const db = openAppDatabase(join(dataDir, 'miniharness.db'));
  db.pragma('cache_size = -131072');
  // Activity spread over the last days, ~2 s apart, the newest a minute ago.
  let now = Date.now() - 60_000 - RECORDS * 2_000;
  const store = new SqliteCheckpointStore(db, { clock: () => now });
  let completed = 0;
  let started = 0;
  const began = performance.now();
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const toolName = TOOLS[i % TOOLS.length]!;
      const args = { path: `/home/user/project/src/file-${i % 997}.ts`, query: `record ${i}` };
      now += 2_000;
      const claim = store.claim({
        sessionId: SESSION,
        callId: `call-${String(i).padStart(6, '0')}`,
        userId: 'gui',
        toolName,
        serverId: i % 3 === 0 ? 'local' : 'github',
        argsHash: hashArguments(args),
        args,
        traceId: `trace-${i}`,
      });
      if (claim.kind !== 'owner') throw new Error('fill: expected a fresh claim');
      if (i % STARTED_EVERY === STARTED_EVERY - 1) {
        started++;
        continue;
      }
      store.complete(SESSION, claim.record.callId, claim.lease, {
        content: [{ type: 'text', text: `result of record ${i}: ${'x'.repeat(60)}` }],
        structuredContent: undefined,
        isError: false,
      });
      completed++;
    }
  });
  for (let from = 0; from < RECORDS; from += 10_000) batch(from, Math.min(RECORDS, from + 10_000));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { completed, started, ms: performance.now() - began };
}

async function centreOf(page: Page, locator: Locator): Promise<{ x: number; y: number }> {
  await locator.waitFor();
  const box = await locator.boundingBox();
  if (!box) throw new Error('the element to click has no box');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

const rowCount = (page: Page) => page.locator('[data-history-row]').count();

/** A fresh renderer: the first time from the link, then a reload (the token stays in sessionStorage). */
async function openApp(page: Page, url: string, started: number): Promise<void> {
  if (page.url().startsWith('http')) await page.reload();
  else await page.goto(url);
  await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
  // The app loads the session counts at connection time: the sidebar shows the calls needing attention.
  if (started > 0)
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: /^History/ })
      .getByText(String(started), { exact: true })
      .waitFor();
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'out', 'renderer', 'index.html'))) {
    console.log('out/renderer is missing: building the app (electron-vite build)…');
    buildAppOnce();
  }
  const fill = fillStore();
  host = await startWebHost({ dataDir });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const historyNav = page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^History/ });

  // Warm-up: one full pass, so the OS file cache and the host's statements are warm.
  await openApp(page, host.url, fill.started);
  await historyNav.click();
  await page.waitForSelector('[data-history-row]');

  // Open: a fresh page each run (the renderer's store starts empty), then the click on "History".
  const open: number[] = [];
  const openSent: number[] = [];
  const openDom: number[] = [];
  const openPainted: number[] = [];
  let shownSession = '';
  for (let run = 0; run < RUNS; run++) {
    await openApp(page, host.url, fill.started);
    await page.evaluate(armTimer);
    // A raw mouse click at the button's centre: Playwright's actionability checks stay out of the time.
    const at = await centreOf(page, historyNav);
    const t0 = performance.now();
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector('[data-history-row]');
    open.push(performance.now() - t0);
    await page.waitForFunction(timerDone);
    const inPage = await page.evaluate(readTimer);
    openSent.push(inPage.sent);
    openDom.push(inPage.dom);
    openPainted.push(inPage.painted);
    shownSession = (await page.locator('[data-history-row]').first().getAttribute('data-call-id')) ?? '';
  }
  if (!shownSession.startsWith('call-'))
    throw new Error(`History opened on another session (first row ${shownSession})`);
  const rowsAtTop = await rowCount(page);

  // Switch: from the (empty) current session to the big one, in the picker.
  const switching: number[] = [];
  const picker = page.getByRole('button', { name: /^Session:/ });
  for (let run = 0; run < RUNS; run++) {
    await picker.click();
    await page.getByRole('button', { name: /^This app session/ }).click();
    await page.getByRole('heading', { name: 'No calls in this session' }).waitFor();
    await picker.click();
    const option = page.locator(`[data-session-id="${SESSION}"]`);
    await page.evaluate(armTimer);
    const at = await centreOf(page, option);
    const t0 = performance.now();
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector('[data-history-row]');
    switching.push(performance.now() - t0);
    await page.waitForFunction(timerDone);
  }

  // Far down: scroll to the end of what is loaded again and again (each time the next page loads).
  const scroller = page.locator('.h-scroller');
  let maxRows = await rowCount(page);
  const frameGaps: number[] = [];
  for (let i = 0; i < SCROLLS; i++) {
    const before = await page.evaluate(lastRowIndex);
    await scroller.evaluate(scrollToEnd);
    await page.waitForFunction(rowsBeyond, before, { timeout: 5_000 }).catch(() => undefined);
    maxRows = Math.max(maxRows, await rowCount(page));
  }
  // Then a fast fling back up through everything loaded, one jump per frame, timing the frames.
  const fling = await scroller.evaluate(flingUp);
  frameGaps.push(...fling.gaps);
  maxRows = Math.max(maxRows, fling.rows);
  await scroller.evaluate(scrollToEnd);
  await page.waitForTimeout(200);
  const rowsFarDown = await rowCount(page);
  maxRows = Math.max(maxRows, rowsFarDown);
  const lastIndex = (await page.evaluate(lastRowIndex)) - 1;
  const p95Frame = [...frameGaps].sort((a, b) => a - b)[Math.floor(frameGaps.length * 0.95)] ?? NaN;

  const firstRows = median(open);
  const rowElements = maxRows;
  console.log('');
  printTable([
    ['History over checkpoint records', 'median', 'runs'],
    [
      `open History → first row (click → waitForSelector)`,
      `${fmt(firstRows)} ms`,
      open.map((v) => fmt(v, 0)).join(' '),
    ],
    [`  in page: click → page request sent`, `${fmt(median(openSent))} ms`, openSent.map((v) => fmt(v, 0)).join(' ')],
    [`  in page: click → row in DOM`, `${fmt(median(openDom))} ms`, openDom.map((v) => fmt(v, 0)).join(' ')],
    [
      `  in page: click → frame painted with rows`,
      `${fmt(median(openPainted))} ms`,
      openPainted.map((v) => fmt(v, 0)).join(' '),
    ],
    [`choose the session → first row`, `${fmt(median(switching))} ms`, switching.map((v) => fmt(v, 0)).join(' ')],
    [`row elements in the DOM, at the top`, String(rowsAtTop), ''],
    [
      `row elements far down (row ${lastIndex.toLocaleString('en')} of ${RECORDS.toLocaleString('en')} in view)`,
      String(rowsFarDown),
      '',
    ],
    [`row elements, most seen at any point`, String(maxRows), ''],
    [
      `fling up through ${fling.loaded.toLocaleString('en')} loaded rows: frame p95`,
      `${fmt(p95Frame)} ms`,
      `${frameGaps.length} frames`,
    ],
  ]);
  console.log('');
  console.log(
    `goals: first rows ≤ ${GOAL_FIRST_ROWS_MS} ms — ${firstRows <= GOAL_FIRST_ROWS_MS ? 'met' : 'MISSED'}; row elements ≤ ${GOAL_ROW_ELEMENTS} — ${rowElements <= GOAL_ROW_ELEMENTS ? 'met' : 'MISSED'}`,
  );
  console.log(
    `(${fill.completed.toLocaleString('en')} completed + ${fill.started.toLocaleString('en')} started records in one session, filled through claim/complete in ${fmt(fill.ms / 1000, 1)} s; ` +
      `pages of 200; Chromium ${browser.version()} headless, 1280×800; ${process.platform}, ${cpus().length} cores, node ${process.versions.node})`,
  );
  console.log(
    JSON.stringify({ bench: 'ui-history', first_rows_ms: Number(firstRows.toFixed(1)), row_elements: rowElements }),
  );
}

async function cleanup(): Promise<void> {
  await browser?.close().catch(() => undefined);
  await host?.stop().catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
}

main()
  .then(cleanup)
  .catch(async (error: unknown) => {
    console.error(error);
    if (host) console.error(host.output().slice(-2_000));
    const page = browser?.contexts()[0]?.pages()[0];
    if (page)
      await page.screenshot({ path: join(tmpdir(), 'mh-bench-ui-failure.png') }).then(
        () => console.error(`screenshot: ${join(tmpdir(), 'mh-bench-ui-failure.png')}`),
        () => undefined,
      );
    await cleanup();
    process.exit(1);
  });
