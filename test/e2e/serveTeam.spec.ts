/**
 * `miniharness serve` for a team, in Chromium: two people sign in through a real OpenID Connect
 * provider on another site (test/doubles/oidc/teamIdp.ts) — the first with the one-time admin link the process
 * printed, the second as an approver named in the configuration — and see the real UI. A call
 * made through the command line's token asks for approval: it reaches both people's pages; the
 * approver allows it; the admin's page says who decided.
 *
 * Run: npm run build && npx playwright test test/e2e/serveTeam.spec.ts
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { startTeamIdp } from '../doubles/oidc/teamIdp.js';
import type { TeamIdp } from '../doubles/oidc/teamIdp.js';
import { BridgeClient } from '../web/host.js';
import { freePort } from '../gateway/ports.js';
import type { ServeInstance } from './serveInstance.js';
import { startServeInstance } from './serveInstance.js';

test.describe.configure({ timeout: 120_000 });

const CLI_TOKEN = 'e2e-cli-token-0123456789abcdef';

let idp: TeamIdp;
let serve: ServeInstance;
let dir: string;
let port: number;

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mh-e2e-serve-'));
  // On another site than MiniHarness (localhost vs 127.0.0.1), as a team's provider is: the way
  // back is a cross-site navigation, which must still reach the signed-in page.
  idp = await startTeamIdp(
    {
      alice: { email: 'alice@team.example', name: 'Alice Admin' },
      bob: { email: 'bob@team.example', name: 'Bob Approver' },
    },
    { hostname: 'localhost' },
  );
  port = await freePort();
  idp.allowRedirect(`http://127.0.0.1:${port}/auth/callback`);
  const config = {
    dataDir: join(dir, 'data'),
    workspaceDir: join(dir, 'workspace'),
    listen: { host: '127.0.0.1', port },
    gateway: { port: 0 },
    oidc: { issuer: idp.issuer, clientId: idp.clientId },
    people: { 'bob@team.example': 'approver' },
    apiTokens: [{ name: 'ops', role: 'admin', sha256: createHash('sha256').update(CLI_TOKEN).digest('hex') }],
  };
  serve = await startServeInstance(dir, config, { MINIHARNESS_OIDC_CLIENT_SECRET: idp.clientSecret });
});

test.afterAll(async () => {
  await serve?.stop();
  await idp.close();
  rmSync(dir, { recursive: true, force: true });
});

async function signIn(page: Page, url: string, user: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('User').fill(user);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Back at MiniHarness, signed in: the real UI, with its navigation.
  await expect(page).toHaveURL(new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
  await expect(page.getByRole('navigation').first()).toBeVisible();
}

test('the first admin signs in with the printed link, an approver decides a call on their page, the admin sees who decided', async ({
  browser,
}) => {
  const link = /(http:\/\/127\.0\.0\.1:\d+\/auth\/login\?bootstrap=[\w-]+)/.exec(serve.output)?.[1];
  expect(link, serve.output).toBeDefined();
  const aliceContext = await browser.newContext();
  const bobContext = await browser.newContext();
  const alice = await aliceContext.newPage();
  const bob = await bobContext.newPage();
  await signIn(alice, link as string, 'alice');
  // Without a session, the app sends the browser to sign in first.
  await signIn(bob, `http://127.0.0.1:${port}/`, 'bob');

  const cli = await BridgeClient.connect(port, { token: CLI_TOKEN });
  const call = cli.call('tools.call', {
    name: 'write_file',
    serverId: 'local',
    args: { path: 'team.txt', content: 'decided by the team' },
    callId: `e2e-${Date.now()}`,
  });
  const bobDialog = bob.getByRole('alertdialog', { name: /^Approval: write_file/ });
  const aliceDialog = alice.getByRole('alertdialog', { name: /^Approval: write_file/ });
  await expect(bobDialog).toBeVisible();
  await expect(aliceDialog).toBeVisible();
  await bobDialog.getByRole('button', { name: /^Allow once/ }).click();
  expect(await call).toMatchObject({ ok: true, result: { result: { isError: false } } });
  await expect(aliceDialog).toBeHidden();
  await expect(alice.getByRole('region', { name: 'Notifications' })).toContainText('Bob Approver allowed write_file.');
  cli.close();
  await aliceContext.close();
  await bobContext.close();
});
