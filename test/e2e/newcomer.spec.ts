/**
 * What a newcomer still tripped over in the GUI (issue 34: items 1, 2, 4, 7, 9, 10, 11), against
 * the real browser-mode host, the built renderer in Chromium and real peers: the stdio fixture
 * (a legacy-only v1 server), the v2 fixture over HTTP (modern only), the task fixture, and the
 * loopback model provider.
 *
 * Run: npx playwright test test/e2e/newcomer.spec.ts
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { ServerView } from '../../shared/contract.js';
import type { AgentsView } from '../../shared/agents.js';
import type { RunView } from '../../shared/contract/runs.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import type { ScriptedTurn } from '../doubles/providers/loopbackProvider.js';
import { LoopbackProvider } from '../doubles/providers/loopbackProvider.js';
import type { ModernHttpFixture } from '../doubles/servers/eraPeers.js';
import { startModernHttp } from '../doubles/servers/eraPeers.js';
import { BUILT_TASK_FIXTURE, buildTaskFixture, releaseTask, taskEvents } from '../doubles/servers/taskPeer.js';
import { hostPerTest } from './support/hostPerTest.js';
import { openAddServer, serverDetail, serverRow } from './support/serverForm.js';
import { openView } from './support/navigation.js';

test.describe.configure({ timeout: 120_000 });

const ctx = hostPerTest('mh-e2e-newcomer-');

async function openApp(page: Page): Promise<void> {
  await page.goto(ctx.host.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
}

/** The fixture server (legacy only, v1 SDK) as `id`, connected or failed as its era setting makes it. */
async function addFixture(
  id: string,
  env: Record<string, string>,
  extra: Record<string, unknown> = {},
  state: 'ready' | 'error' = 'ready',
): Promise<void> {
  await ctx.bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id,
      name: id,
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      cwd: PROJECT_ROOT,
      env,
      ...extra,
    },
  });
  await waitFor(
    async () =>
      (await ctx.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === id)?.status.state === state,
    20_000,
  );
}

/** A loopback port nothing listens on now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Records every text the page ever shows that has the contract's wording (a form's refusal may be brief). */
async function watchForContractWording(page: Page): Promise<() => Promise<string[]>> {
  // Runs in the page (no DOM types in this project): a MutationObserver over the whole document.
  await page.addInitScript(`
    window.__contractSeen = [];
    new MutationObserver(() => {
      const text = document.body ? document.body.innerText : '';
      if (/match(es)? the contract/i.test(text)) window.__contractSeen.push(text.slice(0, 2000));
    }).observe(document, { subtree: true, childList: true, characterData: true });
  `);
  return () => page.evaluate('window.__contractSeen') as Promise<string[]>;
}

test.describe('Settings → Models (34.1, 34.2, 34.10)', () => {
  test('a second model under a taken name asks "Replace the model named …?" with both configurations; Cancel keeps the first', async ({
    page,
  }) => {
    await openApp(page);
    await openView(page, 'Settings');
    const form = page.getByRole('form', { name: 'Add a model' });
    const save = async (url: string, model: string) => {
      await form.getByLabel('Name', { exact: true }).fill('Scripted');
      await form.getByLabel('Base URL').fill(url);
      await form.getByLabel('Model name').fill(model);
      await form.getByRole('button', { name: 'Save model' }).click();
    };
    await save('http://127.0.0.1:11434/v1', 'first-model');
    const rows = page.getByTestId('model-row');
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText('http://127.0.0.1:11434/v1');

    await save('http://127.0.0.1:8080/v1', 'second-model');
    const dialog = page.getByRole('alertdialog', { name: 'Replace the model named “Scripted”?' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('region', { name: 'Saved now' })).toContainText('http://127.0.0.1:11434/v1');
    await expect(dialog.getByRole('region', { name: 'Saved now' })).toContainText('first-model');
    await expect(dialog.getByRole('region', { name: 'Replace with' })).toContainText('http://127.0.0.1:8080/v1');
    await expect(dialog.getByRole('region', { name: 'Replace with' })).toContainText('second-model');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText('http://127.0.0.1:11434/v1');
    expect((await ctx.bridge.ok<Array<{ model: string }>>('models.list', {})).map((m) => m.model)).toEqual([
      'first-model',
    ]);

    // Confirmed: replaced, still one model of that name.
    await form.getByRole('button', { name: 'Save model' }).click();
    await dialog.getByRole('button', { name: 'Replace' }).click();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText('http://127.0.0.1:8080/v1');
  });

  test('a bad base URL or name is said at its field as a sentence, and cleared when the field changes', async ({
    page,
  }) => {
    const contractSeen = await watchForContractWording(page);
    await openApp(page);
    await openView(page, 'Settings');
    const form = page.getByRole('form', { name: 'Add a model' });
    const url = form.getByLabel('Base URL');
    await form.getByLabel('Name', { exact: true }).fill('Ollama');
    await form.getByLabel('Model name').fill('llama3.2');

    const cases: Array<[string, string]> = [
      ['127.0.0.1:11434/v1', 'Must start with http:// or https:// — did you mean http://127.0.0.1:11434/v1?'],
      ['localhost:11434', 'Must start with http:// or https:// — did you mean http://localhost:11434/v1?'],
      ['ftp://127.0.0.1/v1', 'Must start with http:// or https:// (not ftp://)'],
    ];
    for (const [typed, words] of cases) {
      await url.fill(typed);
      await form.getByRole('button', { name: 'Save model' }).click();
      await expect(url).toHaveAttribute('aria-invalid', 'true');
      await expect(form.locator('#model-base-url-error')).toHaveText(words);
      // Typing clears it.
      await url.press('End');
      await url.pressSequentially('x');
      await expect(form.locator('#model-base-url-error')).toHaveCount(0);
      await expect(url).not.toHaveAttribute('aria-invalid', 'true');
    }
    await url.fill('');
    const name = form.getByLabel('Name', { exact: true });
    await name.fill('n'.repeat(300));
    await form.getByRole('button', { name: 'Save model' }).click();
    await expect(form.locator('#model-name-error')).toHaveText('Must be at most 100 characters (this one has 300)');
    expect(await ctx.bridge.ok('models.list', {})).toEqual([]);
    expect(await contractSeen()).toEqual([]);
  });

  test('no form of the app shows the contract’s wording for bad input', async ({ page }) => {
    const contractSeen = await watchForContractWording(page);
    await openApp(page);

    // Servers → Add server: a URL without its scheme, a name too long, an empty command.
    const dialog = await openAddServer(page);
    await dialog.getByLabel('Name', { exact: true }).fill('x'.repeat(300));
    await dialog.getByRole('radio', { name: /Remote/ }).check();
    await dialog.getByLabel('URL', { exact: true }).fill('localhost:3000/mcp');
    await dialog
      .getByRole('button', { name: /^(Add server|Save)/ })
      .last()
      .click();
    await expect(dialog.locator('[aria-invalid="true"]').first()).toBeVisible();
    await dialog.getByRole('radio', { name: /Local process/ }).check();
    await dialog
      .getByRole('button', { name: /^(Add server|Save)/ })
      .last()
      .click();
    await page.keyboard.press('Escape');

    // Settings: each form with out-of-range and non-numeric values, a relative folder, and the models form.
    await openView(page, 'Settings');
    const port = page.getByLabel('Port', { exact: true });
    for (const value of ['99999', 'abc', '80']) {
      await port.fill(value);
      await page.getByRole('button', { name: 'Save gateway' }).click();
      await expect(port).toHaveAttribute('aria-invalid', 'true');
    }
    const idle = page.getByLabel('End an agent’s idle session after (minutes)');
    await idle.fill('0');
    await page.getByRole('button', { name: 'Save idle time' }).click();
    const timeout = page.getByLabel('Approval timeout (seconds)');
    await timeout.fill('5');
    await page.getByRole('button', { name: 'Save timeout' }).click();
    await page.getByLabel('Add a folder (absolute path)').fill('relative/folder');
    await page.getByRole('button', { name: 'Add folder' }).click();
    await expect(page.locator('#folder-add-error')).toBeVisible();
    const models = page.getByRole('form', { name: 'Add a model' });
    await models.getByLabel('Name', { exact: true }).fill('Typo');
    await models.getByLabel('Base URL').fill('localhost:11434');
    await models.getByLabel('Model name').fill('m'.repeat(250));
    await models.getByRole('button', { name: 'Save model' }).click();
    await expect(models.locator('.field-error').first()).toBeVisible();

    // Agents → Add agent: a name with characters agents may not have, then one too long.
    await openView(page, 'Agents');
    await page.getByRole('button', { name: 'Add agent' }).first().click();
    const agent = page.getByRole('dialog', { name: 'Add an agent' });
    for (const bad of ['bad’s <agent>', 'a'.repeat(300)]) {
      await agent.getByLabel('Name', { exact: true }).fill(bad);
      await agent.getByRole('button', { name: 'Add agent' }).click();
      await expect(agent.locator('[aria-invalid="true"], .callout, .field-error').first()).toBeVisible();
    }
    await page.keyboard.press('Escape');

    // Agent runs: a run with no task.
    await openView(page, 'Agent runs');
    const start = page.getByRole('form', { name: 'Start a run' });
    if (await start.isVisible()) {
      const button = start.getByRole('button', { name: 'Start run' });
      if (await button.isEnabled()) await button.click();
    }

    // Servers → Import: a file that is not JSON.
    await openView(page, 'Servers');
    await page.getByRole('button', { name: 'Import…' }).click();
    await page
      .getByLabel('Configuration file')
      .setInputFiles({ name: 'mcp.json', mimeType: 'application/json', buffer: Buffer.from('{ "mcpServers": ') });
    await expect(page.getByText('This file is not valid JSON')).toBeVisible();

    await expect(page.locator('body')).not.toContainText('does not match the contract');
    expect(await contractSeen()).toEqual([]);
  });

  test('Settings has its own sections navigation (Models reached without scrolling), and the gateway shows saved and listening ports', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1024, height: 640 });
    await openApp(page);
    await openView(page, 'Settings');
    const sections = page.getByRole('navigation', { name: 'Settings sections' });
    await expect(sections.getByRole('button')).toContainText(['Application', 'Models', 'Agent gateway', 'Approvals']);
    await sections.getByRole('button', { name: 'Agent gateway' }).click();
    await expect(page.getByRole('heading', { name: 'Agent gateway', level: 2 })).toBeInViewport();
    await expect(page.getByRole('heading', { name: 'Agent gateway', level: 2 })).toBeFocused();
    await sections.getByRole('button', { name: 'Models' }).click();
    await expect(page.getByRole('heading', { name: 'Models', level: 2 })).toBeInViewport();

    // This host listens on a free port (MINIHARNESS_GATEWAY_PORT=0), not the saved 47813: both are shown.
    const listening = (await ctx.bridge.ok<AgentsView>('agents.list', {})).gateway.port;
    expect(listening).not.toBe(47813);
    const ports = page.getByTestId('gateway-ports');
    await expect(ports).toContainText('Saved port47813');
    await expect(ports).toContainText(`Listening nowport ${listening}`);
    await expect(page.getByLabel('Port', { exact: true })).toHaveValue('47813');
  });
});

test.describe('protocol era pins (34.4)', () => {
  let modernOnly: ModernHttpFixture | undefined;
  test.afterEach(async () => {
    await modernOnly?.close();
    modernOnly = undefined;
  });

  test('Legacy → Automatic negotiates afresh instead of reusing the kept verdict', async ({ page }) => {
    await addFixture('legacy', { FIXTURE_TOOLS: 'echo' });
    await openApp(page);
    await serverRow(page, 'legacy').click();
    const detail = serverDetail(page, 'legacy');
    await expect(detail.getByTestId('protocol-era')).toHaveText('Legacy (initialize)');
    await expect(detail.getByTestId('protocol-era').locator('..')).toContainText('negotiated now');

    const setEra = async (label: string) => {
      await detail.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog');
      await edit.getByLabel('Protocol era').selectOption({ label });
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await expect(edit).toBeHidden();
    };
    await setEra('Legacy (2025, initialize)');
    await expect(detail.getByTestId('protocol-era').locator('..')).toContainText('pinned in its settings');
    await setEra('Automatic');
    await expect(detail.getByTestId('protocol-era').locator('..')).toContainText('negotiated now');
    await expect(detail).not.toContainText('from the kept verdict');
  });

  test('a Modern pin on a legacy-only server says to set Automatic; a Legacy pin on a modern-only server names the versions it offers', async ({
    page,
  }) => {
    await addFixture('oldserver', { FIXTURE_TOOLS: 'echo' }, { protocolEra: 'modern' }, 'error');
    modernOnly = await startModernHttp({ legacy: 'reject' });
    await ctx.bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'newserver',
        name: 'newserver',
        transport: 'streamable_http',
        url: modernOnly.url,
        protocolEra: 'legacy',
      },
    });
    await waitFor(
      async () =>
        (await ctx.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'newserver')?.status
          .state === 'error',
      20_000,
    );
    await openApp(page);
    await serverRow(page, 'oldserver').click();
    const old = serverDetail(page, 'oldserver');
    await expect(old).toContainText('Set Protocol era to Automatic');
    await expect(old).not.toContainText('pin the server’s protocol era');
    await serverRow(page, 'newserver').click();
    const modern = serverDetail(page, 'newserver');
    await expect(modern).toContainText('it offers only 2026-07-28');
    await expect(modern).toContainText('Set Protocol era to Automatic');
    await expect(modern).not.toContainText('-32022');
    await expect(modern).not.toContainText('"jsonrpc"');
    await expect(modern).not.toContainText('Connection error');
  });
});

test.describe('agent runs: History, Traces, approvals, an unreachable model (34.7, 34.9, 34.11)', () => {
  let loopback: LoopbackProvider;
  test.beforeEach(async () => {
    loopback = await new LoopbackProvider((request): ScriptedTurn => {
      if (request.toolResults > 0) return { kind: 'reply', text: ['Done.'] };
      return {
        kind: 'reply',
        text: ['Echoing.'],
        toolCalls: [{ id: `toolu_nc_${loopback.requests.length}`, name: 'echo', args: { text: 'from-run' } }],
      };
    }).start();
  });
  test.afterEach(async () => {
    await loopback.close();
  });

  async function startRun(page: Page, task: string): Promise<void> {
    await ctx.bridge.ok('models.save', {
      id: 'loop',
      name: 'Loopback',
      kind: 'anthropic',
      baseUrl: loopback.anthropicBaseUrl,
      model: 'loopback-model',
      apiKey: 'sk-newcomer-1234567890',
    });
    await openView(page, 'Agent runs');
    const start = page.getByRole('form', { name: 'Start a run' });
    await start.getByLabel('fx').check();
    await start.getByLabel('Task for the model').fill(task);
    await start.getByRole('button', { name: 'Start run' }).click();
  }

  test('a run’s approval says "The agent run …" once; its calls: caller column, All sessions offered and remembered, Traces names the run', async ({
    page,
  }) => {
    await addFixture('fx', { FIXTURE_TOOLS: 'echo' });
    // The person's own call (allowed for it), then echo asks again: the run's call brings an approval.
    await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ALLOW' });
    await ctx.bridge.ok('tools.call', {
      name: 'echo',
      serverId: 'fx',
      args: { text: 'mine' },
      callId: `e2e-${randomUUID()}`,
    });
    await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ASK' });
    await openApp(page);
    await startRun(page, 'echo from-run');
    const dialog = page.getByRole('alertdialog', {
      name: /^Approval: echo, asked by agent run [0-9a-f]{8} \(Loopback\)$/,
    });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(/The agent run [0-9a-f]{8} \(Loopback\) is waiting for your decision/);
    await expect(dialog).not.toContainText('The agent agent run');
    await expect(dialog.locator('.approval-caller')).toHaveText(/^agent run [0-9a-f]{8} \(Loopback\)$/);
    await dialog.getByRole('button', { name: /^Allow once/ }).click();
    await expect(page.getByTestId('run-status')).toHaveText('Completed');
    const run = (await ctx.bridge.ok<RunView[]>('runs.list', {}))[0]!;

    // History opens on this app session: the run's call is elsewhere, and History says so.
    await openView(page, 'History');
    const rows = page.locator('[data-history-row]');
    await expect(rows).toHaveCount(1);
    await expect(rows.first().locator('.h-caller')).toHaveText('You');
    await expect(
      page.getByRole('grid', { name: 'Recorded calls' }).getByRole('columnheader', { name: 'Caller' }),
    ).toBeVisible();
    const offer = page.locator('.other-sessions-bar');
    await expect(offer).toContainText('1 call is in other sessions');
    await offer.getByRole('button', { name: 'Show all sessions' }).click();
    await expect(rows).toHaveCount(2);
    await expect(rows.locator('.h-caller', { hasText: run.caller })).toHaveCount(1);

    // Remembered: a reload opens History on All sessions.
    await page.reload();
    await openView(page, 'History');
    await expect(page.getByRole('button', { name: /^Session: All sessions/ })).toBeVisible();
    await expect(rows).toHaveCount(2);

    // Traces: the run's session by its task and model, never as a raw id.
    await openView(page, 'Traces');
    const session = page.getByLabel('Session');
    await expect(session.locator('option', { hasText: 'Agent run: echo from-run (Loopback)' })).toHaveCount(1);
    const labels = await session.locator('option').allTextContents();
    expect(labels.filter((label) => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(label))).toEqual([]);
  });

  test('an unreachable model fails the run with its URL, what failed and that it was tried once', async ({ page }) => {
    await addFixture('fx', { FIXTURE_TOOLS: 'echo' });
    const port = await closedPort();
    await ctx.bridge.ok('models.save', {
      id: 'gone',
      name: 'Gone',
      kind: 'openai',
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'llama3.2',
    });
    await openApp(page);
    await openView(page, 'Agent runs');
    const start = page.getByRole('form', { name: 'Start a run' });
    await start.getByLabel('fx').check();
    await start.getByLabel('Task for the model').fill('say hi');
    await start.getByRole('button', { name: 'Start run' }).click();
    await expect(page.getByTestId('run-status')).toHaveText('Failed');
    const view = page.getByRole('main');
    await expect(view).toContainText(`POST http://127.0.0.1:${port}/v1/chat/completions`);
    await expect(view).toContainText('ECONNREFUSED');
    await expect(view).toContainText('tried once');
  });
});

test.describe('History and wording (34.7, 34.11)', () => {
  test.beforeAll(async () => {
    await buildTaskFixture();
  });

  test('a task record names its task id when it completed; tool names stay readable at 1024×640 with a call open', async ({
    page,
  }, testInfo) => {
    const tasksDir = testInfo.outputPath('tasks');
    await ctx.bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'tasks',
        name: 'Tasks',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_TASK_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { TASKS_DIR: tasksDir },
        sandbox: sandboxWritingTo({ TASKS_DIR: tasksDir }),
        protocolEra: 'modern',
      },
    });
    await waitFor(
      async () =>
        (await ctx.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'tasks')?.status.state ===
        'ready',
      20_000,
    );
    await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'tasks', toolName: 'long_job', level: 'ALLOW' });
    const callId = `e2e-${randomUUID()}`;
    const call = ctx.bridge.ok('tools.call', { name: 'long_job', serverId: 'tasks', args: { label: 'named' }, callId });
    await waitFor(() => taskEvents(tasksDir).some((e) => e.event === 'effect' && e.label === 'named'), 20_000);
    const downstream = taskEvents(tasksDir).find((e) => e.event === 'effect' && e.label === 'named')!;
    releaseTask(tasksDir, downstream.taskId);
    await call;

    await page.setViewportSize({ width: 1024, height: 640 });
    await openApp(page);
    await openView(page, 'History');
    const row = page.locator(`[data-history-row][data-call-id="${callId}"]`);
    await row.click();
    const detail = page.getByRole('region', { name: 'Call long_job' });
    await expect(detail.getByTestId('record-task')).toHaveText(`as task ${downstream.taskId}`);
    await expect(detail.getByTestId('record-caller')).toHaveText('by You');
    // The tool's name is shown whole in its row (not clipped to a few letters).
    const name = row.locator('.h-tool > code');
    await expect(name).toBeVisible();
    const fits = await name.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
    expect(fits).toBe(true);
  });

  test('the Caller filter offers the app of a server that has one', async ({ page }) => {
    await ctx.bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'basic',
        name: 'Basic',
        transport: 'stdio',
        command: process.execPath,
        args: [
          join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-basic-vanillajs', 'dist', 'index.js'),
          '--stdio',
        ],
        cwd: PROJECT_ROOT,
      },
    });
    await waitFor(
      async () =>
        ((await ctx.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'basic')?.toolCount ?? 0) >
        0,
      30_000,
    );
    await openApp(page);
    await openView(page, 'History');
    const caller = page.getByRole('search', { name: 'Filter history' }).getByLabel(/^Caller/);
    await expect(caller.locator('option', { hasText: "Basic's app" })).toHaveCount(1);
    await caller.selectOption({ label: "Basic's app" });
    await expect(caller).toHaveValue("Basic's app");
  });

  test('wording: a server request names a server once; Agent runs has its own icon; the page without its token names npm start', async ({
    page,
  }) => {
    await addFixture('fx', { FIXTURE_TOOLS: 'ask_form' });
    await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'ask_form', level: 'ALLOW' });
    await openApp(page);
    const asked = ctx.bridge.call('tools.call', {
      name: 'ask_form',
      serverId: 'fx',
      args: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
      callId: `e2e-${randomUUID()}`,
    });
    const ask = page.getByRole('alertdialog');
    await expect(ask).toContainText('From server fx.');
    await expect(ask).not.toContainText('From server fx fx');
    await ask.getByRole('button', { name: 'Decline' }).click();
    await asked.catch(() => undefined);

    const icon = (name: string) =>
      page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('button', { name: new RegExp(`^${name}`) })
        .locator('svg')
        .innerHTML();
    expect(await icon('Agent runs')).not.toBe(await icon('Tools'));

    const bare = await page.context().newPage();
    await bare.goto(ctx.host.origin);
    await expect(bare.getByRole('heading', { name: 'Not authorized' })).toBeVisible();
    await expect(bare.locator('main')).toContainText('npm start');
    await bare.close();
  });
});
