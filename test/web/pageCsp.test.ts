/** Browser mode serves the page with one policy: its header and the page's meta tag agree, and add only the bridge's WebSocket and the apps' sandbox frames. */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  browserModeCspDirectives,
  cspMetaOf,
  metaCspOf,
  serializeCsp,
} from '../../shared/csp.js';
import type { RunningHost } from './host.js';
import { startTestHost } from './host.js';

let dir: string;
let running: RunningHost;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mh-page-csp-'));
  running = await startTestHost(dir);
  // The real page (its meta carries the desktop policy), where the host serves from.
  copyFileSync(join(import.meta.dirname, '..', '..', 'renderer', 'index.html'), join(dir, 'static', 'index.html'));
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

it('the header and the served meta tag are the browser-mode policy of shared/csp.ts', async () => {
  const { port, appSandboxOrigin } = running.host;
  const response = await fetch(`http://127.0.0.1:${port}/`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-security-policy')).toBe(
    serializeCsp(browserModeCspDirectives(port, appSandboxOrigin)),
  );
  expect(cspMetaOf(await response.text())).toBe(metaCspOf(browserModeCspDirectives(port, appSandboxOrigin)));
  expect(response.headers.get('content-security-policy')).not.toBe(CONTENT_SECURITY_POLICY);
});
