import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import {
  BUILD_INPUTS,
  browserModeLine,
  failedStartReason,
  helperIsSetUid,
  sandboxBlocker,
  sandboxFixCommand,
  sandboxHelperPath,
  tailKeeper,
  usernsRestrictions,
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

describe('BUILD_INPUTS', () => {
  it('covers every project file the main and preload bundles inline (electron-vite bundles them the same way)', async () => {
    const bundle = await build({
      entryPoints: [join(PROJECT_ROOT, 'electron', 'main.ts'), join(PROJECT_ROOT, 'electron', 'preload.ts')],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outdir: join(PROJECT_ROOT, 'out', 'bundle-inputs-check'),
      logLevel: 'silent',
    });
    const files = Object.keys(bundle.metafile.inputs).map((file) => relative(PROJECT_ROOT, join(PROJECT_ROOT, file)));
    expect(files.length).toBeGreaterThan(10);
    const uncovered = files.filter(
      (file) => !BUILD_INPUTS.some((input) => file === input || file.startsWith(input + sep)),
    );
    expect(uncovered).toEqual([]);
  });

  it('includes the build config, package.json and scripts/ (whose files main may inline)', () => {
    expect(BUILD_INPUTS).toEqual(
      expect.arrayContaining(['electron', 'shared', 'renderer', 'scripts', 'electron.vite.config.ts', 'package.json']),
    );
  });
});

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
    expect(findElectronBinary(probe({ [pkg]: '{}', [pathTxt]: 'electron' }))).toEqual({
      reason: 'the binary named in node_modules/electron/path.txt is missing',
    });
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH like electron/index.js', () => {
    const found = findElectronBinary(
      probe({ [pkg]: '{}', '/opt/electron/electron': '' }, { ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' }),
    );
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
    expect(noBinary).toEqual({
      mode: 'browser',
      reason: 'Electron runtime not available (no binary in node_modules/electron)',
    });
    expect(browserModeLine((noBinary as { reason: string }).reason)).toBe(
      'MiniHarness: Electron runtime not available (no binary in node_modules/electron); starting browser mode.',
    );
    const headless = decideLaunch(probe(installed, {}));
    expect(headless).toEqual({
      mode: 'browser',
      reason:
        'no display for a window (neither DISPLAY nor WAYLAND_DISPLAY is set; run npm start in a desktop session for the window)',
    });
    expect(browserModeLine((headless as { reason: string }).reason)).not.toContain('\n');
  });

  it('honours MINIHARNESS_MODE=browser', () => {
    expect(decideLaunch(probe(installed, { DISPLAY: ':0', MINIHARNESS_MODE: 'browser' }))).toMatchObject({
      mode: 'browser',
    });
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
    expect(setupBlocker({ nodeVersion: 'v20.19.0', env: {} })).toBe(
      'setting it up needs Node.js 22.12.0 or later (this is Node.js 20.19.0)',
    );
    expect(setupBlocker({ nodeVersion: 'v22.12.0', env: {} })).toBeUndefined();
  });

  it('names the project’s engines beside it', () => {
    expect(setupBlocker({ nodeVersion: 'v20.19.0', env: {}, engines: '^22.22.2 || >=24.15.0' })).toBe(
      'setting it up needs Node.js 22.12.0 or later (this is Node.js 20.19.0; the project asks for Node.js ^22.22.2 || >=24.15.0)',
    );
  });

  it('honours npm --offline', () => {
    expect(setupBlocker({ nodeVersion: 'v24.1.0', env: { npm_config_offline: 'true' } })).toBe(
      'offline (npm --offline); connect and run npm start again (ELECTRON_MIRROR or an HTTPS proxy if GitHub is blocked)',
    );
  });
});

describe('electronDownloadHost', () => {
  it('is GitHub unless a mirror is configured the way @electron/get reads it', () => {
    expect(electronDownloadHost({})).toEqual({ host: 'github.com', port: 443 });
    expect(electronDownloadHost({ ELECTRON_MIRROR: 'https://npmmirror.com/mirrors/electron/' })).toEqual({
      host: 'npmmirror.com',
      port: 443,
    });
    expect(
      electronDownloadHost({
        npm_config_electron_mirror: 'http://mirror.local:8080/e/',
        ELECTRON_MIRROR: 'https://other/',
      }),
    ).toEqual({ host: 'mirror.local', port: 8080 });
    expect(electronDownloadHost({ ELECTRON_MIRROR: 'not a url' })).toEqual({ host: 'github.com', port: 443 });
  });

  it('knows when downloads go through a proxy (a direct probe would say nothing)', () => {
    expect(usesProxy({})).toBe(false);
    expect(usesProxy({ HTTPS_PROXY: 'http://proxy:3128' })).toBe(true);
  });
});

describe('the Linux sandbox helper', () => {
  const helperPath = '/home/me/app/node_modules/electron/dist/chrome-sandbox';
  const fix = `sudo chown root:root ${helperPath} && sudo chmod 4755 ${helperPath}`;
  const unset = { uid: 1000, mode: 0o100755 };
  const setUid = { uid: 0, mode: 0o104755 };

  it('reads the two sysctls: AppArmor’s restriction (1) and Debian’s clone switch (0)', () => {
    expect(usernsRestrictions({ apparmorRestrict: undefined, usernsClone: undefined })).toEqual([]);
    expect(usernsRestrictions({ apparmorRestrict: '0\n', usernsClone: '1\n' })).toEqual([]);
    expect(usernsRestrictions({ apparmorRestrict: '1\n', usernsClone: undefined })).toEqual([
      'kernel.apparmor_restrict_unprivileged_userns=1',
    ]);
    expect(usernsRestrictions({ apparmorRestrict: '1', usernsClone: '0' })).toEqual([
      'kernel.apparmor_restrict_unprivileged_userns=1',
      'kernel.unprivileged_userns_clone=0',
    ]);
  });

  it('is set up when owned by root with mode 4755, and only then', () => {
    expect(helperIsSetUid(setUid)).toBe(true);
    expect(helperIsSetUid(undefined)).toBe(false);
    expect(helperIsSetUid(unset)).toBe(false);
    expect(helperIsSetUid({ uid: 0, mode: 0o100755 })).toBe(false);
    expect(helperIsSetUid({ uid: 1000, mode: 0o104755 })).toBe(false);
  });

  it('sits beside the Electron binary', () => {
    expect(sandboxHelperPath('/x/node_modules/electron/dist/electron')).toBe(
      '/x/node_modules/electron/dist/chrome-sandbox',
    );
  });

  it('restricted namespaces and a helper not set up: one line with the exact fix, never --no-sandbox', () => {
    const reason = sandboxBlocker({
      platform: 'linux',
      apparmorRestrict: '1\n',
      usernsClone: undefined,
      helperPath,
      helper: unset,
    });
    expect(reason).toBe(
      "Electron's sandbox cannot start: this Linux restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1), " +
        `so its sandbox helper ${helperPath} is not owned by root with mode 4755; fix it with \`${fix}\` and run npm start again ` +
        '(an installed .deb brings an AppArmor profile and needs none of this)',
    );
    expect(browserModeLine(reason!)).not.toContain('\n');
    expect(reason).not.toContain('no-sandbox');
    expect(
      sandboxBlocker({
        platform: 'linux',
        apparmorRestrict: undefined,
        usernsClone: '0',
        helperPath,
        helper: undefined,
      }),
    ).toContain(`(kernel.unprivileged_userns_clone=0), so its sandbox helper ${helperPath} is missing`);
  });

  it('lets Electron start when namespaces are allowed, the helper is set up, or not on Linux', () => {
    expect(
      sandboxBlocker({ platform: 'linux', apparmorRestrict: '0', usernsClone: '1', helperPath, helper: unset }),
    ).toBeUndefined();
    expect(
      sandboxBlocker({
        platform: 'linux',
        apparmorRestrict: undefined,
        usernsClone: undefined,
        helperPath,
        helper: undefined,
      }),
    ).toBeUndefined();
    expect(
      sandboxBlocker({ platform: 'linux', apparmorRestrict: '1', usernsClone: '0', helperPath, helper: setUid }),
    ).toBeUndefined();
    expect(
      sandboxBlocker({ platform: 'darwin', apparmorRestrict: '1', usernsClone: '0', helperPath, helper: undefined }),
    ).toBeUndefined();
  });

  it('quotes a path with spaces in the fix', () => {
    expect(sandboxFixCommand("/home/me/my app's/chrome-sandbox")).toBe(
      `sudo chown root:root '/home/me/my app'\\''s/chrome-sandbox' && sudo chmod 4755 '/home/me/my app'\\''s/chrome-sandbox'`,
    );
  });
});

describe('failedStartReason', () => {
  const electronPath = '/repo/node_modules/electron/dist/electron';

  it('recognises Chromium’s sandbox-helper abort on stderr and gives the fix', () => {
    const stderrTail =
      '[1234:FATAL:setuid_sandbox_host.cc(158)] The SUID sandbox helper binary was found, but is not configured correctly. ' +
      "Rather than run without sandboxing I'm aborting now. You need to make sure that /repo/node_modules/electron/dist/chrome-sandbox is owned by root and has mode 4755.\n";
    const reason = failedStartReason({ code: null, signal: 'SIGTRAP', stderrTail, electronPath });
    expect(reason).toContain(
      'its sandbox helper /repo/node_modules/electron/dist/chrome-sandbox is not set up (Electron exited at startup, signal SIGTRAP)',
    );
    expect(reason).toContain(
      'sudo chown root:root /repo/node_modules/electron/dist/chrome-sandbox && sudo chmod 4755 /repo/node_modules/electron/dist/chrome-sandbox',
    );
    // Without a path in the message: the helper beside the binary.
    expect(
      failedStartReason({
        code: 133,
        signal: null,
        stderrTail: 'FATAL: No usable sandbox! If you are running on Ubuntu 23.10+…',
        electronPath,
      }),
    ).toContain('sudo chmod 4755 /repo/node_modules/electron/dist/chrome-sandbox');
  });

  it('otherwise says how it exited, and that its messages are above', () => {
    expect(
      failedStartReason({ code: 1, signal: null, stderrTail: 'MiniHarness could not start: boom', electronPath }),
    ).toBe('Electron exited at startup (exit code 1); its messages are above');
  });

  it('keeps only the tail of a long stderr', () => {
    const tail = tailKeeper(5);
    tail.add('abc');
    tail.add('defgh');
    expect(tail.text).toBe('defgh');
  });
});
