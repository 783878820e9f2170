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
