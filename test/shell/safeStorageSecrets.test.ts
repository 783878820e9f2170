import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SecretValue } from '../../electron/secrets/secretValue.js';
import { SecretDecryptError, SecretStorageUnavailableError } from '../../electron/secrets/errors.js';
import { openSafeStorageSecrets } from '../../electron/shell/safeStorageSecrets.js';
import { SafeStorageDouble } from '../doubles/electron/safeStorageDouble.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mh-safestorage-'));
  file = join(dir, 'userData', 'secrets.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'sk-live-0123456789abcdef-very-secret';

describe('SafeStorageSecretStore', () => {
  it('round-trips values through encryption, across instances', async () => {
    const safeStorage = new SafeStorageDouble();
    const store = await openSafeStorageSecrets({ safeStorage, file, platform: 'linux' });
    expect(await store.has('srv:auth.token')).toBe(false);
    expect(await store.get('srv:auth.token')).toBeUndefined();
    await store.set('srv:auth.token', new SecretValue(SECRET));
    await store.set('srv:env.API_KEY', new SecretValue('üñíçødé ✓'));
    expect(await store.has('srv:auth.token')).toBe(true);
    expect((await store.get('srv:auth.token'))?.reveal()).toBe(SECRET);

    const reopened = await openSafeStorageSecrets({ safeStorage, file, platform: 'linux' });
    expect((await reopened.get('srv:auth.token'))?.reveal()).toBe(SECRET);
    expect((await reopened.get('srv:env.API_KEY'))?.reveal()).toBe('üñíçødé ✓');

    await reopened.delete('srv:auth.token');
    await reopened.delete('never-set');
    expect(await reopened.has('srv:auth.token')).toBe(false);
    const again = await openSafeStorageSecrets({ safeStorage, file, platform: 'linux' });
    expect(await again.has('srv:auth.token')).toBe(false);
    expect(await again.has('srv:env.API_KEY')).toBe(true);
  });

  it('never writes the plaintext, only base64 ciphertexts, to an owner-only file', async () => {
    const store = await openSafeStorageSecrets({ safeStorage: new SafeStorageDouble(), file, platform: 'linux' });
    await store.set('srv:auth.token', new SecretValue(SECRET));
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(text).not.toContain(Buffer.from(SECRET).toString('hex'));
    const body = JSON.parse(text) as { version: number; entries: Record<string, string> };
    expect(body.version).toBe(1);
    expect(Object.keys(body.entries)).toEqual(['srv:auth.token']);
    expect(body.entries['srv:auth.token']).toMatch(/^[A-Za-z0-9+/]+=*$/);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    // No temp files left behind by the atomic write.
    expect(readdirSync(join(dir, 'userData'))).toEqual(['secrets.json']);
  });

  it('values it returns stay redacted when printed', async () => {
    const store = await openSafeStorageSecrets({ safeStorage: new SafeStorageDouble(), file, platform: 'darwin' });
    await store.set('k', new SecretValue(SECRET));
    const value = await store.get('k');
    expect(`${String(value)} ${JSON.stringify({ value })} ${inspect(value)}`).not.toContain(SECRET);
  });

  describe('describe()', () => {
    it('is secure with an OS keyring', async () => {
      const store = await openSafeStorageSecrets({
        safeStorage: new SafeStorageDouble({ backend: 'gnome_libsecret' }),
        file,
        platform: 'linux',
      });
      expect(store.describe()).toEqual({ kind: 'safeStorage', secure: true });
      const mac = await openSafeStorageSecrets({
        safeStorage: new SafeStorageDouble({ backend: 'basic_text' }),
        file,
        platform: 'darwin',
      });
      expect(mac.describe()).toEqual({ kind: 'safeStorage', secure: true });
    });

    it("warns on Linux 'basic_text' (no keyring) but still stores", async () => {
      const store = await openSafeStorageSecrets({
        safeStorage: new SafeStorageDouble({ backend: 'basic_text' }),
        file,
        platform: 'linux',
      });
      const info = store.describe();
      expect(info.secure).toBe(false);
      expect(info.warning).toMatch(/basic_text/);
      expect(info.warning).toMatch(/keyring/i);
      await store.set('k', new SecretValue(SECRET));
      expect((await store.get('k'))?.reveal()).toBe(SECRET);
    });

    it('warns on an unknown Linux backend', async () => {
      const store = await openSafeStorageSecrets({
        safeStorage: new SafeStorageDouble({ backend: 'unknown' }),
        file,
        platform: 'linux',
      });
      expect(store.describe()).toMatchObject({ secure: false, warning: expect.any(String) });
    });

    it('warns, and refuses to save, when encryption is unavailable', async () => {
      const store = await openSafeStorageSecrets({
        safeStorage: new SafeStorageDouble({ available: false }),
        file,
        platform: 'win32',
      });
      expect(store.describe()).toMatchObject({
        kind: 'safeStorage',
        secure: false,
        warning: expect.stringMatching(/not available/),
      });
      const failure = await store.set('k', new SecretValue(SECRET)).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(SecretStorageUnavailableError);
      expect(String((failure as Error).message)).not.toContain(SECRET);
      expect(() => statSync(file)).toThrow();
    });
  });

  it('moves a corrupt file aside, reports it, and starts empty', async () => {
    for (const content of [
      '{not json',
      '{"version":2,"entries":{}}',
      '{"version":1,"entries":{"k":"not base64 !"}}',
      '[]',
    ]) {
      rmSync(join(dir, 'userData'), { recursive: true, force: true });
      mkdirSync(join(dir, 'userData'), { recursive: true });
      writeFileSync(file, content);
      const store = await openSafeStorageSecrets({
        safeStorage: new SafeStorageDouble(),
        file,
        platform: 'linux',
        now: () => Date.UTC(2030, 0, 2, 3, 4, 5),
      });
      expect(await store.has('k')).toBe(false);
      expect(await store.damagedFiles()).toEqual([
        {
          code: 'file_damaged',
          file,
          movedTo: `${file}.corrupt-2030-01-02T03-04-05-000Z`,
          lost: 'secrets',
          problem: content === '{not json' ? 'not_json' : 'invalid_content',
        },
      ]);
      const files = readdirSync(join(dir, 'userData'));
      expect(files).toEqual(['secrets.json.corrupt-2030-01-02T03-04-05-000Z']);
      expect(readFileSync(join(dir, 'userData', files[0] as string), 'utf8')).toBe(content);
      await store.set('k', new SecretValue('v'));
      expect((await store.get('k'))?.reveal()).toBe('v');
    }
  });

  it('a value encrypted under another key fails with a clear error, without the value', async () => {
    const first = await openSafeStorageSecrets({ safeStorage: new SafeStorageDouble(), file, platform: 'linux' });
    await first.set('srv:auth.token', new SecretValue(SECRET));
    const otherKey = await openSafeStorageSecrets({ safeStorage: new SafeStorageDouble(), file, platform: 'linux' });
    expect(await otherKey.has('srv:auth.token')).toBe(true);
    const failure = await otherKey.get('srv:auth.token').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SecretDecryptError);
    expect((failure as Error).message).toMatch(/srv:auth\.token.*Enter it again/);
    expect((failure as Error).message).not.toContain(SECRET);
  });

  it('re-encrypts a value when the OS rotated its key, unless it was replaced meanwhile', async () => {
    const safeStorage = new SafeStorageDouble({ rotate: true });
    const store = await openSafeStorageSecrets({ safeStorage, file, platform: 'linux' });
    await store.set('k', new SecretValue(SECRET));
    const before = readFileSync(file, 'utf8');
    expect((await store.get('k'))?.reveal()).toBe(SECRET);
    await vi.waitFor(() => expect(readFileSync(file, 'utf8')).not.toBe(before));
    expect((await store.get('k'))?.reveal()).toBe(SECRET);

    // A delete that lands before the re-encryption is not undone by it.
    const encryptsBefore = safeStorage.encryptCalls;
    const get = store.get('k');
    await store.delete('k');
    await get;
    expect(safeStorage.encryptCalls).toBe(encryptsBefore + 1); // the re-encryption has started
    // Writes run one after another: a write queued now lands after the re-encryption's.
    await store.set('barrier', new SecretValue('b'));
    expect(await store.has('k')).toBe(false);
  });

  it('serializes concurrent writes (no lost update)', async () => {
    const store = await openSafeStorageSecrets({ safeStorage: new SafeStorageDouble(), file, platform: 'linux' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`k${i}`, new SecretValue(`v${i}`))));
    const reopened = await openSafeStorageSecrets({ safeStorage: new SafeStorageDouble(), file, platform: 'linux' });
    for (let i = 0; i < 20; i++) expect(await reopened.has(`k${i}`)).toBe(true);
  });

  it('rejects bad keys', async () => {
    const store = await openSafeStorageSecrets({ safeStorage: new SafeStorageDouble(), file, platform: 'linux' });
    await expect(store.get('')).rejects.toThrow(TypeError);
    await expect(store.set('x'.repeat(513), new SecretValue('v'))).rejects.toThrow(TypeError);
  });

  it('an unreadable file is an error, not a corrupt file to move aside', async () => {
    mkdirSync(file, { recursive: true }); // a folder where the file should be: EISDIR
    await expect(
      openSafeStorageSecrets({ safeStorage: new SafeStorageDouble(), file, platform: 'linux' }),
    ).rejects.toThrow(/Could not read the secrets file/);
  });
});
