/**
 * OAuth sign-in end to end in browser mode (issue 11): a server saved with "OAuth sign-in" shows
 * "Needs sign-in"; Sign in makes the page open the authorization server's page in a new tab (the
 * `oauth.authorize` event), which redirects to the app's loopback listener; the server becomes
 * ready with its tools. Sign out forgets the token. The loopback authorization server approves at
 * once (test/doubles/servers/oauth-server.ts), so no person has to click in the tab.
 *
 * Run: npx playwright test test/e2e/oauth.spec.ts
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { OAuthFixture } from '../doubles/servers/oauth-server.js';
import { startOAuthFixture } from '../doubles/servers/oauth-server.js';
import { hostPerTest } from './support/hostPerTest.js';
import { fillHttp, openAddServer, serverDetail, serverRow } from './support/serverForm.js';
import { filesContaining } from './support/webHost.js';

test.describe.configure({ timeout: 90_000 });

const context = hostPerTest('mh-e2e-oauth-');
let as: OAuthFixture | undefined;

test.afterEach(async () => {
  await as?.close();
  as = undefined;
});

test('sign in through a browser tab, then sign out', async ({ page }) => {
  as = await startOAuthFixture();
  await page.goto(context.host.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();

  const dialog = await openAddServer(page);
  await fillHttp(dialog, { name: 'Notes', url: as.url });
  await dialog.getByRole('checkbox', { name: /^OAuth sign-in/ }).check();
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();

  const detail = serverDetail(page, 'Notes');
  await serverRow(page, 'Notes').click();
  await expect(serverRow(page, 'Notes')).toContainText('Needs sign-in');
  expect(as.registrations).toEqual([]); // nothing happens at the authorization server before Sign in

  const tab = page.waitForEvent('popup');
  await detail.getByRole('button', { name: 'Sign in', exact: true }).click();
  const signInPage = await tab;
  await expect(signInPage.getByRole('heading', { name: 'Signed in' })).toBeVisible();
  expect(new URL(signInPage.url()).hostname).toBe('127.0.0.1');
  await signInPage.close();

  await expect(serverRow(page, 'Notes')).toContainText('Ready');
  await expect(serverRow(page, 'Notes')).toContainText('2 tools');
  await expect(detail.getByRole('button', { name: 'Sign out' })).toBeVisible();
  const token = as.accessTokens()[0]?.token ?? '';
  expect(token).not.toBe('');
  // Only the secret store holds it (browser mode here stores secrets in a 0600 file of the data folder).
  expect(filesContaining(join(context.scratch, 'data'), token)).toEqual(['secrets.json']);
  await expect(page.locator('body')).not.toContainText(token);

  await detail.getByRole('button', { name: 'Sign out' }).click();
  await expect(serverRow(page, 'Notes')).toContainText('Needs sign-in');
  await expect(detail.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  expect(filesContaining(join(context.scratch, 'data'), token)).toEqual([]);
});
