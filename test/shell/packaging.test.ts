/**
 * The packaging configuration, as electron-builder itself reads it: electron-builder.yml loaded
 * with its own loader and checked against its own schema; the app in an asar archive with the
 * native module unpacked and not rebuilt (its Node-API prebuild is Electron's too); and the fuses. For the fuses, the settings go
 * through electron-builder's own translation to @electron/fuses and are flipped by the real
 * @electron/fuses in a stand-in binary carrying Electron's fuse wire (its sentinel and default
 * states), then read back: what a packaged MiniHarness binary carries.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_ID } from '../../shared/product.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

const require = createRequire(import.meta.url);

interface BuilderConfig {
  asar?: boolean;
  asarUnpack?: string[];
  files?: Array<{ filter: string[] }>;
  npmRebuild?: boolean;
  nativeRebuilder?: string;
  buildDependenciesFromSource?: boolean;
  disableAsarIntegrity?: boolean;
  electronFuses?: Record<string, boolean>;
  productName?: string;
  appId?: string;
}

const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: object | null): Promise<BuilderConfig>;
  validateConfiguration(config: BuilderConfig, logger: object): Promise<void>;
};
const { DebugLogger } = require('builder-util/out/DebugLogger.js') as { DebugLogger: new (enabled: boolean) => object };
const { PlatformPackager } = require('app-builder-lib') as {
  PlatformPackager: {
    prototype: { generateFuseConfig(fuses: Record<string, boolean>): Promise<Record<string, unknown>> };
  };
};
// The @electron/fuses electron-builder itself flips with (its own dependency, whatever its version).
const builderRequire = createRequire(require.resolve('app-builder-lib'));
const fuses = builderRequire('@electron/fuses') as {
  flipFuses(path: string, config: Record<string, unknown>): Promise<number>;
  getCurrentFuseWire(path: string): Promise<Record<string, unknown>>;
  FuseV1Options: Record<string, number>;
};

const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const [DISABLE, ENABLE] = [48, 49];
/** Electron's shipped fuse states (RunAsNode, cookie encryption, NODE_OPTIONS, --inspect, asar integrity, only asar, V8 snapshot, file protocol). */
const ELECTRON_DEFAULT_WIRE = [ENABLE, DISABLE, ENABLE, ENABLE, DISABLE, DISABLE, DISABLE, ENABLE];

const scratch = mkdtempSync(join(tmpdir(), 'mh-packaging-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const loaded = getConfig(PROJECT_ROOT, null, null);

describe('electron-builder.yml', () => {
  // Compiling electron-builder's schema takes a while on a busy machine.
  it(
    'is valid for electron-builder (its own schema), and names the product and its id as the app does',
    { timeout: 180_000 },
    async () => {
      const config = await loaded;
      await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
      // The schema check is real: a misspelt key is refused.
      await expect(
        validateConfiguration({ ...config, electronFuse: {} } as BuilderConfig, new DebugLogger(false)),
      ).rejects.toThrow(/electronFuse/);
      const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
        productName: string;
        scripts: Record<string, string>;
      };
      expect(config.productName).toBe(pkg.productName);
      // The id main.ts gives Windows for its notifications.
      expect(config.appId).toBe(APP_ID);
      expect(pkg.scripts['package']).toBe('node scripts/package.mjs');
    },
  );

  it('packs the built app into an asar, unpacks native modules, and ships their prebuilt binaries as they are', async () => {
    const config = await loaded;
    expect(config.asar).toBe(true);
    expect(config.disableAsarIntegrity).not.toBe(true);
    // electron-builder's loader normalizes `files` to file sets.
    expect(config.files).toEqual([{ filter: expect.arrayContaining(['out/**', 'package.json']) }]);
    expect(config.asarUnpack).toContain('**/*.node');
    // sandbox-runtime's helpers are programs run by path (issue 29): never from inside the archive.
    expect(config.asarUnpack).toContain('**/node_modules/@anthropic-ai/sandbox-runtime/vendor/**');
    // better-sqlite3 13 is a Node-API addon: its prebuilt binary is Electron's too, nothing is rebuilt.
    expect(config.npmRebuild).toBe(false);
    expect(config.buildDependenciesFromSource).toBe(false);
  });

  it('flips the fuses: no run-as-node, NODE_OPTIONS or --inspect; asar only, with integrity; cookies encrypted', async () => {
    const config = await loaded;
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      resetAdHocDarwinSignature: true,
    });

    const binary = join(scratch, 'miniharness-desktop');
    writeFileSync(
      binary,
      Buffer.concat([
        Buffer.from('\x7fELF…code…'),
        Buffer.from(SENTINEL),
        Buffer.from([1, ELECTRON_DEFAULT_WIRE.length, ...ELECTRON_DEFAULT_WIRE]),
        Buffer.from('…more code'),
      ]),
    );
    const fuseConfig = await PlatformPackager.prototype.generateFuseConfig.call(null, config.electronFuses!);
    await fuses.flipFuses(binary, fuseConfig);
    const wire = await fuses.getCurrentFuseWire(binary);
    const state = (name: string) => wire[fuses.FuseV1Options[name]!];
    expect(state('RunAsNode')).toBe(DISABLE);
    expect(state('EnableNodeOptionsEnvironmentVariable')).toBe(DISABLE);
    expect(state('EnableNodeCliInspectArguments')).toBe(DISABLE);
    expect(state('EnableCookieEncryption')).toBe(ENABLE);
    expect(state('EnableEmbeddedAsarIntegrityValidation')).toBe(ENABLE);
    expect(state('OnlyLoadAppFromAsar')).toBe(ENABLE);
    // Left as Electron ships them.
    expect(state('LoadBrowserProcessSpecificV8Snapshot')).toBe(DISABLE);
    expect(state('GrantFileProtocolExtraPrivileges')).toBe(ENABLE);
  });
});
