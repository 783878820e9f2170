/**
 * Calls a server runs as a task (the tasks extension), end to end: the real browser-mode host,
 * the built renderer in Chromium, the task fixture over stdio. The call panel shows the task and
 * its status while it runs, then the task's result; History's "Ask the server now" on a record
 * left unknown with a task id (its wait ended before the task did) asks the server, and the
 * record becomes completed with the server's result.
 *
 * Run: npx playwright test test/e2e/tasks.spec.ts
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { ServerView } from '../../shared/contract.js';
import { PROJECT_ROOT, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { BUILT_TASK_FIXTURE, buildTaskFixture, releaseTask, taskEvents } from '../doubles/servers/taskPeer.js';
import { hostPerTest } from './support/hostPerTest.js';

test.describe.configure({ timeout: 90_000 });

let tasksDir: string;

const ctx = hostPerTest('mh-e2e-tasks-');

test.beforeAll(async () => {
  await buildTaskFixture();
});

test.beforeEach(async () => {
  tasksDir = join(ctx.scratch, 'tasks');
  // The same task server twice: "tasks" waits for its tasks; "hasty" gives up after 800 ms in all (its records are left unknown).
  for (const [id, extra] of [
    ['tasks', {}],
    ['hasty', { maxTotalTimeoutMs: 800 }],
  ] as const) {
    await ctx.bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id,
        name: id,
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_TASK_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { TASKS_DIR: tasksDir },
        sandbox: sandboxWritingTo({ TASKS_DIR: tasksDir }),
        protocolEra: 'modern',
        ...extra,
      },
    });
    await waitFor(
      async () =>
        ((await ctx.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === id)?.toolCount ?? 0) > 0,
      20_000,
    );
    await ctx.bridge.ok('permissions.setToolLevel', { serverId: id, toolName: 'long_job', level: 'ALLOW' });
  }
});

async function openView(page: Page, name: 'History' | 'Tools'): Promise<void> {
  await page.goto(ctx.host.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: new RegExp(`^${name}`) })
    .click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

function effectOf(label: string): { taskId: string } | undefined {
  return taskEvents(tasksDir).find((e) => e.event === 'effect' && e.label === label);
}

test('the call panel shows the task and its status while it runs, then the task’s result', async ({ page }) => {
  await openView(page, 'Tools');
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="long_job"][data-server="tasks"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call long_job' });
  await panel.getByLabel('label').fill('panel');
  await panel.getByRole('button', { name: 'Run' }).click();
  const running = panel.getByRole('status', { name: 'Call in progress' });
  await expect(running).toContainText('Running as task');
  await expect(running).toContainText('working on panel');
  await waitFor(() => effectOf('panel') !== undefined, 20_000);
  releaseTask(tasksDir, effectOf('panel')!.taskId);
  await expect(running).toHaveCount(0, { timeout: 20_000 });
  await expect(panel).toContainText('done panel');
});

test('History: "Ask the server now" on a record left unknown with a task id records the server’s result', async ({
  page,
}) => {
  const callId = `e2e-task-${randomUUID()}`;
  const call = await ctx.bridge.call('tools.call', {
    name: 'long_job',
    serverId: 'hasty',
    args: { label: 'later' },
    callId,
    timeoutMs: 300,
  });
  expect(call.ok).toBe(false);
  releaseTask(tasksDir, effectOf('later')!.taskId);

  await openView(page, 'History');
  const row = page.locator(`[data-history-row][data-call-id="${callId}"]`);
  await row.click();
  const detail = page.getByRole('region', { name: 'Call long_job' });
  // Not "running": its end is not known until the server is asked.
  await expect(detail).toContainText('its end is not known yet');
  await detail.getByRole('button', { name: 'Ask the server now' }).click();
  await expect(detail.locator('[data-record-status]').first()).toHaveAttribute('data-record-status', 'completed');
  await expect(detail).toContainText('done later');
  await expect(detail.getByRole('button', { name: 'Replay' })).toBeVisible();
  expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === 'later')).toHaveLength(1);
});

test('History: a task the server no longer knows says so in place of the record’s text, and the ask has a trace (issue 34.3)', async ({
  page,
}) => {
  const callId = `e2e-task-${randomUUID()}`;
  const call = await ctx.bridge.call('tools.call', {
    name: 'long_job',
    serverId: 'hasty',
    args: { label: 'forgotten' },
    callId,
    timeoutMs: 300,
  });
  expect(call.ok).toBe(false);
  // The server forgets the task (as a stdio server keeping tasks per process does when it restarts).
  const { taskId } = effectOf('forgotten')!;
  rmSync(join(tasksDir, `${taskId}.json`));

  await openView(page, 'History');
  await page.locator(`[data-history-row][data-call-id="${callId}"]`).click();
  const detail = page.getByRole('region', { name: 'Call long_job' });
  await expect(detail).not.toContainText('Running as task');
  await detail.getByRole('button', { name: 'Ask the server now' }).click();
  // The ask's outcome is the record's text now (title and body), not a line appended below the old one.
  await expect(detail.getByText(`The server no longer knows task ${taskId}`)).toBeVisible();
  await expect(detail.getByTestId('task-note')).toContainText('Whether the tool acted on the remote side is unknown');
  await expect(detail.getByRole('alert')).toHaveCount(0);
  await expect(detail.locator('[data-record-status]').first()).toHaveAttribute('data-record-status', 'unknown');
  await expect(detail.getByRole('button', { name: 'Resolve by hand…' })).toBeVisible();
  // It is the record's own text: opened afresh, it still says so.
  await page.reload();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^History/ })
    .click();
  await page.locator(`[data-history-row][data-call-id="${callId}"]`).click();
  await expect(detail.getByText(`The server no longer knows task ${taskId}`)).toBeVisible();
  // The ask left a trace: who asked, and what the server said.
  await detail.getByRole('button', { name: 'Ask the server again' }).click();
  await detail.getByRole('button', { name: 'Trace of the ask' }).click();
  await expect(page.getByRole('heading', { name: 'Traces', level: 1 })).toBeVisible();
  await expect(
    page.getByText(/Asked the server about task .* on your request.*: the server no longer knows the task/),
  ).toBeVisible();
  expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === 'forgotten')).toHaveLength(1);
});
