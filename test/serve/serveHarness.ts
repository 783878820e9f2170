/** Starts `miniharness serve` in this process (startServe) over a scratch folder, with the team's test provider. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServeConfig } from '../../electron/serve/config.js';
import type { Serving } from '../../electron/serve/serve.js';
import { startServe } from '../../electron/serve/serve.js';
import type { TeamIdp } from '../doubles/oidc/teamIdp.js';

export interface TestServe {
  serving: Serving;
  url: string;
  port: number;
  lines: string[];
  dataDir: string;
  /** The one-time link's token, when this start printed one. */
  bootstrap: string | undefined;
}

export async function startTestServe(
  dir: string,
  idp: TeamIdp | undefined,
  overrides: Partial<ServeConfig> = {},
): Promise<TestServe> {
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>MiniHarness</title>');
  const dataDir = join(dir, 'data');
  const lines: string[] = [];
  const config: ServeConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    trustedProxies: [],
    dataDir,
    workspaceDir: join(dir, 'workspace'),
    gateway: { port: 0 },
    people: {},
    servers: [],
    rules: [],
    apiTokens: [],
    signInPerMinute: 100,
    ...(idp ? { oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret } } : {}),
    ...overrides,
  };
  const serving = await startServe({ config, staticDir, version: '0.0.0-test', say: (line) => lines.push(line) });
  const port = serving.host.port;
  idp?.allowRedirect(`http://127.0.0.1:${port}/auth/callback`);
  const bootstrap = /bootstrap=([\w-]+)/.exec(lines.join('\n'))?.[1];
  return { serving, url: `http://127.0.0.1:${port}`, port, lines, dataDir, bootstrap };
}
