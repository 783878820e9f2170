/**
 * Browser mode's approval notifications end to end: the real host and fixture server, the built
 * page in Chromium with notifications allowed for its origin (as the person would allow them).
 * Settings says they are on; an approval that arrives while the page is in the background shows
 * a Web Notification that names the tool (not the arguments), and clicking it brings the person
 * to the request.
 *
 * Headless Chromium keeps every page "visible and focused", so the test marks the page as in the
 * background (document.visibilityState / hasFocus) before the request arrives, and records the
 * notifications the page makes by wrapping the real `Notification` constructor (init script).
 *
 * Run: npx playwright test test/e2e/notifications.spec.ts
 */
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { stdioFixtureConfig } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';

const context = hostPerTest('mh-e2e-notify-');

interface Recorded {
  title: string;
  body: string;
  tag: string;
}

/** Wraps the page's Notification: every notification it makes is recorded and kept for a click. */
function recordNotifications(): void {
  type Options = { body?: string; tag?: string };
  type Made = { onclick: ((event: unknown) => void) | null };
  const page = globalThis as unknown as {
    Notification: (new (title: string, options?: Options) => Made) & { permission: string };
  };
  const Real = page.Notification;
  const made: Array<{ title: string; body: string; tag: string; instance: Made }> = [];
  class Recording extends Real {
    constructor(title: string, options?: Options) {
      super(title, options);
      made.push({ title, body: options?.body ?? '', tag: options?.tag ?? '', instance: this });
    }
  }
  Object.defineProperty(Recording, 'permission', { get: () => Real.permission });
  Object.defineProperty(globalThis, 'Notification', { value: Recording, configurable: true, writable: true });
  Object.defineProperty(globalThis, '__notifications', { value: made });
}

type PageGlobals = { __notifications?: Array<Recorded & { instance: { onclick: ((event: unknown) => void) | null } }> };

async function recorded(page: Page): Promise<Recorded[]> {
  return page.evaluate(() =>
    ((globalThis as unknown as PageGlobals).__notifications ?? []).map(({ title, body, tag }) => ({
      title,
      body,
      tag,
    })),
  );
}

test('with notifications allowed, an approval arriving in the background notifies, and the click opens it', async ({
  page,
}, testInfo) => {
  const { host, bridge, scratch } = context;
  await page.context().grantPermissions(['notifications'], { origin: host.origin });
  await page.addInitScript(recordNotifications);
  // The fixture over stdio, untrusted (the default): its tools ask first.
  await bridge.ok('servers.save', {
    mode: 'create',
    config: stdioFixtureConfig(
      'fx',
      { FIXTURE_COUNTER: join(scratch, 'counter.txt'), FIXTURE_TOOLS: 'append' },
      { name: 'Fixture' },
    ),
  });
  await expect
    .poll(async () => (await bridge.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state, {
      timeout: 20_000,
    })
    .toBe('ready');

  await page.goto(host.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Settings/ })
    .click();
  const card = page.getByRole('region', { name: 'Browser notifications' });
  await expect(card).toContainText('This browser will notify you about waiting approvals.');
  // The desktop-only setting is not offered in browser mode.
  await expect(page.getByRole('region', { name: 'Desktop' })).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('settings-notifications.png') });

  // The page goes to the background, then a call asks (sent over the bridge, like an agent's).
  await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { hasFocus(): boolean } }).document;
    Object.defineProperty(doc, 'visibilityState', { value: 'hidden', configurable: true });
    doc.hasFocus = () => false;
  });
  const call = bridge.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'secret-line' },
    callId: 'notify-call-0001',
  });
  await expect.poll(() => recorded(page)).toHaveLength(1);
  const [shown] = await recorded(page);
  expect(shown?.title).toBe('Approve append?');
  expect(shown?.body).toContain('server “fx”');
  expect(shown?.body).not.toContain('secret-line');

  // The dialog is up in the page; "Decide later" sets it aside, and the notification's click opens the Approvals view on it.
  await page.getByRole('alertdialog').getByRole('button', { name: 'Decide later' }).click();
  await page.evaluate(() => (globalThis as unknown as PageGlobals).__notifications?.[0]?.instance.onclick?.({}));
  await expect(page.getByRole('heading', { name: 'Approvals', level: 1 })).toBeVisible();
  await page.getByRole('list', { name: 'Pending approvals' }).getByRole('button', { name: /^Deny/ }).click();
  await expect(call).resolves.toMatchObject({ ok: false, error: { code: 'permission_denied' } });
});
