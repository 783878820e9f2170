/**
 * One install, two ABIs: the Electron shell loads better-sqlite3 through `nativeBinding` from the
 * cache folder `npm start` fills, and the database opener really uses the binary it is given
 * (Node's build here; a wrong path fails before any file is made).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAppDatabase } from '../../electron/app/database.js';
import { MissingSqliteBindingError, sqliteBindingFor } from '../../electron/shell/sqliteBinding.js';
import { ELECTRON_SQLITE_CACHE, electronSqliteBinding, installedSqliteVersion } from '../../scripts/electronSqlite.mjs';

const require = createRequire(import.meta.url);
/** Node's build of the module, as `npm install` made it. */
const nodeBuild = join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mh-sqlite-binding-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function installSqlite(version: string): void {
  mkdirSync(join(root, 'node_modules', 'better-sqlite3'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'better-sqlite3', 'package.json'), JSON.stringify({ name: 'better-sqlite3', version }));
}

describe('electronSqliteBinding', () => {
  it('names the build after the module version, the Electron ABI, the platform and the arch', () => {
    const path = electronSqliteBinding({ root, sqliteVersion: '12.11.1', abi: '150', platform: 'linux', arch: 'x64' });
    expect(path).toBe(join(root, ELECTRON_SQLITE_CACHE, '12.11.1-electron-v150-linux-x64', 'better_sqlite3.node'));
    expect(electronSqliteBinding({ root, sqliteVersion: '12.11.1', abi: '151', platform: 'linux', arch: 'x64' })).not.toBe(path);
  });

  it('reads the installed version, and nothing from a missing or broken package.json', () => {
    expect(installedSqliteVersion(root, () => undefined)).toBeUndefined();
    expect(installedSqliteVersion(root, () => '{not json')).toBeUndefined();
    installSqlite('12.11.1');
    expect(installedSqliteVersion(root, (p) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined))).toBe('12.11.1');
  });
});

describe('sqliteBindingFor (the Electron main process)', () => {
  const base = { abi: '150', platform: 'linux', arch: 'x64' };

  it('uses the cached Electron build when run from the project', () => {
    installSqlite('12.11.1');
    const path = electronSqliteBinding({ root, sqliteVersion: '12.11.1', ...base });
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
    expect(sqliteBindingFor({ isPackaged: false, appPath: root, ...base })).toBe(path);
  });

  it('says to run npm start when the Electron build is missing', () => {
    installSqlite('12.11.1');
    const expected = electronSqliteBinding({ root, sqliteVersion: '12.11.1', ...base });
    let thrown: unknown;
    try {
      sqliteBindingFor({ isPackaged: false, appPath: root, ...base });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MissingSqliteBindingError);
    expect((thrown as MissingSqliteBindingError).path).toBe(expected);
    expect((thrown as Error).message).toContain('npm start');
  });

  it('leaves a packaged app (module rebuilt by electron-builder) to the default lookup', () => {
    installSqlite('12.11.1');
    expect(sqliteBindingFor({ isPackaged: true, appPath: root, ...base })).toBeUndefined();
  });
});

describe('openAppDatabase({ nativeBinding })', () => {
  it('loads the binary it is given', () => {
    const db = openAppDatabase(':memory:', { nativeBinding: nodeBuild });
    try {
      expect(db.prepare('select 41 + 1 as n').get()).toEqual({ n: 42 });
    } finally {
      db.close();
    }
    const file = join(root, 'data', 'app.db');
    const onDisk = openAppDatabase(file, { nativeBinding: nodeBuild });
    onDisk.close();
    expect(existsSync(file)).toBe(true);
  });

  it('fails on a binary that is not there, naming it, and leaves no file behind', () => {
    const missing = join(root, 'electron-build', 'better_sqlite3.node');
    const file = join(root, 'data', 'app.db');
    expect(() => openAppDatabase(file, { nativeBinding: missing })).toThrow(/electron-build/);
    expect(readdirSync(join(root, 'data'))).toEqual([]);
    expect(() => openAppDatabase(':memory:', { nativeBinding: missing })).toThrow(/electron-build/);
  });
});
