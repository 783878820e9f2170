/**
 * Debian's nginx, started by a test in front of serve instances (`.ci/run` installs nginx-light).
 * Without it the test is skipped with a line — except in CI (MINIHARNESS_TEST_POSTGRES_REQUIRED=1),
 * where its absence fails the run.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { describePostgres } from '../storage/postgres.js';

const NGINX = '/usr/sbin/nginx';
const NO_NGINX = 'nginx is not installed (apt-get install nginx-light)';

/** `describe` for tests that need nginx and PostgreSQL. */
export const describeBalanced: (name: string, body: () => void) => void = existsSync(NGINX)
  ? describePostgres
  : process.env.MINIHARNESS_TEST_POSTGRES_REQUIRED === '1'
    ? (name) =>
        describe(name, () =>
          it('needs nginx (MINIHARNESS_TEST_POSTGRES_REQUIRED=1)', () => {
            throw new Error(`${NO_NGINX}, but this run requires the balancer test.`);
          }),
        )
    : (name) => it.skip(`${name}: ${NO_NGINX}`, () => undefined);

/** The `http {}` preamble every test configuration shares: files in `dir`, an access log naming the upstream. */
function preamble(dir: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((k) => `${k}_temp_path ${join(dir, k)};`)
    .join('\n  ');
  return `daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')};
events {}
http {
  log_format upstream '$upstream_addr $status $request_uri';
  access_log ${join(dir, 'access.log')} upstream;
  ${temp}
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }`;
}

/**
 * The web UI, bridge and CLI of `upstreams` behind `port`: round robin, a refused connection or a
 * 503 (an instance draining) tried on the next; a failed instance is tried again after 1 s (it
 * may have been restarted).
 */
export function webBalancerConf(dir: string, port: number, upstreams: number[]): string {
  return `${preamble(dir)}
  upstream miniharness { ${upstreams.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=1s;`).join(' ')} }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://miniharness;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout http_503;
    }
  }
}
`;
}

/**
 * Both instances' agent gateways behind `port` (examples/team/nginx-two-instances.conf is this, for
 * a server). The gateway checks that Host names the port it listens on, so each instance is its own
 * `proxy_pass` with its own Host, chosen per request:
 * - 2026-07-28 requests (stateless: `MCP-Protocol-Version: 2026-07-28`) by the request's random id —
 *   either instance;
 * - everything else (the 2025 era, its `initialize` included, which has no Mcp-Session-Id yet) by the
 *   agent's Authorization header — one agent's sessions stay on one instance.
 * The other instance answers when the first is draining (503: it refused before reading the
 * request, so nothing ran there) or refused the connection (dead: nothing was sent). A request the
 * first instance received and then failed to answer (killed mid-call) is NOT sent again: the agent
 * gets 502 and retries with its callId (a second send without one would run the call twice). A
 * 2025 session the other instance never had is a 404 there, and the client starts a new one.
 */
export function gatewayBalancerConf(dir: string, port: number, gateways: [number, number]): string {
  return `${preamble(dir)}${gatewayRouting(gateways)}
  server {
    listen 127.0.0.1:${port};
    location / {${gatewayProxy('$gw_first')}${GATEWAY_FAILOVER}
    }${GATEWAY_FALLBACKS}
  }
}
`;
}

/** The agent's key (2026-07-28: each request; else its Authorization), its first instance and the other. */
function gatewayRouting([a, b]: [number, number]): string {
  return `
  map $http_mcp_protocol_version $gw_key { "2026-07-28" $request_id; default $http_authorization; }
  split_clients "$gw_key" $gw_first { 50% ${a}; * ${b}; }
  map $gw_first $gw_other { ${a} ${b}; default ${a}; }`;
}

/** A location's body proxying to one gateway (its own Host: the gateway checks it names its port). */
function gatewayProxy(target: string): string {
  return `
      proxy_pass http://127.0.0.1:${target};
      proxy_set_header Host 127.0.0.1:${target};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 1h;`;
}

const GATEWAY_FAILOVER = `
      proxy_intercept_errors on;
      error_page 503 = @draining;
      error_page 502 504 = @unreachable;`;

/** To the other instance: when the first drains (503), or when no connection to it was made (nothing sent). */
const GATEWAY_FALLBACKS = `
    location @draining {${gatewayProxy('$gw_other')}
    }
    location @unreachable {
      if ($upstream_connect_time != "-") { return 502; }${gatewayProxy('$gw_other')}
    }`;

/** The OAuth sign-in's paths, as examples/team/nginx-two-instances.conf routes them to the gateways. */
export const OAUTH_LOCATION =
  '~ ^/(\\.well-known/(oauth-protected-resource|oauth-authorization-server|openid-configuration)|authorize|token|register|revoke|jwks|consent)(/|$)';

/**
 * One address for people and agents, as examples/team/nginx-two-instances.conf (without TLS): the web
 * UI round robin over `webPorts` (no affinity), `/mcp` and the agents' OAuth paths to the gateways as
 * in gatewayBalancerConf (a request without Authorization — each OAuth sign-in request — to one).
 */
export function teamBalancerConf(dir: string, port: number, webPorts: number[], gateways: [number, number]): string {
  return `${preamble(dir)}
  upstream miniharness_web { ${webPorts.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=1s;`).join(' ')} }${gatewayRouting(gateways)}
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://miniharness_web;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_next_upstream error timeout http_503;
    }
    location /mcp {${gatewayProxy('$gw_first')}${GATEWAY_FAILOVER}
    }
    location ${OAUTH_LOCATION} {${gatewayProxy('$gw_first')}${GATEWAY_FAILOVER}
    }${GATEWAY_FALLBACKS}
  }
}
`;
}

export interface Nginx {
  stop(): void;
}

/** Writes the configuration to `dir`/nginx.conf and starts nginx on it (in the foreground, as a child). */
export function startNginx(dir: string, conf: string): Nginx {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  return { stop: () => void child.kill('SIGQUIT') };
}
