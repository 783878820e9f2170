/**
 * `miniharness serve` as the process an operator starts (electron/cli/main.ts): it refuses a
 * listen address it must not use with a sentence (exit 2), serves over TLS when given a
 * certificate, never prints a secret it was given, and exits 0 on SIGTERM after closing.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, scratchDir, waitFor } from '../helpers/fixtures.js';

const SECRET = 'oidc-client-secret-that-must-never-be-printed';

function startServe(
  config: object,
  dir: string,
  env: Record<string, string> = {},
): { child: ChildProcess; output: () => string } {
  const file = join(dir, 'miniharness.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'electron', 'cli', 'main.ts'), 'serve', '--config', file],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let text = '';
  child.stdout?.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
  return { child, output: () => text };
}

describe('miniharness serve, the process', () => {
  const scratch = scratchDir();
  afterAll(() => scratch.cleanup());

  it('refuses a non-loopback address without TLS or a trusted proxy, with a sentence, and exits 2', async () => {
    const { child, output } = startServe({ dataDir: 'data', listen: { host: '0.0.0.0', port: 0 } }, scratch.dir);
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(2);
    expect(output()).toMatch(
      /will not listen on 0\.0\.0\.0 without TLS: set tls\.certFile and tls\.keyFile, or put a reverse proxy/,
    );
  }, 30_000);

  it('refuses a trusted proxy whose public address is plain http', async () => {
    const { child, output } = startServe(
      {
        dataDir: 'data',
        listen: { host: '0.0.0.0', port: 0 },
        trustedProxies: ['10.0.0.2'],
        publicUrl: 'http://mh.example',
      },
      scratch.dir,
    );
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(2);
    expect(output()).toMatch(/The publicUrl http:\/\/mh\.example is not https/);
  }, 30_000);

  it('serves over TLS on 0.0.0.0, never prints the client secret, and exits 0 on SIGTERM', async () => {
    const dir = join(scratch.dir, 'tls');
    execFileSync('mkdir', ['-p', dir]);
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const { child, output } = startServe(
      {
        dataDir: 'data',
        workspaceDir: 'workspace',
        listen: { host: '0.0.0.0', port: 0 },
        publicUrl: 'https://127.0.0.1',
        tls: { certFile: 'cert.pem', keyFile: 'key.pem' },
        gateway: { port: 0 },
        oidc: { issuer: 'https://idp.invalid', clientId: 'miniharness' },
      },
      dir,
      { MINIHARNESS_OIDC_CLIENT_SECRET: SECRET },
    );
    await waitFor(() => /listening on 0\.0\.0\.0:(\d+)/.test(output()) || child.exitCode !== null, 30_000);
    const port = Number(/listening on 0\.0\.0\.0:(\d+)/.exec(output())?.[1]);
    expect(output()).toMatch(
      /no admin yet\. The first admin signs in at https:\/\/127\.0\.0\.1\/auth\/login\?bootstrap=/,
    );
    const ca = execFileSync('cat', [join(dir, 'cert.pem')]);
    const status = await new Promise<number>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path: '/readyz', ca }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject),
    );
    expect(status).toBe(200);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(output()).not.toContain(SECRET);
  }, 60_000);
});
