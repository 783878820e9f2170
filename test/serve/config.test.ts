/**
 * `miniharness serve`'s configuration (electron/serve/config.ts), where it may listen
 * (listenPolicy.ts), and whom it believes about a client's address (serveAccess.ts clientAddress).
 */
import { writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServeConfigError, loadServeConfig } from '../../electron/serve/config.js';
import { listenRefusal } from '../../electron/serve/listenPolicy.js';
import { startServe } from '../../electron/serve/serve.js';
import { clientAddress } from '../../electron/serve/serveAccess.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';

const SECRET = 'client-secret-value-never-in-a-message';

describe('serve configuration', () => {
  const scratch = scratchDir();
  afterAll(() => scratch.cleanup());
  const file = (name: string, content: string): string => {
    const path = join(scratch.dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('reads the file, lets the environment win, resolves paths beside the file, and reads secrets from env or files', () => {
    const secretFile = file('secret.txt', `${SECRET}\n`);
    const config = loadServeConfig(
      file(
        'a.json',
        JSON.stringify({
          dataDir: 'data',
          listen: { port: 9000 },
          oidc: { issuer: 'https://idp.example', clientId: 'mh', clientSecretFile: 'secret.txt' },
          people: { 'ann@example.com': 'admin' },
        }),
      ),
      { MINIHARNESS_LISTEN_PORT: '9100', MINIHARNESS_DATABASE_URL: 'postgres://u:p@db/mh' },
    );
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 9100 });
    expect(config.dataDir).toBe(join(scratch.dir, 'data'));
    expect(config.oidc).toEqual({ issuer: 'https://idp.example', clientId: 'mh', clientSecret: SECRET });
    expect(config.databaseUrl).toBe('postgres://u:p@db/mh');
    // The environment's secret wins over the file; VAR_FILE names a file.
    const fromEnv = loadServeConfig(
      file('b.json', JSON.stringify({ dataDir: 'd', oidc: { issuer: 'https://i.example', clientId: 'c' } })),
      {
        MINIHARNESS_OIDC_CLIENT_SECRET_FILE: secretFile,
      },
    );
    expect(fromEnv.oidc?.clientSecret).toBe(SECRET);
  });

  it('the README’s example configuration (examples/team/miniharness.example.json) is valid, and may listen', () => {
    const config = loadServeConfig(join(PROJECT_ROOT, 'examples', 'team', 'miniharness.example.json'), {
      MINIHARNESS_OIDC_CLIENT_SECRET: SECRET,
    });
    expect(config.oidc?.clientSecret).toBe(SECRET);
    expect(config.people['alice@example.com']).toBe('approver');
    expect(listenRefusal(config)).toBeUndefined();
    expect(listenRefusal({ ...config, listen: { host: '0.0.0.0', port: 8080 }, trustedProxies: [] })).toMatch(
      /without TLS/,
    );
  });

  it('says what is wrong by its place and names the variable, never a secret value', () => {
    expect(() =>
      loadServeConfig(file('c.json', JSON.stringify({ dataDir: 'd', listen: { port: 70000 } })), {}),
    ).toThrow(/not valid at "listen\.port"/);
    const missing = (() => {
      try {
        loadServeConfig(
          file('d.json', JSON.stringify({ dataDir: 'd', oidc: { issuer: 'https://i.example', clientId: 'c' } })),
          {},
        );
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(ServeConfigError);
    expect((missing as Error).message).toBe(
      'The identity provider needs a client secret: set MINIHARNESS_OIDC_CLIENT_SECRET or MINIHARNESS_OIDC_CLIENT_SECRET_FILE.',
    );
    expect(() => loadServeConfig(file('e.json', '{ "dataDir": '), {})).toThrow(/Cannot read the configuration/);
    expect(() =>
      loadServeConfig(file('f.json', JSON.stringify({ dataDir: 'd' })), {
        MINIHARNESS_DATABASE_URL_FILE: join(scratch.dir, 'nope'),
      }),
    ).toThrow(/Cannot read MINIHARNESS_DATABASE_URL from .*nope: ENOENT\./);
  });
});

describe('where serve may listen', () => {
  const base = { tls: undefined, trustedProxies: [] as string[], publicUrl: undefined };
  it.each([
    ['127.0.0.1', {}, undefined],
    ['::1', {}, undefined],
    ['localhost', {}, undefined],
    ['0.0.0.0', {}, /without TLS/],
    ['10.1.2.3', { trustedProxies: ['10.1.2.1'] }, /set publicUrl/],
    ['10.1.2.3', { trustedProxies: ['10.1.2.1'], publicUrl: 'http://mh.example' }, /not https/],
    ['10.1.2.3', { trustedProxies: ['10.1.2.1'], publicUrl: 'https://mh.example' }, undefined],
    ['0.0.0.0', { tls: { cert: Buffer.from(''), key: Buffer.from('') }, publicUrl: 'https://mh.example' }, undefined],
  ])('%s %j', (host, extra, refusal) => {
    const result = listenRefusal({ ...base, ...extra, listen: { host, port: 8080 } });
    if (refusal) expect(result).toMatch(refusal);
    else expect(result).toBeUndefined();
  });
});

describe('the client address behind a proxy', () => {
  const req = (peer: string, forwarded?: string) =>
    ({
      socket: { remoteAddress: peer },
      headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
    }) as unknown as IncomingMessage;
  it('believes X-Forwarded-For only from a trusted proxy, and only its last untrusted entry', () => {
    expect(clientAddress(req('203.0.113.9', '1.1.1.1'), ['10.0.0.2'])).toBe('203.0.113.9');
    expect(clientAddress(req('10.0.0.2', '1.1.1.1, 198.51.100.7'), ['10.0.0.2'])).toBe('198.51.100.7');
    expect(clientAddress(req('::ffff:10.0.0.2', '198.51.100.7, 10.0.0.3'), ['10.0.0.2', '10.0.0.3'])).toBe(
      '198.51.100.7',
    );
    expect(clientAddress(req('10.0.0.2'), ['10.0.0.2'])).toBe('10.0.0.2');
  });
});

describe('serve start: the database URL', () => {
  const scratch = scratchDir();
  afterAll(() => scratch.cleanup());

  it('a database URL that is not postgres:// is a configuration error naming it without its password', async () => {
    const refused = await startServe({
      config: {
        listen: { host: '127.0.0.1', port: 0 },
        trustedProxies: [],
        dataDir: join(scratch.dir, 'db-data'),
        workspaceDir: join(scratch.dir, 'db-ws'),
        gateway: { port: 0 },
        people: {},
        servers: [],
        rules: [],
        apiTokens: [],
        signInPerMinute: 10,
        databaseUrl: 'mysql://mh:hunter2secret@127.0.0.1/x',
      },
      staticDir: scratch.dir,
      version: '0.0.0-test',
      say: () => undefined,
    }).catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(ServeConfigError);
    expect((refused as Error).message).toMatch(/mysql:\/\/127\.0\.0\.1\/x .*unsupported_url/);
    expect((refused as Error).message).not.toContain('hunter2secret');
  });
});
