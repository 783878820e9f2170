/**
 * MCP Apps security, in Chromium: a hostile app (test/doubles/apps/hostile-app.html, served by a
 * real stdio MCP server) rendered by the real GUI in browser mode, two frames deep behind the
 * sandbox proxy on its own origin. The app tries everything and writes what happened into its
 * own page, which the test reads through the frames. It must not be able to: read the page's
 * bridge token (the page's URL, DOM or storage), open the bridge WebSocket, touch the parent DOM,
 * navigate the top window, open a popup, or fetch an origin its CSP does not allow — while the
 * one origin its resource declares stays reachable (the CSP comes from `ui.csp`).
 *
 * Run: npx playwright test test/e2e/appsSecurity.spec.ts
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ServerView } from '../../shared/contract.js';
import { PROJECT_ROOT, waitFor } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 90_000 });

const HOSTILE_SERVER = join(PROJECT_ROOT, 'test', 'doubles', 'apps', 'hostile-app-server.ts');

let scratch: string;
let host: WebHostProcess | undefined;
let bridge: Bridge | undefined;
/** The one origin the app's resource declares (answers "declared-ok" to anyone, CORS included). */
let declared: Server | undefined;
let declaredUrl = '';

test.beforeAll(() => {
  test.setTimeout(180_000);
  buildAppOnce();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-apps-security-'));
  declared = createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' }).end('declared-ok'),
  );
  await new Promise<void>((resolve) => declared!.listen(0, '127.0.0.1', () => resolve()));
  declaredUrl = `http://127.0.0.1:${(declared.address() as AddressInfo).port}/`;
  host = await startWebHost({ dataDir: join(scratch, 'data') });
  bridge = await Bridge.connect(host);
  await bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'hostile',
      name: 'Hostile',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', HOSTILE_SERVER],
      cwd: PROJECT_ROOT,
      env: { HOSTILE_CONNECT_ORIGIN: new URL(declaredUrl).origin },
    },
  });
  await waitFor(
    async () =>
      ((await bridge!.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'hostile')?.toolCount ?? 0) > 0,
    30_000,
  );
  // No dialogs here: the tool and the read of its app's HTML are allowed (apps.spec.ts covers the approval).
  await bridge.ok('permissions.setToolLevel', { serverId: 'hostile', toolName: 'probe', level: 'ALLOW' });
  await bridge.ok('permissions.setToolLevel', { serverId: 'hostile', toolName: 'resources/read', level: 'ALLOW' });
});

test.afterEach(async () => {
  bridge?.close();
  await host?.stop();
  declared?.closeAllConnections();
  await new Promise<void>((resolve) => (declared ? declared.close(() => resolve()) : resolve()));
  bridge = undefined;
  host = undefined;
  declared = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

test('a hostile app reaches nothing of the host: token, bridge, parent DOM, top navigation, popups, undeclared origins', async ({
  page,
  context,
}, testInfo) => {
  const popups: string[] = [];
  context.on('page', (opened) => popups.push(opened.url()));
  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  const pageUrl = page.url();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="probe"][data-server="hostile"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call probe' });
  await panel.getByRole('tab', { name: 'Raw JSON' }).click();
  const hostPort = Number(new URL(host!.url).port);
  await panel
    .getByLabel('Arguments (JSON object)')
    .fill(JSON.stringify({ hostPort, allowedUrl: declaredUrl, guess: host!.token }));
  await panel.getByRole('button', { name: 'Run' }).click();

  const app = panel.getByTestId('call-app');
  await expect(app).toHaveAttribute('data-app-ready', 'true');
  const outer = app.locator('iframe.app-frame-outer');
  // The outer frame: the sandbox proxy, on another origin, made opaque, without popups or top navigation.
  await expect(outer).toHaveAttribute('sandbox', 'allow-scripts');
  const proxySrc = (await outer.getAttribute('src')) ?? '';
  expect(new URL(proxySrc).origin).not.toBe(new URL(host!.url).origin);
  const report = page
    .frameLocator('[data-testid="call-app"] iframe.app-frame-outer')
    .frameLocator('iframe')
    .locator('#report');
  await expect(report).not.toHaveText('waiting', { timeout: 20_000 });
  const probes = JSON.parse((await report.textContent()) ?? '{}') as Record<string, string>;
  await testInfo.attach('probes', { body: JSON.stringify(probes, null, 2), contentType: 'application/json' });
  await app.scrollIntoViewIfNeeded();
  const path = testInfo.outputPath('hostile-app.png');
  await page.screenshot({ path });
  await testInfo.attach('hostile-app', { path, contentType: 'image/png' });

  // The token: the host page's URL, DOM and storage are another origin's.
  expect(probes.topHref).toMatch(/^blocked:SecurityError/);
  expect(probes.topHash).toMatch(/^blocked:SecurityError/);
  expect(probes.topSessionStorage).toMatch(/^blocked:SecurityError/);
  expect(probes.topLocalStorage).toMatch(/^blocked:SecurityError/);
  // Its own origin is opaque: no storage, no cookies of any site.
  expect(probes.ownStorage).toMatch(/^blocked:SecurityError/);
  expect(probes.cookie).toMatch(/^blocked:SecurityError/);
  // Nothing the app was given or can see names the token.
  expect(probes.seen).not.toContain(host!.token);
  // The parent DOM (the proxy) and the top DOM (the host page).
  expect(probes.parentDom).toMatch(/^blocked:SecurityError/);
  expect(probes.topDom).toMatch(/^blocked:SecurityError/);
  // No navigation of the top window or the proxy, and no popup.
  expect(probes.topNavigate).toMatch(/^blocked:SecurityError/);
  expect(probes.parentNavigate).toMatch(/^blocked:SecurityError/);
  expect(probes.popup).toBe('blocked:PopupBlocked');
  // The bridge WebSocket and the host's HTTP: CSP connect-src (and the host's Origin check behind it).
  expect(probes.webSocket).toMatch(/^blocked:/);
  expect(probes.fetchHost).toMatch(/^blocked:/);
  // The one origin the resource declared is reachable: the policy is the app's own, not a blanket refusal.
  expect(probes.fetchAllowed).toBe('allowed:declared-ok');

  expect(page.url()).toBe(pageUrl);
  expect(popups).toEqual([]);
  // The host page is intact and still connected.
  await expect(page.getByRole('heading', { name: 'Tools', level: 1 })).toBeVisible();
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('probe shown');
});

test('an app sends no packet through WebRTC: RTCPeerConnection toward a STUN/TURN server on a loopback UDP listener, in its realm or a nested one', async ({
  page,
}) => {
  // The "STUN/TURN server" the app names: a UDP listener that counts what reaches it.
  const listener = createSocket('udp4');
  let packets = 0;
  listener.on('message', () => (packets += 1));
  await new Promise<void>((resolve) => listener.bind(0, '127.0.0.1', () => resolve()));
  try {
    const rtcPort = listener.address().port;
    await page.goto(host!.url);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: /^Tools/ })
      .click();
    await page
      .getByRole('navigation', { name: 'Tool list' })
      .locator('button[data-tool="probe"][data-server="hostile"]')
      .click();
    const panel = page.getByRole('region', { name: 'Call probe' });
    await panel.getByRole('tab', { name: 'Raw JSON' }).click();
    await panel.getByLabel('Arguments (JSON object)').fill(JSON.stringify({ rtcPort }));
    await panel.getByRole('button', { name: 'Run' }).click();
    await expect(panel.getByTestId('call-app')).toHaveAttribute('data-app-ready', 'true');
    // The probe reports once every connection it could open has gathered a candidate (its STUN requests are out by then).
    const rtc = page
      .frameLocator('[data-testid="call-app"] iframe.app-frame-outer')
      .frameLocator('iframe')
      .locator('#rtc');
    await expect(rtc).not.toHaveText('', { timeout: 30_000 });
    const report = JSON.parse((await rtc.textContent()) ?? '{}') as Record<string, string>;
    // The count rides along so a failure shows what reached the listener (before the guard: 10 or more).
    expect({ ...report, packets }).toEqual({
      packets: 0,
      direct: 'blocked:NotAllowedError',
      webkit: 'blocked:NotAllowedError',
      reassigned: 'blocked:NotAllowedError',
      // The nested frames are removed as they are inserted: no realm of their own to take a constructor from.
      childFrame: 'blocked:TypeError',
      windowIndex: 'blocked:TypeError',
      srcdocFrame: 'blocked:removed',
      srcdocAfterTampering: 'blocked:removed',
    });
  } finally {
    listener.close();
  }
});

test('the app is answered and told as the extension says: host capabilities and context, then a denied call’s input and its cancellation', async ({
  page,
}) => {
  await bridge!.ok('permissions.setToolLevel', { serverId: 'hostile', toolName: 'probe', level: 'ASK' });
  await page.goto(host!.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="probe"][data-server="hostile"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call probe' });
  await panel.getByRole('tab', { name: 'Raw JSON' }).click();
  await panel.getByLabel('Arguments (JSON object)').fill(JSON.stringify({ quiet: true }));
  await panel.getByRole('button', { name: 'Run' }).click();

  // While the call waits for approval the app is already there, with the call's arguments.
  const app = panel.getByTestId('call-app');
  await expect(app).toHaveAttribute('data-app-ready', 'true');
  const witness = page.frameLocator('[data-testid="call-app"] iframe.app-frame-outer').frameLocator('iframe');
  await expect(witness.locator('#events')).toHaveText(/^tool-input\s*$/);
  const initialize = JSON.parse((await witness.locator('#initialize').textContent()) ?? '{}') as {
    protocolVersion?: string;
    hostInfo?: { name?: string };
    hostCapabilities?: Record<string, unknown>;
    hostContext?: {
      theme?: string;
      displayMode?: string;
      availableDisplayModes?: string[];
      containerDimensions?: { width?: number };
      toolInfo?: { tool?: { name?: string } };
    };
  };
  expect(initialize.protocolVersion).toBe('2026-01-26');
  expect(initialize.hostInfo?.name).toBe('MiniHarness Desktop');
  expect(Object.keys(initialize.hostCapabilities ?? {}).sort()).toEqual([
    'logging',
    'message',
    'openLinks',
    'serverResources',
    'serverTools',
  ]);
  expect(initialize.hostContext).toMatchObject({
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    toolInfo: { tool: { name: 'probe' } },
  });
  expect(['light', 'dark']).toContain(initialize.hostContext?.theme);
  expect(initialize.hostContext?.containerDimensions?.width).toBeGreaterThan(0);

  // Denied: no result, the app is told the call was cancelled, with the reason.
  await page.getByRole('alertdialog').getByRole('button', { name: /^Deny/ }).click();
  await expect(panel.getByRole('region', { name: 'Call failed' })).toBeVisible();
  await expect(witness.locator('#events')).toHaveText(/^tool-input\ntool-cancelled \S.*\s*$/);
  await expect(witness.locator('#events')).not.toContainText('tool-result');
});

test('an app that takes its frame to another page (out of its CSP) is removed, and the panel closes it', async ({
  page,
}) => {
  // The page it goes to would keep talking to the host: it posts a tools/call as soon as it loads.
  const talker = createServer((_req, res) =>
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end(
        '<!doctype html><p id="talker">talker</p><script>parent.postMessage({jsonrpc:"2.0",id:99,method:"tools/call",params:{name:"probe",arguments:{quiet:true}}},"*")</script>',
      ),
  );
  await new Promise<void>((resolve) => talker.listen(0, '127.0.0.1', () => resolve()));
  try {
    const talkerUrl = `http://127.0.0.1:${(talker.address() as AddressInfo).port}/`;
    await page.goto(host!.url);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: /^Tools/ })
      .click();
    await page
      .getByRole('navigation', { name: 'Tool list' })
      .locator('button[data-tool="probe"][data-server="hostile"]')
      .click();
    const panel = page.getByRole('region', { name: 'Call probe' });
    await panel.getByRole('tab', { name: 'Raw JSON' }).click();
    await panel.getByLabel('Arguments (JSON object)').fill(JSON.stringify({ leaveTo: talkerUrl }));
    await panel.getByRole('button', { name: 'Run' }).click();
    await expect(panel.getByRole('region', { name: 'Result' })).toContainText('probe shown');
    // The proxy removed the frame and asked the host to close the app; the panel did.
    await expect(panel.getByTestId('call-app')).toHaveCount(0, { timeout: 15_000 });
    // The talker's tools/call never ran: the only probe call is the person's.
    const records = (
      await bridge!.ok<{ records: Array<{ userId: string }> }>('history.page', { toolName: 'probe', limit: 10 })
    ).records;
    expect(records.map((record) => record.userId)).toEqual(['gui']);
  } finally {
    talker.closeAllConnections();
    await new Promise<void>((resolve) => talker.close(() => resolve()));
  }
});
