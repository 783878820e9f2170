/**
 * A call whose process died mid-call, as the Traces view shows it after the next start: the data
 * folder holds a trace left `running` by a process that no longer exists (a real process the
 * test started and killed); the real host closes it as `interrupted` when it starts, and the
 * page shows it as such — badge, status filter, and the explanation in the detail.
 *
 * Run: npx playwright test test/e2e/interrupted.spec.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openAppDatabase } from '../../electron/core/database.js';
import { hashArguments } from '../../electron/checkpoints/hash.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import type { ProcessOwner } from '../../electron/storage/processOwner.js';
import { currentProcessOwner, processStartTime } from '../../electron/storage/processOwner.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

let scratch: string;
let host: WebHostProcess | undefined;

/** The owner record of a real process that has since exited. */
async function deadOwner(): Promise<ProcessOwner> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000); process.stdout.write("up\\n")'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const self = currentProcessOwner();
  const pid = child.pid as number;
  const start = processStartTime(pid);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return { host: self.host, ...(self.boot ? { boot: self.boot } : {}), pid, ...(start ? { start } : {}) };
}

test.beforeAll(() => {
  test.setTimeout(180_000);
  buildAppOnce();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-interrupted-'));
  const dataDir = join(scratch, 'data');
  const db = openAppDatabase(join(dataDir, 'miniharness.db'));
  const tracer = new Tracer(db, { owner: await deadOwner() });
  const call = {
    sessionId: 'gui-earlier',
    callId: 'call-cut-off-0001',
    userId: 'gui',
    toolName: 'effect',
    serverId: 'fx',
  };
  const trace = tracer.start(call);
  trace.event('decision', { outcome: 'allow' });
  // The call had claimed its checkpoint, as the pipeline does before any attempt: it may have acted.
  new SqliteCheckpointStore(db).claim({ ...call, argsHash: hashArguments({}), args: {}, traceId: trace.traceId });
  trace.event('claim', { outcome: 'owner' });
  trace.event('attempt_started', { attempt: 1 });
  tracer.flush();
  db.close();
  host = await startWebHost({ dataDir });
});

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

test('a trace left running by a dead process reads as interrupted after the next start', async ({ page }, testInfo) => {
  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Traces/ })
    .click();
  await expect(page.getByRole('heading', { name: 'Traces', level: 1 })).toBeVisible();

  const list = page.getByRole('navigation', { name: 'Trace list' });
  const item = list.locator('.trace-item', { has: page.locator('[data-trace-status="interrupted"]') });
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('Interrupted');
  await expect(list.locator('[data-trace-status="running"]')).toHaveCount(0);

  await item.click();
  const detail = page.getByRole('region', { name: 'Trace of effect' });
  await expect(detail).toContainText('Interrupted — the app stopped before the call finished');
  await expect(detail).toContainText('whether the tool acted is unknown');
  await expect(detail.getByRole('list', { name: 'Timeline' })).toContainText('Attempt 1 started');
  const path = testInfo.outputPath('traces-interrupted.png');
  await page.screenshot({ path });
  await testInfo.attach('traces-interrupted', { path, contentType: 'image/png' });

  // The status filter offers it, and picks exactly that trace.
  await page
    .getByRole('combobox')
    .filter({ has: page.locator('option', { hasText: 'Any status' }) })
    .selectOption('interrupted');
  await expect(list.locator('.trace-item')).toHaveCount(1);
});
