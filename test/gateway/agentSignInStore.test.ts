/**
 * The sign-in's store (electron/gateway/oauth/oauthStore.ts) as oidc-provider's Adapter: durable
 * records survive a new store over the same file (a restart), short-lived ones do not; a token's
 * value is never in the file (kept under its hash, given back only to whoever presents it); an
 * agent's revocation removes its grant and every token of it; a damaged file is moved aside
 * and reported, and the store starts empty; open registration cannot grow the file without bound.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_CLIENTS, OAuthStore } from '../../electron/gateway/oauth/oauthStore.js';
import { scratchDir } from '../helpers/fixtures.js';

const ACCESS = 'access-token-value-0123456789abcdefghijklmnopq';
const REFRESH = 'refresh-token-value-0123456789abcdefghijklmnop';

describe('the sign-in store', () => {
  let scratch: { dir: string; cleanup(): void };
  let file: string;
  beforeEach(() => {
    scratch = scratchDir('mh-oauth-store-');
    file = join(scratch.dir, 'gateway-oauth.json');
  });
  afterEach(() => scratch.cleanup());

  it('keeps clients, grants and tokens across a restart, never a token’s value; forgets interactions', async () => {
    const store = new OAuthStore(file);
    await store.adapterFor('Client').upsert('client-1', { client_id: 'client-1', client_name: 'C' } as never);
    await store
      .adapterFor('Grant')
      .upsert('grant-1', { jti: 'grant-1', accountId: 'agent-1', clientId: 'client-1' } as never, 600);
    await store
      .adapterFor('AccessToken')
      .upsert(ACCESS, { jti: ACCESS, accountId: 'agent-1', grantId: 'grant-1' } as never, 600);
    await store
      .adapterFor('RefreshToken')
      .upsert(REFRESH, { jti: REFRESH, accountId: 'agent-1', grantId: 'grant-1' } as never, 600);
    await store.adapterFor('Interaction').upsert('uid-1', { jti: 'uid-1' } as never, 600);
    store.signingJwk();

    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(ACCESS);
    expect(text).not.toContain(REFRESH);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);

    const again = new OAuthStore(file);
    expect(await again.adapterFor('AccessToken').find(ACCESS)).toMatchObject({ jti: ACCESS, grantId: 'grant-1' });
    expect(await again.adapterFor('AccessToken').find('another-value')).toBeUndefined();
    expect(await again.adapterFor('Client').find('client-1')).toMatchObject({ client_name: 'C' });
    expect(await again.adapterFor('Interaction').find('uid-1')).toBeUndefined();
    expect(again.signingJwk()).toEqual(store.signingJwk());

    // A consumed (rotated) refresh token is remembered as consumed.
    await again.adapterFor('RefreshToken').consume(REFRESH);
    expect(await new OAuthStore(file).adapterFor('RefreshToken').find(REFRESH)).toMatchObject({
      consumed: expect.any(Number),
    });
  });

  it('revoking an agent’s grant removes it and every token of it, and only those', async () => {
    const store = new OAuthStore(file);
    await store.adapterFor('Grant').upsert('grant-1', { jti: 'grant-1', accountId: 'person' } as never, 600);
    await store
      .adapterFor('AccessToken')
      .upsert(ACCESS, { jti: ACCESS, accountId: 'person', grantId: 'grant-1' } as never, 600);
    await store
      .adapterFor('RefreshToken')
      .upsert(REFRESH, { jti: REFRESH, accountId: 'person', grantId: 'grant-1' } as never, 600);
    await store
      .adapterFor('AccessToken')
      .upsert('other-access', { jti: 'other-access', accountId: 'person', grantId: 'grant-2' } as never, 600);
    store.revokeGrant('grant-1');
    const again = new OAuthStore(file);
    expect(await again.adapterFor('Grant').find('grant-1')).toBeUndefined();
    expect(await again.adapterFor('AccessToken').find(ACCESS)).toBeUndefined();
    expect(await again.adapterFor('RefreshToken').find(REFRESH)).toBeUndefined();
    expect(await again.adapterFor('AccessToken').find('other-access')).toMatchObject({ grantId: 'grant-2' });
  });

  it('an expired record is not found; revokeByGrantId removes that grant’s tokens', async () => {
    let now = 1_000_000;
    const store = new OAuthStore(
      file,
      () => undefined,
      () => now,
    );
    await store.adapterFor('AccessToken').upsert(ACCESS, { jti: ACCESS, grantId: 'g' } as never, 60);
    now += 61_000;
    expect(await store.adapterFor('AccessToken').find(ACCESS)).toBeUndefined();
    await store.adapterFor('RefreshToken').upsert(REFRESH, { jti: REFRESH, grantId: 'g' } as never, 60);
    await store.adapterFor('RefreshToken').revokeByGrantId('g');
    expect(await store.adapterFor('RefreshToken').find(REFRESH)).toBeUndefined();
  });

  it('a damaged file is moved aside and reported; the store starts empty', async () => {
    writeFileSync(file, '{"version":1,"records":');
    const warnings: string[] = [];
    const store = new OAuthStore(file, (m) => warnings.push(m));
    expect(warnings[0]).toMatch(/sign-in file could not be read and was moved to/);
    expect(readdirSync(scratch.dir).some((name) => name.startsWith('gateway-oauth.json.corrupt-'))).toBe(true);
    expect(await store.adapterFor('Client').find('client-1')).toBeUndefined();
  });

  it('keeps at most MAX_CLIENTS registered clients: the oldest without a grant go first', async () => {
    const store = new OAuthStore(file);
    const clients = store.adapterFor('Client');
    await clients.upsert('client-0', { client_id: 'client-0' } as never);
    await store.adapterFor('Grant').upsert('grant-0', { jti: 'grant-0', clientId: 'client-0' } as never, 600);
    for (let i = 1; i <= MAX_CLIENTS + 5; i++)
      await clients.upsert(`client-${i}`, { client_id: `client-${i}` } as never);
    const again = new OAuthStore(file);
    expect(await again.adapterFor('Client').find('client-0')).toBeDefined();
    expect(await again.adapterFor('Client').find('client-1')).toBeUndefined();
    expect(await again.adapterFor('Client').find(`client-${MAX_CLIENTS + 5}`)).toBeDefined();
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { records: Record<string, unknown> };
    expect(Object.keys(kept.records).filter((k) => k.startsWith('Client:'))).toHaveLength(MAX_CLIENTS);
  });
});
