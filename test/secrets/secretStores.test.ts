/**
 * Browser mode's secret stores: the 0600 file (one shared load, so concurrent first reads of a
 * damaged file never race on moving it aside) and the OS keyring through the library's async
 * API, with the fallback to the file when the keyring refuses (this machine answers AccessDenied).
 */
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SecretBackendInfo } from '../../electron/secrets/types.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { KeyringSecretStore, openBrowserSecretStore } from '../../electron/secrets/keyringSecretStore.js';
import { SecretValue } from '../../electron/secrets/secretValue.js';
import { scratchDir } from '../helpers/fixtures.js';

describe('FileSecretStore', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let file: string;
  beforeEach(() => {
    scratch = scratchDir();
    file = join(scratch.dir, 'data', 'secrets.json');
  });
  afterEach(() => scratch.cleanup());

  it('50 concurrent first reads of a damaged file: all answer, it is moved aside once, and reported once', async () => {
    const store = new FileSecretStore(file, 'Test', () => Date.UTC(2032, 0, 1));
    mkdirSync(join(scratch.dir, 'data'));
    writeFileSync(file, '{"format": 1, "secrets": {"auth.token": "sk-half');
    const reads = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? store.has('auth.token') : store.get('auth.token'))),
    );
    expect(reads.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(reads.every((r) => r.status === 'fulfilled' && (r.value === false || r.value === undefined))).toBe(true);
    const movedTo = `${file}.corrupt-2032-01-01T00-00-00-000Z`;
    expect(readdirSync(join(scratch.dir, 'data'))).toEqual(['secrets.json.corrupt-2032-01-01T00-00-00-000Z']);
    expect(readFileSync(movedTo, 'utf8')).toBe('{"format": 1, "secrets": {"auth.token": "sk-half');
    expect(await store.damagedFiles()).toEqual([
      { code: 'file_damaged', file, movedTo, lost: 'secrets', problem: 'not_json' },
    ]);
    // Writing afterwards starts a fresh, private file.
    await store.set('auth.token', new SecretValue('sk-new-value'));
    expect((await store.get('auth.token'))?.reveal()).toBe('sk-new-value');
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('a file of the wrong shape is damaged too; a good one is read and tightened to 0600', async () => {
    mkdirSync(join(scratch.dir, 'data'));
    writeFileSync(file, JSON.stringify({ format: 2, secrets: {} }));
    const wrong = new FileSecretStore(file);
    expect(await wrong.damagedFiles()).toMatchObject([{ problem: 'invalid_content', lost: 'secrets' }]);

    writeFileSync(file, JSON.stringify({ format: 1, secrets: { k: 'value' } }), { mode: 0o644 });
    const good = new FileSecretStore(file);
    expect((await good.get('k'))?.reveal()).toBe('value');
    expect(await good.damagedFiles()).toEqual([]);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('an unreadable file is an error naming it, not a damaged file to move aside', async () => {
    mkdirSync(file, { recursive: true }); // a folder where the file should be: EISDIR
    const store = new FileSecretStore(file);
    await expect(store.get('k')).rejects.toThrow(/Could not read the secrets file/);
    expect(readdirSync(join(scratch.dir, 'data'))).toEqual(['secrets.json']);
  });
});

describe('the OS keyring', () => {
  it('is called through the async API: a call returns before the platform answers (the event loop is not blocked)', async () => {
    const keyring = new KeyringSecretStore('MiniHarness Desktop (test)');
    let settled = false;
    const probe = keyring.probe().then(
      () => (settled = true),
      () => (settled = true),
    );
    // A synchronous keyring call would have finished (or thrown) already, settling the promise
    // within this microtask checkpoint; the async one answers from the thread pool later.
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    await probe;
    expect(settled).toBe(true);
  });

  it('falls back to the 0600 file, with the reason, when the keyring refuses — as this machine’s answers AccessDenied', async () => {
    const scratch = scratchDir();
    try {
      const refusing = new KeyringSecretStore('MiniHarness Desktop (test)');
      refusing.probe = () => Promise.reject(new Error("Couldn't access platform storage: AccessDenied"));
      const store = await openBrowserSecretStore(scratch.dir, refusing);
      expect(store).toBeInstanceOf(FileSecretStore);
      const info: SecretBackendInfo = store.describe();
      expect(info).toMatchObject({ kind: 'file', secure: false });
      expect(info.warning).toContain('AccessDenied');
      expect((store as FileSecretStore).path).toBe(join(scratch.dir, 'secrets.json'));

      const answering = new KeyringSecretStore('MiniHarness Desktop (test)');
      answering.probe = () => Promise.resolve();
      expect(await openBrowserSecretStore(scratch.dir, answering)).toBe(answering);

      // And the real keyring of this machine: whatever it answers, a usable store comes back.
      const real = await openBrowserSecretStore(scratch.dir);
      expect(['keyring', 'file']).toContain(real.describe().kind);
    } finally {
      scratch.cleanup();
    }
  });
});
