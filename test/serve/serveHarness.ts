/**
 * The serve tests' setup: `miniharness serve` in this process (startTestServe), the side-effect
 * fixture as a configured server, and two serve processes on one PostgreSQL behind nginx (TeamCluster).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentsView } from '../../shared/agents.js';
import { GATEWAY_PATH } from '../../shared/agents.js';
import type { ServeConfig } from '../../electron/serve/config.js';
import type { Serving } from '../../electron/serve/serve.js';
import { startServe } from '../../electron/serve/serve.js';
import type { TeamIdp } from '../doubles/oidc/teamIdp.js';
import { freePort } from '../gateway/ports.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { SERVER_ID, buildSideEffectServer, ok, serverReady, sideEffectServer } from '../restart/restartSoak.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { Nginx } from './nginx.js';
import { gatewayBalancerConf, startNginx, webBalancerConf } from './nginx.js';
import { ServeChild } from './serveChild.js';

export interface TestServe {
  serving: Serving;
  url: string;
  port: number;
  lines: string[];
  dataDir: string;
  /** The one-time link's token, when this start printed one. */
  bootstrap: string | undefined;
}

/** Starts `miniharness serve` in this process (startServe) over a scratch folder, with the team's test provider. */
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

/** An admin API token (the command line's), and the hash the configuration holds. */
export function opsToken(): { token: string; sha256: string } {
  const token = randomBytes(24).toString('base64url');
  return { token, sha256: createHash('sha256').update(token).digest('hex') };
}

/**
 * The side-effect fixture as a configured server (id SERVER_ID) and the rule that lets it run: each
 * execution appends a line to `effects`, tagged with `tag` (which instance ran it) when given.
 */
export function sideEffectServerConfig(effects: string, tag?: string): Pick<ServeConfig, 'servers' | 'rules'> {
  return {
    servers: [{ mode: 'create' as const, config: sideEffectServer(effects, tag) }],
    rules: [{ serverId: SERVER_ID, toolName: 'effect', level: 'ALLOW' as const }],
  };
}

/** A raw 2025 `initialize` with the agent's token, POSTed to a gateway URL (to read the HTTP status a client would get). */
export function postInitialize(url: string | URL, token: string, client = 'raw'): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: client, version: '1' } },
    }),
  });
}

export interface EffectLine {
  key: string;
  pid: number;
  tag?: string;
}

/** The side-effect file's lines (one per execution of the tool). */
export function effectsOf(file: string): EffectLine[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as EffectLine)
    : [];
}

/** Executions beyond the first, summed over the keys: what "no duplicate side effect" counts. */
export function duplicatesIn(lines: EffectLine[]): number {
  const perKey = new Map<string, number>();
  for (const { key } of lines) perKey.set(key, (perKey.get(key) ?? 0) + 1);
  return [...perKey.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
}

export interface Instance {
  name: 'A' | 'B';
  dir: string;
  webPort: number;
  gatewayPort: number;
  config: object;
  process: ServeChild;
}

/**
 * Two `miniharness serve` processes (A and B) on one PostgreSQL, each running its copy of the
 * side-effect fixture (lines tagged A or B, in one file), behind Debian's nginx: `web` balances
 * the web UI, bridge and CLI (webBalancerConf), `gateway` the agent gateways (gatewayBalancerConf).
 */
export class TeamCluster {
  readonly instances: Instance[] = [];
  private readonly nginx: Nginx[] = [];

  private constructor(
    private readonly scratch: { dir: string; cleanup(): void },
    readonly database: TestDatabase,
    readonly ops: string,
    readonly effects: string,
    readonly web: URL,
    readonly gateway: URL,
  ) {}

  static async start(tag: string): Promise<TeamCluster> {
    await buildSideEffectServer();
    const scratch = scratchDir(`mh-serve-${tag}-`);
    mkdirSync(join(scratch.dir, 'fx'));
    const database = await createTestDatabase(tag);
    const ops = opsToken();
    const web = new URL(`http://127.0.0.1:${await freePort()}`);
    const gateway = new URL(`http://127.0.0.1:${await freePort()}${GATEWAY_PATH}`);
    const cluster = new TeamCluster(
      scratch,
      database,
      ops.token,
      join(scratch.dir, 'fx', 'effects.jsonl'),
      web,
      gateway,
    );
    try {
      for (const name of ['A', 'B'] as const) {
        const dir = join(scratch.dir, name);
        mkdirSync(dir);
        const [webPort, gatewayPort] = [await freePort(), await freePort()];
        const config = {
          dataDir: join(dir, 'data'),
          workspaceDir: join(dir, 'workspace'),
          listen: { host: '127.0.0.1', port: webPort },
          gateway: { port: gatewayPort },
          publicUrl: web.origin,
          trustedProxies: ['127.0.0.1'],
          apiTokens: [{ name: 'ops', role: 'admin', sha256: ops.sha256 }],
          ...sideEffectServerConfig(cluster.effects, name),
        };
        cluster.instances.push(await cluster.start({ name, dir, webPort, gatewayPort, config }));
      }
      const [a, b] = cluster.instances as [Instance, Instance];
      const nginxDir = (what: string) => join(scratch.dir, `nginx-${what}`);
      const webConf = webBalancerConf(nginxDir('web'), Number(web.port), [a.webPort, b.webPort]);
      cluster.nginx.push(startNginx(nginxDir('web'), webConf));
      const gatewayConf = gatewayBalancerConf(nginxDir('gw'), Number(gateway.port), [a.gatewayPort, b.gatewayPort]);
      cluster.nginx.push(startNginx(nginxDir('gw'), gatewayConf));
      await waitFor(async () => (await fetch(new URL('/healthz', web)).catch(() => undefined))?.ok === true, 15_000);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Starts (or starts again, on its data folder and ports) an instance; resolves once its fixture server is ready. */
  async start(instance: Omit<Instance, 'process'> & { process?: ServeChild }): Promise<Instance> {
    // The database URL comes from the environment, as an operator's secret would.
    const process = await ServeChild.start(instance.config, instance.dir, {
      MINIHARNESS_DATABASE_URL: this.database.url,
    });
    const direct = await this.bridge(instance.webPort);
    try {
      await serverReady(direct);
    } finally {
      direct.close();
    }
    return Object.assign(instance, { process });
  }

  /** A bridge with the ops token, as the CLI or a page has it: through the balancer, or to one instance's port. */
  async bridge(port = Number(this.web.port)): Promise<BridgeClient> {
    const connect = () => BridgeClient.connect(port, { token: this.ops, host: this.web.host, origin: this.web.origin });
    let client: BridgeClient;
    try {
      client = await connect();
    } catch (error) {
      // Through the balancer, right after a kill or a restart, nginx may hold both instances failed
      // for its fail_timeout (1 s: a refused connection to the killed one, a slow answer of the other
      // on a loaded machine) and answer 502 — a connection refused before any call was sent (the CLI
      // says so, and the person's next command connects again): connected again once, after that
      // timeout. A second 502 fails the test.
      if (port !== Number(this.web.port) || !/HTTP 502/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      client = await connect();
    }
    client.ws.on('error', () => undefined); // its instance may be killed under it
    return client;
  }

  instance(name: string | undefined): Instance {
    const found = this.instances.find((i) => i.name === name);
    if (!found) throw new Error(`no instance ${name}`);
    return found;
  }

  /** The side-effect file's lines, those of keys starting with `prefix` when given. */
  lines(prefix = ''): EffectLine[] {
    return effectsOf(this.effects).filter((l) => l.key.startsWith(prefix));
  }

  /** Creates an agent seeing every server (through the balancer); resolves once both instances list it. */
  async createAgent(name: string): Promise<{ id: string; token: string }> {
    const bridge = await this.bridge();
    let created: { agent: { id: string }; token: string };
    try {
      created = await ok(bridge, 'agents.create', {
        name,
        visibility: { allServers: true, serverIds: [], localTools: false },
      });
    } finally {
      bridge.close();
    }
    for (const { webPort } of this.instances) {
      const direct = await this.bridge(webPort);
      try {
        const listed = async () =>
          (await ok<AgentsView>(direct, 'agents.list', {})).agents.some((a) => a.id === created.agent.id);
        await waitFor(listed, 30_000);
      } finally {
        direct.close();
      }
    }
    return { id: created.agent.id, token: created.token };
  }

  async stop(): Promise<void> {
    for (const n of this.nginx) n.stop();
    for (const instance of this.instances) await instance.process.stop('SIGKILL');
    // DROP ... FORCE refuses while a killed instance's connection is still starting up (no role yet:
    // "must be a member of the role whose process is being terminated"); it goes once that one ends.
    await waitFor(
      () =>
        this.database.drop().then(
          () => true,
          () => false,
        ),
      15_000,
      100,
    );
    this.scratch.cleanup();
  }
}
