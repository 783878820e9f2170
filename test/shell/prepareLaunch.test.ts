/**
 * `npm start`'s first-run setup, each branch: the real child-process run of Electron's installer,
 * with a fake script standing in for it at the process boundary (test/fixtures/desktop/), a real TCP probe (a loopback listener is "online", a closed
 * port is "offline"), in a scratch project folder.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PrepareInput } from '../../scripts/prepareLaunch.mjs';
import { canConnect, prepareLaunch } from '../../scripts/prepareLaunch.mjs';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'desktop');
const installerScript = join(fixtures, 'fakeElectronInstaller.mjs');

let listener: Server;
let onlineMirror: string;
let offlineMirror: string;

beforeAll(async () => {
  listener = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  onlineMirror = `http://127.0.0.1:${(listener.address() as { port: number }).port}/electron/`;
  // A port that was just free and is closed again: connecting is refused at once.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  offlineMirror = `http://127.0.0.1:${(closed.address() as { port: number }).port}/electron/`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

let root: string;
const lines: string[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mh-prepare-'));
  lines.length = 0;
  write('node_modules/electron/package.json', JSON.stringify({ name: 'electron', version: '45.5.0' }));
  write('node_modules/electron/abi_version', '150');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(relative: string, text: string): void {
  mkdirSync(dirname(join(root, relative)), { recursive: true });
  writeFileSync(join(root, relative), text);
}

const binary = () => join(root, 'node_modules', 'electron', 'dist', 'electron');
const installerRuns = () => (existsSync(join(root, 'installer-runs.log')) ? readFileSync(join(root, 'installer-runs.log'), 'utf8').trim().split('\n').length : 0);
function installElectron(): void {
  write('node_modules/electron/path.txt', 'electron');
  write('node_modules/electron/dist/electron', '');
}

function prepare(env: Record<string, string | undefined>, overrides: Partial<PrepareInput> = {}) {
  return prepareLaunch({
    root,
    platform: 'linux',
    arch: 'x64',
    env: { DISPLAY: ':0', ELECTRON_MIRROR: onlineMirror, ...env },
    nodeVersion: 'v22.12.0',
    installerScript,
    probeTimeoutMs: 5_000,
    log: (line) => lines.push(line),
    ...overrides,
  });
}

describe('prepareLaunch: the Electron binary', () => {
  it('runs Electron when the binary is there, without installing anything', async () => {
    installElectron();
    await expect(prepare({})).resolves.toEqual({ mode: 'electron', electronPath: binary() });
    expect(installerRuns()).toBe(0);
  });

  it('online with a display and no binary: runs Electron’s installer, then Electron (the database module needs no setup)', async () => {
    const plan = await prepare({ FAKE_INSTALLER: 'ok' });
    expect(plan).toEqual({ mode: 'electron', electronPath: binary() });
    expect(installerRuns()).toBe(1);
    expect(lines).toEqual(['MiniHarness: downloading Electron 45.5.0 with its own installer (node_modules/electron/install.js)…']);
  });

  it('offline: browser mode with the reason, and the installer never runs', async () => {
    const plan = await prepare({ ELECTRON_MIRROR: offlineMirror });
    expect(plan).toEqual({
      mode: 'browser',
      reason: `Electron runtime not available (no binary in node_modules/electron); offline (${new URL(offlineMirror).host} cannot be reached)`,
    });
    expect(installerRuns()).toBe(0);
  });

  it('npm --offline: browser mode without probing or installing', async () => {
    const plan = await prepare({ npm_config_offline: 'true' });
    expect(plan).toMatchObject({ mode: 'browser', reason: expect.stringContaining('offline (npm --offline)') });
    expect(installerRuns()).toBe(0);
  });

  it('a failed download: browser mode naming the installer’s exit', async () => {
    const plan = await prepare({ FAKE_INSTALLER: 'fail' });
    expect(plan).toEqual({ mode: 'browser', reason: "Electron's installer failed (exit code 1); run `npx install-electron` to see why" });
    expect(installerRuns()).toBe(1);
  });

  it('an installer that exits 0 without a binary: browser mode, saying so', async () => {
    const plan = await prepare({ FAKE_INSTALLER: 'nothing' });
    expect(plan).toEqual({ mode: 'browser', reason: "Electron's installer finished, but no binary in node_modules/electron" });
  });

  it('a Node.js older than Electron’s tooling needs: browser mode naming the version needed', async () => {
    const plan = await prepare({}, { nodeVersion: 'v20.19.0' });
    expect(plan).toEqual({
      mode: 'browser',
      reason: 'Electron runtime not available (no binary in node_modules/electron); setting it up needs Node.js 22.12.0 or later (this is Node.js 20.19.0)',
    });
    expect(installerRuns()).toBe(0);
  });

  it('no display, or browser mode asked for: nothing is downloaded', async () => {
    await expect(prepare({ DISPLAY: undefined })).resolves.toMatchObject({ mode: 'browser', reason: expect.stringMatching(/^no display/) });
    await expect(prepare({ MINIHARNESS_MODE: 'browser' })).resolves.toEqual({ mode: 'browser', reason: 'browser mode requested (MINIHARNESS_MODE=browser)' });
    expect(installerRuns()).toBe(0);
  });
});

describe('canConnect', () => {
  it('tells a listening port from a closed one', async () => {
    const online = new URL(onlineMirror);
    const offline = new URL(offlineMirror);
    await expect(canConnect(online.hostname, Number(online.port), 5_000)).resolves.toBe(true);
    await expect(canConnect(offline.hostname, Number(offline.port), 5_000)).resolves.toBe(false);
  });
});
