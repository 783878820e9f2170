/**
 * The BUILT renderer as Electron loads it: out/renderer/index.html over file://, in Chromium,
 * with the BUILT sandboxed preload (out/preload/preload.cjs) run by an init script against a
 * stand-in `electron` (contextBridge → window, ipcRenderer → a Playwright binding). Calls go
 * through the shell's own invoke handler (electron/shell/ipcHandler.ts: the sender check, with
 * the calling frame's real URL) to a real app core in this process; core events come back
 * through the shell's event forwarder. The page's meta CSP is the only policy (file:// has no
 * headers): nothing the app does may violate it, and it is the one in effect.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test as base } from '@playwright/test';
import { buildCore } from '../../../electron/core/core.js';
import type { Core } from '../../../electron/core/types.js';
import { FileSecretStore } from '../../../electron/secrets/fileSecretStore.js';
import { resolveAppLocation } from '../../../electron/shell/appLocation.js';
import { createEventForwarder, createInvokeHandler } from '../../../electron/shell/ipcHandler.js';
import { openConfConfigStore } from '../../../electron/web/confConfigStore.js';
import { META_CONTENT_SECURITY_POLICY } from '../../../shared/csp.js';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../../../shared/preloadApi.js';
import { buildFixtureServers } from '../../helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE } from '../../helpers/fixtures.js';
import { fillStdio, openAddServer, serverRow } from '../support/serverForm.js';
import { buildAppOnce } from '../support/webHost.js';
import { PRELOAD_BUNDLE, RENDERER_INDEX } from './support/builtMain.js';

// Electron lets a file:// page load its own module scripts (type="module" is fetched in CORS mode,
// and a file:// page's origin is opaque); Chromium does that only with this switch.
const test = base.extend<object, { launchOptions: Parameters<typeof base.use>[0]['launchOptions'] & object }>({
  launchOptions: [
    async ({ launchOptions }, use) =>
      use({ ...launchOptions, args: [...(launchOptions.args ?? []), '--allow-file-access-from-files'] }),
    { scope: 'worker' },
  ],
});
test.describe.configure({ timeout: 90_000 });

type BindingSource = Parameters<Parameters<Page['exposeBinding']>[1]>[0];

const INVOKE_BINDING = '__electronDoubleInvoke';
const EMIT_FUNCTION = '__electronDoubleEmit';

/** Runs the built preload in the page, its one module request (for Electron's API) answered by a stand-in. */
function preloadInitScript(preloadSource: string): string {
  return `(() => {
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, policy: e.originalPolicy, disposition: e.disposition });
  });
  const listeners = new Map();
  const ipcRenderer = {
    invoke: (channel, ...args) => window[${JSON.stringify(INVOKE_BINDING)}](channel, ...args),
    on(channel, listener) {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel).add(listener);
      return ipcRenderer;
    },
    removeListener(channel, listener) {
      listeners.get(channel)?.delete(listener);
      return ipcRenderer;
    },
  };
  Object.defineProperty(window, ${JSON.stringify(EMIT_FUNCTION)}, {
    value: (channel, args) => { for (const listener of [...(listeners.get(channel) ?? [])]) listener({ sender: undefined }, ...args); },
  });
  const contextBridge = { exposeInMainWorld: (key, api) => Object.defineProperty(window, key, { value: api, enumerable: true }) };
  const require = (name) => {
    if (name !== 'electron') throw new Error('a sandboxed preload can require only electron, not ' + name);
    return { contextBridge, ipcRenderer };
  };
  const module = { exports: {} };
  (function (require, module, exports) {
${preloadSource}
  })(require, module, module.exports);
})();`;
}

let dir: string;
let core: Core;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mh-file-renderer-'));
  const dataDir = join(dir, 'data');
  core = await buildCore({
    mode: 'electron',
    dataDir,
    workspaceDir: join(dir, 'workspace'),
    secrets: new FileSecretStore(join(dataDir, 'secrets.json'), 'Test'),
    config: openConfConfigStore(dataDir),
    version: '0.0.0-file-renderer',
    gateway: { port: 0 },
  });
  await core.start();
});

test.afterEach(async () => {
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

async function bindShell(page: Page): Promise<{ refused: string[] }> {
  const location = resolveAppLocation({
    isPackaged: false,
    devServerUrl: undefined,
    rendererIndexFile: RENDERER_INDEX,
  });
  const refused: string[] = [];
  const handle = createInvokeHandler<BindingSource>({
    location,
    describeSender: (source) => ({
      url: source.frame.url(),
      origin: 'file://',
      isMainFrame: source.frame === source.page.mainFrame(),
      fromAppWindow: source.page === page,
    }),
    dispatch: (channel, payload) => core.dispatch(channel, payload),
    log: (line) => void refused.push(line),
  });
  await page.exposeBinding(INVOKE_BINDING, (source, ipcChannel: unknown, channel: unknown, payload: unknown) => {
    if (ipcChannel !== IPC_INVOKE_CHANNEL) throw new Error(`the preload used IPC channel ${String(ipcChannel)}`);
    return handle(source, channel, payload);
  });
  const forward = createEventForwarder(location, IPC_EVENT_CHANNEL, () => ({
    url: () => page.url(),
    send: (ipcChannel, ...args) => {
      page
        .evaluate(`window[${JSON.stringify(EMIT_FUNCTION)}]?.(${JSON.stringify(ipcChannel)}, ${JSON.stringify(args)})`)
        .catch(() => undefined);
    },
  }));
  core.onEvent((event, payload) => forward(event, payload));
  await page.addInitScript({ content: preloadInitScript(readFileSync(PRELOAD_BUNDLE, 'utf8')) });
  return { refused };
}

test('the built page over file:// runs with the built preload under its own CSP: no violation, no error, a server added and listed', async ({
  page,
}) => {
  const pageErrors: string[] = [];
  const cspConsole: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (/Content[ -]Security[ -]Policy|Refused to/i.test(message.text()))
      cspConsole.push(`${message.type()}: ${message.text()}`);
  });
  const shell = await bindShell(page);

  await page.goto(pathToFileURL(RENDERER_INDEX).href);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  expect(await page.evaluate('typeof window.miniharness')).toBe('object');

  await test.step('a real flow: add a stdio server; it is listed and connects', async () => {
    const dialog = await openAddServer(page);
    await fillStdio(dialog, { name: 'Desktop fixture', command: process.execPath, args: [BUILT_STDIO_FIXTURE] });
    await dialog.getByRole('button', { name: 'Add server' }).click();
    await expect(dialog).toBeHidden();
    await expect(serverRow(page, 'Desktop fixture')).toContainText('Ready', { timeout: 20_000 });
    await page.getByRole('button', { name: 'Settings' }).first().click();
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  });

  await test.step('nothing violated the policy, nothing failed, no call was refused', async () => {
    expect(await page.evaluate('window.__cspViolations')).toEqual([]);
    expect(cspConsole).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(shell.refused).toEqual([]);
  });

  await test.step('the meta policy is the one in effect: an inline script is refused by it', async () => {
    const outcome = await page.evaluate(`new Promise((resolve) => {
      document.addEventListener('securitypolicyviolation', (event) => resolve({ ran: window.__inlineRan === true, directive: event.effectiveDirective, policy: event.originalPolicy }), { once: true });
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true;';
      document.head.append(script);
      // An inline script that is allowed runs on insertion: no violation will come.
      if (window.__inlineRan === true) resolve({ ran: true, directive: null, policy: null });
    })`);
    expect(outcome).toEqual({ ran: false, directive: 'script-src-elem', policy: META_CONTENT_SECURITY_POLICY });
  });
});
