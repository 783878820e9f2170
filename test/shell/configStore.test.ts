import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigStoreLocation } from '../../electron/shell/configStore.js';
import { openConfigStore } from '../../electron/shell/configStore.js';

// electron-store is conf inside Electron; conf with the same options stands in for it here.
const createConf = ({ cwd, name }: ConfigStoreLocation) => new Conf<Record<string, unknown>>({ cwd, configName: name, configFileMode: 0o600 });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mh-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('openConfigStore', () => {
  it('stores values in <dataDir>/config.json, owner-only', async () => {
    const { store, warnings } = await openConfigStore(dir, createConf);
    expect(warnings).toEqual([]);
    store.set('servers', [{ id: 'a' }]);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({ servers: [{ id: 'a' }] });
    if (process.platform !== 'win32') expect(statSync(store.path).mode & 0o777).toBe(0o600);
    const { store: reopened } = await openConfigStore(dir, createConf);
    expect(reopened.get('servers')).toEqual([{ id: 'a' }]);
  });

  it('moves a file that is not JSON aside and starts empty, saying so', async () => {
    writeFileSync(join(dir, 'config.json'), '{"servers": [');
    const { store, warnings } = await openConfigStore(dir, createConf, () => Date.UTC(2030, 0, 1));
    expect(store.get('servers')).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('config.json.corrupt-2030-01-01T00-00-00-000Z');
    expect(readdirSync(dir).sort()).toEqual(['config.json.corrupt-2030-01-01T00-00-00-000Z']);
    store.set('x', 1);
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'config.json.corrupt-2030-01-01T00-00-00-000Z']);
  });

  it('does not hide other failures', async () => {
    await expect(
      openConfigStore(dir, () => {
        throw new Error('EACCES: permission denied');
      }),
    ).rejects.toThrow(/EACCES/);
  });
});
