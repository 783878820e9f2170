/**
 * The People page of `miniharness serve`, in Chromium: the first admin (the printed one-time link)
 * opens People, finds someone who was refused for lack of a role, gives them one — they can then
 * sign in; makes an API token (shown once) that the command line uses, and revokes it — it is then
 * refused. A viewer's page has no People at all (and main refuses its channels: test/serve/people.test.ts).
 *
 * Run: npm run build && npx playwright test test/e2e/servePeople.spec.ts
 */
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

let idp: TeamIdp;
let serve: ServeInstance;
let dir: string;
let port: number;

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mh-e2e-people-'));
  idp = await startTeamIdp(
    {
      alice: { email: 'alice@team.example', name: 'Alice Admin' },
      carol: { email: 'carol@team.example', name: 'Carol Viewer' },
      dave: { email: 'dave@team.example', name: 'Dave New' },
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
    people: { 'carol@team.example': 'viewer' },
  };
  serve = await startServeInstance(dir, config, { MINIHARNESS_OIDC_CLIENT_SECRET: idp.clientSecret });
});

test.afterAll(async () => {
  await serve?.stop();
  await idp.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Fills the provider's form; resolves on the page MiniHarness answered with. */
async function signInAt(page: Page, url: string, user: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('User').fill(user);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
}

test('an admin gives a role on People, makes and revokes an API token; a viewer has no People page', async ({
  browser,
}) => {
  const link = /(http:\/\/127\.0\.0\.1:\d+\/auth\/login\?bootstrap=[\w-]+)/.exec(serve.output)?.[1];
  expect(link, serve.output).toBeDefined();
  const [aliceContext, daveContext, carolContext] = [
    await browser.newContext(),
    await browser.newContext(),
    await browser.newContext(),
  ];
  const [alice, dave, carol] = [
    await aliceContext.newPage(),
    await daveContext.newPage(),
    await carolContext.newPage(),
  ];

  // Dave has no role yet: refused, and listed for the admin.
  await signInAt(dave, `http://127.0.0.1:${port}/auth/login`, 'dave');
  await expect(dave.getByText(/Dave New has no role on this MiniHarness/)).toBeVisible();

  // A viewer: signed in (the sidebar says so once main answered), and no People in the navigation.
  await signInAt(carol, `http://127.0.0.1:${port}/`, 'carol');
  await expect(carol.getByLabel('Signed in as')).toHaveText('Carol Viewer · viewer');
  await expect(carol.getByRole('navigation').getByRole('button', { name: 'People' })).toHaveCount(0);

  await signInAt(alice, link as string, 'alice');
  await expect(alice.getByLabel('Signed in as')).toHaveText('Alice Admin · admin');
  await alice.getByRole('navigation').getByRole('button', { name: 'People' }).click();
  const people = alice.getByRole('table', { name: 'People' });
  await expect(people.getByRole('row', { name: /Carol Viewer|Alice Admin|Dave New/ }).first()).toBeVisible();
  const daveRole = alice.getByLabel('Role of Dave New');
  await expect(daveRole).toHaveValue('');
  await daveRole.selectOption('approver');
  await expect(daveRole).toHaveValue('approver');
  // Carol is named in the configuration file: she cannot be removed here.
  await expect(alice.getByRole('button', { name: 'Remove Carol Viewer' })).toBeDisabled();

  // Now Dave gets in, as an approver.
  // (still signed in at the provider: no form this time)
  await dave.goto(`http://127.0.0.1:${port}/auth/login`);
  await expect(dave.getByLabel('Signed in as')).toHaveText('Dave New · approver');

  // A token for the command line: shown once, works, then revoked.
  await alice.getByLabel('Token name').fill('nightly');
  await alice.getByLabel('Token role').selectOption('viewer');
  await alice.getByRole('button', { name: 'Create token' }).click();
  const secret = (await alice.getByLabel('New token').textContent()) ?? '';
  expect(secret).toMatch(/^mh_[\w-]{20,}$/);
  const tokens = alice.getByRole('table', { name: 'API tokens' });
  await expect(tokens.getByRole('row', { name: /nightly/ })).toContainText('Alice Admin');
  const cli = await BridgeClient.connect(port, { token: secret });
  expect(await cli.call('history.page', {})).toMatchObject({ ok: true });
  await alice.getByRole('button', { name: 'Revoke nightly' }).click();
  await alice.getByRole('alertdialog', { name: 'Revoke nightly?' }).getByRole('button', { name: 'Revoke' }).click();
  await expect(tokens.getByRole('row', { name: /nightly/ })).toContainText('Revoked');
  expect(await cli.call('history.page', {})).toMatchObject({ ok: false, error: { code: 'role_forbidden' } });
  cli.close();
  await expect(BridgeClient.connect(port, { token: secret })).rejects.toThrow(/401/);

  // Removed: Dave's sessions end; his next visit is refused for lack of a role.
  await alice.getByRole('button', { name: 'Remove Dave New' }).click();
  await alice.getByRole('alertdialog', { name: 'Remove Dave New?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(people.getByRole('row', { name: /Dave New/ })).toHaveCount(0);
  await dave.goto(`http://127.0.0.1:${port}/`);
  await expect(dave.getByText(/Dave New has no role on this MiniHarness/)).toBeVisible();

  for (const context of [aliceContext, daveContext, carolContext]) await context.close();
});
