import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserModeLine,
  decideLaunch,
  electronDownloadHost,
  electronEnv,
  findElectronBinary,
  hasDisplay,
  isBuildStale,
  nodeAtLeast,
  setupBlocker,
  shouldFallBack,
  usesProxy,
} from '../../scripts/startDecision.mjs';

const root = '/repo';
const pathTxt = join(root, 'node_modules/electron/path.txt');
const pkg = join(root, 'node_modules/electron/package.json');
const binary = join(root, 'node_modules/electron/dist/electron');

function probe(files: Record<string, string>, env: Record<string, string | undefined> = {}, platform = 'linux') {
  return { root, platform, env, exists: (p: string) => p in files, readText: (p: string) => files[p] };
}

describe('isBuildStale', () => {
  it('builds when an output is missing or older than the newest input', () => {
    expect(isBuildStale({ outputMtimes: [], newestInputMtime: 0 })).toBe(true);
    expect(isBuildStale({ outputMtimes: [10, undefined, 10], newestInputMtime: 1 })).toBe(true);
    expect(isBuildStale({ outputMtimes: [10, 5, 10], newestInputMtime: 6 })).toBe(true);
    expect(isBuildStale({ outputMtimes: [10, 7, 10], newestInputMtime: 6 })).toBe(false);
  });
});

describe('findElectronBinary', () => {
  it('finds the binary named in path.txt without requiring electron', () => {
    expect(findElectronBinary(probe({ [pkg]: '{}', [pathTxt]: 'electron\n', [binary]: '' }))).toEqual({ path: binary });
  });

  it('says why when there is none', () => {
    expect(findElectronBinary(probe({}))).toEqual({ reason: 'the electron package is not installed' });
    expect(findElectronBinary(probe({ [pkg]: '{}' }))).toEqual({ reason: 'no binary in node_modules/electron' });
    expect(findElectronBinary(probe({ [pkg]: '{}', [pathTxt]: 'electron' }))).toEqual({ reason: 'the binary named in node_modules/electron/path.txt is missing' });
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH like electron/index.js', () => {
    const found = findElectronBinary(probe({ [pkg]: '{}', '/opt/electron/electron': '' }, { ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' }));
    expect(found).toEqual({ path: '/opt/electron/electron' });
  });
});

describe('hasDisplay', () => {
  it('needs DISPLAY or WAYLAND_DISPLAY on Linux only', () => {
    expect(hasDisplay('linux', {})).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: ':0' })).toBe(true);
    expect(hasDisplay('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
    expect(hasDisplay('darwin', {})).toBe(true);
    expect(hasDisplay('win32', {})).toBe(true);
  });
});

describe('decideLaunch', () => {
  const installed = { [pkg]: '{}', [pathTxt]: 'electron', [binary]: '' };

  it('runs Electron when the binary and a display are there', () => {
    expect(decideLaunch(probe(installed, { DISPLAY: ':0' }))).toEqual({ mode: 'electron', electronPath: binary });
  });

  it('falls back to browser mode with a one-line reason', () => {
    const noBinary = decideLaunch(probe({ [pkg]: '{}' }, { DISPLAY: ':0' }));
    expect(noBinary).toEqual({ mode: 'browser', reason: 'Electron runtime not available (no binary in node_modules/electron)' });
    expect(browserModeLine((noBinary as { reason: string }).reason)).toBe(
      'MiniHarness: Electron runtime not available (no binary in node_modules/electron); starting browser mode.',
    );
    const headless = decideLaunch(probe(installed, {}));
    expect(headless).toMatchObject({ mode: 'browser', reason: expect.stringMatching(/no display/) });
    expect(browserModeLine((headless as { reason: string }).reason)).not.toContain('\n');
  });

  it('honours MINIHARNESS_MODE=browser', () => {
    expect(decideLaunch(probe(installed, { DISPLAY: ':0', MINIHARNESS_MODE: 'browser' }))).toMatchObject({ mode: 'browser' });
  });
});

describe('shouldFallBack', () => {
  it('falls back when Electron fails right at startup', () => {
    expect(shouldFallBack({ code: 1, signal: null, elapsedMs: 500, interrupted: false })).toBe(true);
    expect(shouldFallBack({ code: null, signal: 'SIGTRAP', elapsedMs: 500, interrupted: false })).toBe(true);
  });

  it('does not fall back on a clean exit, a late failure, or a user interrupt', () => {
    expect(shouldFallBack({ code: 0, signal: null, elapsedMs: 500, interrupted: false })).toBe(false);
    expect(shouldFallBack({ code: 1, signal: null, elapsedMs: 60_000, interrupted: false })).toBe(false);
    expect(shouldFallBack({ code: null, signal: 'SIGINT', elapsedMs: 500, interrupted: true })).toBe(false);
  });
});

describe('electronEnv', () => {
  it('drops ELECTRON_RUN_AS_NODE and keeps the rest', () => {
    const env = { PATH: '/bin', ELECTRON_RUN_AS_NODE: '1' };
    expect(electronEnv(env)).toEqual({ PATH: '/bin' });
    expect(env.ELECTRON_RUN_AS_NODE).toBe('1');
  });
});

describe('nodeAtLeast', () => {
  it('compares major, minor and patch numerically', () => {
    expect(nodeAtLeast('v22.12.0', '22.12.0')).toBe(true);
    expect(nodeAtLeast('v22.11.9', '22.12.0')).toBe(false);
    expect(nodeAtLeast('v20.20.2', '22.12.0')).toBe(false);
    expect(nodeAtLeast('23.0.0', '22.12.0')).toBe(true);
    expect(nodeAtLeast('v22.100.0', '22.12.0')).toBe(true);
  });
});

describe('setupBlocker', () => {
  it('names the Node.js Electron’s tooling needs', () => {
    expect(setupBlocker({ nodeVersion: 'v20.19.0', env: {} })).toBe('setting it up needs Node.js 22.12.0 or later (this is Node.js 20.19.0)');
    expect(setupBlocker({ nodeVersion: 'v22.12.0', env: {} })).toBeUndefined();
  });

  it('honours npm --offline', () => {
    expect(setupBlocker({ nodeVersion: 'v24.1.0', env: { npm_config_offline: 'true' } })).toBe('offline (npm --offline)');
  });
});

describe('electronDownloadHost', () => {
  it('is GitHub unless a mirror is configured the way @electron/get reads it', () => {
    expect(electronDownloadHost({})).toEqual({ host: 'github.com', port: 443 });
    expect(electronDownloadHost({ ELECTRON_MIRROR: 'https://npmmirror.com/mirrors/electron/' })).toEqual({ host: 'npmmirror.com', port: 443 });
    expect(electronDownloadHost({ npm_config_electron_mirror: 'http://mirror.local:8080/e/', ELECTRON_MIRROR: 'https://other/' })).toEqual({ host: 'mirror.local', port: 8080 });
    expect(electronDownloadHost({ ELECTRON_MIRROR: 'not a url' })).toEqual({ host: 'github.com', port: 443 });
  });

  it('knows when downloads go through a proxy (a direct probe would say nothing)', () => {
    expect(usesProxy({})).toBe(false);
    expect(usesProxy({ HTTPS_PROXY: 'http://proxy:3128' })).toBe(true);
  });
});
