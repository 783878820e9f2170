/**
 * Two `miniharness serve` processes on one PostgreSQL, in Chromium: a call made through instance
 * A (the command line's token) asks for approval; Bob, signed in on instance B only, sees it on
 * B's page and allows it there; the call on A completes (issue 36: approvals reach every
 * instance's approvers, electron/core/sharedApprovals.ts).
 *
 * Needs MINIHARNESS_TEST_POSTGRES_URL (a role that may CREATE DATABASE); skipped without it.
 * Run: npm run build && npx playwright test test/e2e/serveTeamTwoInstances.spec.ts
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import pg from 'pg';
import { startTeamIdp } from '../doubles/oidc/teamIdp.js';
import type { TeamIdp } from '../doubles/oidc/teamIdp.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import { BridgeClient } from '../web/host.js';
import { freePort } from '../gateway/ports.js';

const ADMIN_URL = process.env.MINIHARNESS_TEST_POSTGRES_URL;
test.skip(!ADMIN_URL, 'needs MINIHARNESS_TEST_POSTGRES_URL');
test.describe.configure({ timeout: 180_000 });

const CLI_TOKEN = 'e2e-two-cli-token-0123456789abcdef';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

interface Instance {
  child: ChildProcess;
  port: number;
  output: string;
}

let idp: TeamIdp;
let dir: string;
let dbName: string;
const instances: Instance[] = [];

async function startInstance(name: string, databaseUrl: string): Promise<Instance> {
  const port = await freePort();
  idp.allowRedirect(`http://127.0.0.1:${port}/auth/callback`);
  const config = {
    dataDir: join(dir, name, 'data'),
    workspaceDir: join(dir, name, 'workspace'),
    listen: { host: '127.0.0.1', port },
    gateway: { port: 0 },
    oidc: { issuer: idp.issuer, clientId: idp.clientId },
    people: { 'bob@team.example': 'approver' },
    apiTokens: [{ name: 'ops', role: 'admin', sha256: createHash('sha256').update(CLI_TOKEN).digest('hex') }],
  };
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'electron', 'cli', 'main.ts'), 'serve', '--config', file],
    {
      cwd: PROJECT_ROOT,
      // The database URL carries a password: from the environment, as in a deployment.
      env: { ...process.env, MINIHARNESS_OIDC_CLIENT_SECRET: idp.clientSecret, MINIHARNESS_DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const instance: Instance = { child, port, output: '' };
  child.stdout?.on('data', (d: Buffer) => (instance.output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (instance.output += d.toString()));
  instances.push(instance);
  await expect
    .poll(() => (/listening on/.test(instance.output) ? 'listening' : instance.output), { timeout: 90_000 })
    .toBe('listening');
  return instance;
}

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mh-e2e-serve2-'));
  idp = await startTeamIdp({ bob: { email: 'bob@team.example', name: 'Bob Approver' } }, { hostname: 'localhost' });
  dbName = `mh_test_e2e_two_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin(`CREATE DATABASE ${dbName}`);
});

test.afterAll(async () => {
  for (const { child } of instances) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  await idp?.close();
  if (dbName) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  rmSync(dir, { recursive: true, force: true });
});

test('an approval asked through instance A is allowed on instance B’s page, and the call on A completes', async ({
  browser,
}) => {
  const url = new URL(ADMIN_URL as string);
  url.pathname = `/${dbName}`;
  const a = await startInstance('a', url.toString());
  const b = await startInstance('b', url.toString());

  const context = await browser.newContext();
  const bob = await context.newPage();
  await bob.goto(`http://127.0.0.1:${b.port}/`);
  await bob.getByLabel('User').fill('bob');
  await bob.getByRole('button', { name: 'Sign in' }).click();
  await expect(bob).toHaveURL(new RegExp(`^http://127\\.0\\.0\\.1:${b.port}/`));
  await expect(bob.getByRole('navigation').first()).toBeVisible();

  const cli = await BridgeClient.connect(a.port, { token: CLI_TOKEN });
  const call = cli.call('tools.call', {
    name: 'write_file',
    serverId: 'local',
    args: { path: 'across.txt', content: 'allowed on B' },
    callId: `e2e-two-${Date.now()}`,
  });
  const dialog = bob.getByRole('alertdialog', { name: /^Approval: write_file/ });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /^Allow once/ }).click();
  expect(await call).toMatchObject({ ok: true, result: { result: { isError: false } } });
  expect(readFileSync(join(dir, 'a', 'workspace', 'across.txt'), 'utf8')).toBe('allowed on B');
  await expect(dialog).toBeHidden();
  cli.close();
  await context.close();
});
