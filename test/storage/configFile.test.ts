import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigStoreLocation } from '../../electron/storage/configFile.js';
import { openConfigStore } from '../../electron/storage/configFile.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';

// electron-store is conf inside Electron; conf with the same options stands in for it here.
const createConf = ({ cwd, name }: ConfigStoreLocation) =>
  new Conf<Record<string, unknown>>({ cwd, configName: name, configFileMode: 0o600 });
const STAMP = '2030-01-01T00-00-00-000Z';
const at2030 = () => Date.UTC(2030, 0, 1);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mh-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('openConfigStore (the binding both hosts share)', () => {
  it('stores values in <dataDir>/config.json, owner-only, in an owner-only folder it creates', () => {
    const dataDir = join(dir, 'nested', 'data');
    const store = openConfigStore(dataDir, createConf);
    expect(store.damaged).toEqual([]);
    store.set('servers', [{ id: 'a' }]);
    expect(store.path).toBe(join(dataDir, 'config.json'));
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({ servers: [{ id: 'a' }] });
    if (process.platform !== 'win32') {
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
    }
    expect(openConfigStore(dataDir, createConf).get('servers')).toEqual([{ id: 'a' }]);
  });

  it('tightens a config file an older version left 0644', () => {
    writeFileSync(join(dir, 'config.json'), '{"servers":[]}', { mode: 0o644 });
    openConfConfigStore(dir);
    if (process.platform !== 'win32') expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['not JSON', '{"servers": [', 'not_json'],
    ['empty', '', 'empty'],
    ['JSON but not an object', '[1, 2]', 'invalid_content'],
    ['JSON null', 'null', 'invalid_content'],
  ] as const)(
    'a file that is %s is moved aside with a timestamp, reported as data, and the app starts empty',
    (_label, content, problem) => {
      const file = join(dir, 'config.json');
      writeFileSync(file, content);
      const store = openConfConfigStore(dir, at2030);
      expect(store.get('servers')).toBeUndefined();
      expect(store.damaged).toEqual([
        { code: 'file_damaged', file, movedTo: `${file}.corrupt-${STAMP}`, lost: 'settings', problem },
      ]);
      expect(readdirSync(dir).sort()).toEqual([`config.json.corrupt-${STAMP}`]);
      expect(readFileSync(`${file}.corrupt-${STAMP}`, 'utf8')).toBe(content);
      store.set('x', 1);
      expect(readdirSync(dir).sort()).toEqual(['config.json', `config.json.corrupt-${STAMP}`]);
    },
  );

  it('a second damaged file in the same millisecond does not overwrite the first copy', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, 'first');
    openConfConfigStore(dir, at2030);
    writeFileSync(file, 'second');
    expect(openConfConfigStore(dir, at2030).damaged?.[0]?.movedTo).toBe(`${file}.corrupt-${STAMP}-1`);
    expect(readFileSync(`${file}.corrupt-${STAMP}`, 'utf8')).toBe('first');
    expect(readFileSync(`${file}.corrupt-${STAMP}-1`, 'utf8')).toBe('second');
  });

  it('does not hide other failures', () => {
    expect(() =>
      openConfigStore(dir, () => {
        throw new Error('EACCES: permission denied');
      }),
    ).toThrow(/EACCES/);
  });
});
