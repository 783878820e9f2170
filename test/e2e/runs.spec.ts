/**
 * Agent runs in the GUI, end to end: the real browser-mode host, the built renderer in
 * Chromium, the stdio fixture server whose `append` tool writes a line to FIXTURE_COUNTER, and
 * the loopback provider (a double of Anthropic's HTTP API, SSE like the service) as the model.
 * Configure the model in Settings → Models, start a run, the model calls the write tool, the
 * approval dialog names the run, Allow → the line is written and the model's next turn sees it.
 *
 * Run: npx playwright test test/e2e/runs.spec.ts
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, sandboxWritingTo } from '../helpers/fixtures.js';
import type { ScriptedTurn } from '../doubles/providers/loopbackProvider.js';
import { LoopbackProvider } from '../doubles/providers/loopbackProvider.js';
import { Bridge } from './support/bridge.js';
import { hostPerTest } from './support/hostPerTest.js';
import { startWebHost } from './support/webHost.js';
import { openView } from './support/navigation.js';

test.describe.configure({ timeout: 120_000 });

const KEY = 'sk-e2e-run-key-31415926';

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

test.describe('an agent run through the GUI', () => {
  const ctx = hostPerTest('mh-e2e-runs-');
  let loopback: LoopbackProvider;
  /** Holds the first model turn mid-stream (for Stop). */
  let holdFirst = false;

  test.beforeEach(async () => {
    holdFirst = false;
    loopback = await new LoopbackProvider((request): ScriptedTurn => {
      if (request.toolResults > 0) return { kind: 'reply', text: [`Saw: ${request.resultTexts.join(' | ')}`] };
      if (holdFirst) {
        holdFirst = false;
        return { kind: 'reply', text: ['Thinking'], hold: true };
      }
      return {
        kind: 'reply',
        text: ['I will write ', 'the line.'],
        toolCalls: [{ id: `toolu_e2e_${loopback.requests.length}`, name: 'append', args: { line: 'from-e2e' } }],
      };
    }).start();
  });
  test.afterEach(async () => {
    await loopback.close();
  });

  /** The fixture server with its write tool, ready; the page open. */
  async function setUp(page: Page): Promise<string> {
    const counter = join(ctx.scratch, 'counter.txt');
    await ctx.bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append' },
        sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append' }),
      },
    });
    await expect
      .poll(
        async () => (await ctx.bridge.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state,
        { timeout: 20_000 },
      )
      .toBe('ready');
    await page.goto(ctx.host.url);
    return counter;
  }

  /** A model saved through the API (the Settings form is tested once, above), then a run started from the view. */
  async function startRun(page: Page, task: string): Promise<void> {
    await ctx.bridge.ok('models.save', {
      id: 'loop',
      name: 'Loopback',
      kind: 'anthropic',
      baseUrl: loopback.anthropicBaseUrl,
      model: 'loopback-model',
      apiKey: KEY,
    });
    await openView(page, 'Agent runs');
    const start = page.getByRole('form', { name: 'Start a run' });
    await start.getByLabel('Fixture').check();
    await start.getByLabel('Task for the model').fill(task);
    await start.getByRole('button', { name: 'Start run' }).click();
  }

  test('configure a model, start a run, the approval names the run, Allow → the file is written and the next turn sees the result', async ({
    page,
  }) => {
    const counter = await setUp(page);
    await openView(page, 'Settings');
    const form = page.getByRole('form', { name: 'Add a model' });
    await form.getByLabel('Name', { exact: true }).fill('Loopback');
    await form.getByLabel('Provider').selectOption('anthropic');
    await form.getByLabel('Base URL').fill(loopback.anthropicBaseUrl);
    await form.getByLabel('Model name').fill('loopback-model');
    await form.getByLabel('API key').fill(KEY);
    await form.getByRole('button', { name: 'Save model' }).click();
    const row = page.getByTestId('model-row').filter({ hasText: 'Loopback' });
    await expect(row).toContainText('key set');
    await row.getByRole('button', { name: 'Test connection' }).click();
    await expect(row.getByTestId('model-test-result')).toHaveText('Connected: 1 model listed — loopback-model');

    await openView(page, 'Agent runs');
    const start = page.getByRole('form', { name: 'Start a run' });
    await start.getByLabel('Fixture').check();
    await start.getByLabel('Task for the model').fill('write from-e2e');
    await start.getByRole('button', { name: 'Start run' }).click();

    const dialog = page.getByRole('alertdialog', {
      name: /^Approval: append, asked by agent run [0-9a-f]{8} \(Loopback\)$/,
    });
    await expect(dialog).toBeVisible();
    expect(lines(counter)).toEqual([]);
    await dialog.getByRole('button', { name: /^Allow once/ }).click();

    const card = page.getByTestId('run-tool-call');
    await expect(card.getByTestId('run-tool-call-status')).toHaveText('done');
    await expect(card.getByTestId('run-tool-call-result')).toHaveText('appended from-e2e');
    await expect(page.getByTestId('run-status')).toHaveText('Completed');
    await expect(page.getByTestId('run-assistant-text').last()).toHaveText('Saw: appended from-e2e');
    expect(lines(counter)).toEqual(['from-e2e']);
    expect(loopback.requests[1]?.resultTexts).toEqual(['appended from-e2e']);
    await expect(page.getByTestId('run-row')).toHaveCount(1);
    // The key went to the provider and never to the page.
    expect(loopback.requests.every((r) => JSON.stringify(r.headers).includes(KEY))).toBe(true);
    expect(await page.content()).not.toContain(KEY);

    // Export: the whole conversation as JSON; Delete: the run is gone from the list.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON', exact: true }).click();
    const file = await (await download).path();
    const exported = JSON.parse(readFileSync(file, 'utf8')) as {
      run: { status: string };
      toolCalls: Array<{ result?: { text: string } }>;
    };
    expect(exported.run.status).toBe('completed');
    expect(exported.toolCalls[0]?.result?.text).toBe('appended from-e2e');
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(page.getByTestId('run-row')).toHaveCount(0);
  });

  test('a run started while its server is still connecting waits, visibly, then the model is offered its tools (issue 28.3)', async ({
    page,
  }) => {
    const counter = join(ctx.scratch, 'counter.txt');
    const gate = join(ctx.scratch, 'init-gate');
    // The server answers initialize only once the gate file exists: it stays "connecting" until the test opens it.
    await ctx.bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append', FIXTURE_INIT_GATE: gate },
        sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append', FIXTURE_INIT_GATE: gate }),
      },
    });
    await ctx.bridge.ok('models.save', {
      id: 'loop',
      name: 'Loopback',
      kind: 'anthropic',
      baseUrl: loopback.anthropicBaseUrl,
      model: 'loopback-model',
      apiKey: KEY,
    });
    await page.goto(ctx.host.url);
    await openView(page, 'Agent runs');
    const start = page.getByRole('form', { name: 'Start a run' });
    await start.getByLabel('Fixture').check();
    await start.getByLabel('Task for the model').fill('write from-e2e');
    await start.getByRole('button', { name: 'Start run' }).click();

    const waiting = page.getByTestId('run-server-wait');
    await expect(waiting).toContainText('Waiting for the server “fx” to be ready');
    expect(loopback.requests).toHaveLength(0);
    writeFileSync(gate, '');
    await expect(waiting).toHaveCount(0);
    const dialog = page.getByRole('alertdialog', { name: /^Approval: append, asked by agent run/ });
    await dialog.getByRole('button', { name: /^Allow once/ }).click();
    await expect(page.getByTestId('run-status')).toHaveText('Completed');
    await expect(page.getByTestId('run-assistant-text').last()).toHaveText('Saw: appended from-e2e');
    // The model's first request offered the server's tool: it was asked only once the server was ready.
    expect((loopback.requests[0]?.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain('append');
    expect(lines(counter)).toEqual(['from-e2e']);
  });

  test('an OpenAI Responses model from Settings; limits set in the run setup and shown while running; the run under its own caller in History and Traces', async ({
    page,
  }) => {
    await setUp(page);
    await openView(page, 'Settings');
    const form = page.getByRole('form', { name: 'Add a model' });
    await form.getByLabel('Name', { exact: true }).fill('Responder');
    await form.getByLabel('Provider').selectOption('openai_responses');
    await form.getByLabel('Base URL').fill(loopback.openaiBaseUrl);
    await form.getByLabel('Model name').fill('loopback-model');
    await form.getByRole('button', { name: 'Save model' }).click();
    await expect(page.getByTestId('model-row').filter({ hasText: 'Responder' })).toContainText('OpenAI Responses');

    await openView(page, 'Agent runs');
    const start = page.getByRole('form', { name: 'Start a run' });
    await start.getByLabel('Fixture').check();
    await start.getByLabel('Max tool calls').fill('3');
    await start.getByLabel('Max tokens (the whole run)').fill('5000');
    await start.getByLabel('Task for the model').fill('limits and callers');
    await start.getByRole('button', { name: 'Start run' }).click();

    // While the call waits for approval the run is running, with its limits and what it has used.
    const dialog = page.getByRole('alertdialog', {
      name: /^Approval: append, asked by agent run [0-9a-f]{8} \(Responder\)$/,
    });
    await expect(dialog).toBeVisible();
    await expect(page.getByTestId('run-status')).toHaveText('Running');
    await expect(page.getByTestId('run-limits')).toHaveText('1 / 3 calls · 15 / 5,000 tokens');
    await dialog.getByRole('button', { name: /^Allow once/ }).click();
    await expect(page.getByTestId('run-status')).toHaveText('Completed');
    await expect(page.getByTestId('run-limits')).toHaveText('1 / 3 calls · 30 / 5,000 tokens');
    expect(loopback.requests.map((r) => r.api)).toEqual(['responses', 'responses']);

    // Traces and History list the run under its own caller (named by its task and model), and not under the person's.
    await openView(page, 'Traces');
    const traceCaller = page.getByRole('search', { name: 'Filter traces' }).getByLabel(/^Caller/);
    await traceCaller.selectOption({ label: 'Run: limits and callers (Responder)' });
    await expect(page.locator('[data-trace-id]')).toHaveCount(1);
    await traceCaller.selectOption({ label: 'You (GUI)' });
    await expect(page.locator('[data-trace-id]')).toHaveCount(0);

    await openView(page, 'History');
    const historyCaller = page.getByRole('search', { name: 'Filter history' }).getByLabel(/^Caller/);
    await historyCaller.selectOption({ label: 'Run: limits and callers (Responder)' });
    await expect(page.locator('[data-history-row]')).toHaveCount(1);
    await expect(page.locator('[data-history-row]')).toContainText('append');
    await historyCaller.selectOption({ label: 'You (GUI)' });
    await expect(page.locator('[data-history-row]')).toHaveCount(0);
  });

  test('Deny: the card says denied, nothing is written, and the model sees the tool error', async ({ page }) => {
    const counter = await setUp(page);
    await startRun(page, 'write, but I will deny');
    const dialog = page.getByRole('alertdialog', { name: /^Approval: append, asked by agent run / });
    await dialog.getByRole('button', { name: /^Deny/ }).click();
    await expect(page.getByTestId('run-tool-call-status')).toHaveText('denied');
    await expect(page.getByTestId('run-status')).toHaveText('Completed');
    await expect(page.getByTestId('run-assistant-text').last()).toContainText(/^Saw: .*denied/i);
    expect(lines(counter)).toEqual([]);
  });

  test('Stop mid-stream: the stream is cancelled, the run is Stopped, and Resume finishes it', async ({ page }) => {
    await setUp(page);
    holdFirst = true;
    await startRun(page, 'think, then stop');
    await expect(page.getByTestId('run-live-text')).toHaveText('Thinking');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect(page.getByTestId('run-status')).toHaveText('Stopped');
    await expect.poll(() => loopback.abandoned).toBe(1);
    loopback.release();
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: /^Approval: append, asked by agent run / });
    await dialog.getByRole('button', { name: /^Allow once/ }).click();
    await expect(page.getByTestId('run-status')).toHaveText('Completed');
    await expect(page.getByTestId('run-tool-call-status')).toHaveText('done');
  });

  test('the host killed mid-run: after the restart the run is Interrupted, and Resume finishes it', async ({
    page,
  }) => {
    const counter = await setUp(page);
    holdFirst = true;
    await startRun(page, 'survive a crash');
    await expect(page.getByTestId('run-live-text')).toHaveText('Thinking');
    const dataDir = ctx.host.dataDir;
    process.kill(ctx.host.pid ?? 0, 'SIGKILL');
    await expect.poll(() => ctx.host.alive()).toBe(false);
    loopback.release();
    ctx.bridge.close();
    ctx.host = await startWebHost({ dataDir });
    ctx.bridge = await Bridge.connect(ctx.host);

    await page.goto(ctx.host.url);
    await openView(page, 'Agent runs');
    await page.getByTestId('run-row').getByRole('button', { name: 'survive a crash' }).click();
    await expect(page.getByTestId('run-status')).toHaveText('Interrupted');
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: /^Approval: append, asked by agent run / });
    await dialog.getByRole('button', { name: /^Allow once/ }).click();
    await expect(page.getByTestId('run-status')).toHaveText('Completed');
    expect(lines(counter)).toEqual(['from-e2e']);
  });
});
