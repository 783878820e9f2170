/**
 * `npm start`'s first-run setup, each branch: the real child-process run of Electron's installer,
 * with a fake script standing in for it at the process boundary (test/doubles/electron/), a real TCP probe (a loopback listener is "online", a closed
 * port is "offline"), in a scratch project folder with a scratch /proc (the user-namespace sysctls)
 * beside it.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PrepareInput } from '../../scripts/prepareLaunch.mjs';
import { canConnect, launchElectron, prepareLaunch } from '../../scripts/prepareLaunch.mjs';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'doubles', 'electron');
const installerScript = join(fixtures, 'fakeElectronInstaller.mjs');
const fakeElectron = join(fixtures, 'fakeElectron.mjs');

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
const installerRuns = () =>
  existsSync(join(root, 'installer-runs.log'))
    ? readFileSync(join(root, 'installer-runs.log'), 'utf8').trim().split('\n').length
    : 0;
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
    procRoot: join(root, 'fake-root'),
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
    expect(lines).toEqual([
      'MiniHarness: downloading Electron 45.5.0 with its own installer (node_modules/electron/install.js)…',
    ]);
  });

  it('offline: browser mode with the reason, and the installer never runs', async () => {
    const plan = await prepare({ ELECTRON_MIRROR: offlineMirror });
    expect(plan).toEqual({
      mode: 'browser',
      reason: `Electron runtime not available (no binary in node_modules/electron); offline (${new URL(offlineMirror).host} cannot be reached); connect and run npm start again (ELECTRON_MIRROR or an HTTPS proxy if GitHub is blocked)`,
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
    expect(plan).toEqual({
      mode: 'browser',
      reason: "Electron's installer failed (exit code 1); run `npx install-electron` to see why",
    });
    expect(installerRuns()).toBe(1);
  });

  it('an installer that exits 0 without a binary: browser mode, saying so', async () => {
    const plan = await prepare({ FAKE_INSTALLER: 'nothing' });
    expect(plan).toEqual({
      mode: 'browser',
      reason: "Electron's installer finished, but no binary in node_modules/electron",
    });
  });

  it('a Node.js older than Electron’s tooling needs: browser mode naming the version needed and the project’s engines', async () => {
    write('package.json', JSON.stringify({ name: 'scratch', engines: { node: '^22.22.2 || >=24.15.0' } }));
    const plan = await prepare({}, { nodeVersion: 'v20.19.0' });
    expect(plan).toEqual({
      mode: 'browser',
      reason:
        'Electron runtime not available (no binary in node_modules/electron); setting it up needs Node.js 22.12.0 or later (this is Node.js 20.19.0; the project asks for Node.js ^22.22.2 || >=24.15.0)',
    });
    expect(installerRuns()).toBe(0);
  });

  it('no display, or browser mode asked for: nothing is downloaded', async () => {
    await expect(prepare({ DISPLAY: undefined })).resolves.toMatchObject({
      mode: 'browser',
      reason: expect.stringMatching(/^no display/),
    });
    await expect(prepare({ MINIHARNESS_MODE: 'browser' })).resolves.toEqual({
      mode: 'browser',
      reason: 'browser mode requested (MINIHARNESS_MODE=browser)',
    });
    expect(installerRuns()).toBe(0);
  });
});

describe('prepareLaunch: the Linux sandbox helper, before launching', () => {
  const helper = () => join(root, 'node_modules', 'electron', 'dist', 'chrome-sandbox');
  function sysctl(name: string, value: string): void {
    write(join('fake-root', 'proc', 'sys', 'kernel', name), `${value}\n`);
  }

  it('Ubuntu 23.10+ (AppArmor restricts user namespaces) with the helper as npm left it: browser mode and the exact fix', async () => {
    installElectron();
    write('node_modules/electron/dist/chrome-sandbox', '');
    chmodSync(helper(), 0o755);
    sysctl('apparmor_restrict_unprivileged_userns', '1');
    const plan = await prepare({});
    expect(plan).toMatchObject({ mode: 'browser' });
    const { reason } = plan as { reason: string };
    expect(reason).toContain('kernel.apparmor_restrict_unprivileged_userns=1');
    expect(reason).toContain(`\`sudo chown root:root ${helper()} && sudo chmod 4755 ${helper()}\``);
    expect(reason).toContain('.deb brings an AppArmor profile');
  });

  it('user namespaces switched off (unprivileged_userns_clone=0) and no helper at all: browser mode, saying it is missing', async () => {
    installElectron();
    sysctl('unprivileged_userns_clone', '0');
    await expect(prepare({})).resolves.toMatchObject({
      mode: 'browser',
      reason: expect.stringContaining(`sandbox helper ${helper()} is missing`),
    });
  });

  it('user namespaces allowed: Electron starts, whatever the helper is', async () => {
    installElectron();
    sysctl('apparmor_restrict_unprivileged_userns', '0');
    sysctl('unprivileged_userns_clone', '1');
    await expect(prepare({})).resolves.toEqual({ mode: 'electron', electronPath: binary() });
  });

  it('not Linux: no sandbox check', async () => {
    installElectron();
    sysctl('apparmor_restrict_unprivileged_userns', '1');
    await expect(prepare({}, { platform: 'darwin' })).resolves.toEqual({ mode: 'electron', electronPath: binary() });
  });
});

describe('launchElectron: a start that fails explains itself', () => {
  function launch(behaviour: string) {
    let written = '';
    const ended = launchElectron({
      electronPath: fakeElectron,
      args: ['.'],
      cwd: root,
      env: { ...process.env, FAKE_ELECTRON: behaviour },
      stderr: { write: (chunk: string) => (written += chunk) },
    });
    return ended.then((result) => ({ result, written }));
  }

  it('Chromium’s sandbox-helper abort on stderr: still shown, and the fallback line gives the fix', async () => {
    const { result, written } = await launch('sandbox');
    expect(written).toContain('The SUID sandbox helper binary was found, but is not configured correctly');
    const helper = join(root, 'node_modules', 'electron', 'dist', 'chrome-sandbox');
    expect(result).toEqual({
      fallBack: expect.stringContaining(`\`sudo chown root:root ${helper} && sudo chmod 4755 ${helper}\``),
    });
  });

  it('another failure at startup: the fallback says how it exited', async () => {
    const { result, written } = await launch('fail');
    expect(written).toContain('MiniHarness could not start: something broke');
    expect(result).toEqual({ fallBack: 'Electron exited at startup (exit code 1); its messages are above' });
  });

  it('a clean exit is no failure', async () => {
    await expect(launch('ok')).resolves.toMatchObject({ result: { code: 0, signal: null } });
  });

  it('a binary that cannot be spawned: the fallback names the error', async () => {
    const result = await launchElectron({
      electronPath: join(root, 'missing-electron'),
      args: [],
      cwd: root,
      env: {},
      stderr: { write: () => true },
    });
    expect(result).toEqual({ fallBack: expect.stringMatching(/^Electron could not be started \(spawn .* ENOENT\)$/) });
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
