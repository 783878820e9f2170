/**
 * Browser mode's MCP Apps sandbox origin: a second loopback port that serves only the proxy page
 * (under the app's policy, built from a validated `ui.csp`) and its script; the host page may
 * frame nothing else and learns the origin from a meta tag.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_SANDBOX_META_NAME } from '../../shared/appSandbox.js';
import { appPolicy, parseAppCspParam } from '../../electron/core/appSandboxPage.js';
import { APP_REALM_GUARD_SCRIPT } from '../../electron/core/appRealmGuard.js';
import type { RunningHost } from './host.js';
import { startTestHost } from './host.js';

let dir: string;
let running: RunningHost;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mh-app-sandbox-'));
  running = await startTestHost(dir);
  copyFileSync(join(import.meta.dirname, '..', '..', 'renderer', 'index.html'), join(dir, 'static', 'index.html'));
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

function cspParam(csp: unknown): string {
  return Buffer.from(JSON.stringify(csp), 'utf8').toString('base64url');
}

function directive(policy: string | null, name: string): string | undefined {
  return policy
    ?.split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name} `));
}

describe('the sandbox origin', () => {
  it('is another port of 127.0.0.1 than the host page, named to the page by a meta tag and its frame-src', async () => {
    const { port, appSandboxOrigin } = running.host;
    expect(appSandboxOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(appSandboxOrigin).not.toBe(`http://127.0.0.1:${port}`);
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(directive(page.headers.get('content-security-policy'), 'frame-src')).toBe(`frame-src ${appSandboxOrigin}`);
    expect(await page.text()).toContain(`<meta name="${APP_SANDBOX_META_NAME}" content="${appSandboxOrigin}">`);
  });

  it('serves the proxy with a policy that allows nothing from the network by default, framed only by the host page', async () => {
    const { port, appSandboxOrigin } = running.host;
    const response = await fetch(`${appSandboxOrigin}/proxy`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy');
    expect(directive(policy, 'default-src')).toBe("default-src 'none'");
    expect(directive(policy, 'connect-src')).toBe("connect-src 'none'");
    expect(directive(policy, 'frame-src')).toBe("frame-src 'none'");
    // CSP3's WebRTC switch, for the browsers that honour it (Chromium 156 does not: the realm guard below does the work).
    expect(directive(policy, 'webrtc')).toBe("webrtc 'block'");
    expect(directive(policy, 'script-src')).toBe(`script-src ${appSandboxOrigin}/proxy.js 'unsafe-inline'`);
    expect(directive(policy, 'frame-ancestors')).toBe(
      `frame-ancestors http://127.0.0.1:${port} http://localhost:${port}`,
    );
    const body = await response.text();
    expect(body).toContain('<script src="/proxy.js"></script>');
    expect(body).not.toContain('token');
  });

  it('adds the origins a resource declares, and drops what is not a plain origin', async () => {
    const csp = {
      connectDomains: [
        'https://api.example.com',
        "'unsafe-eval'",
        '*',
        'https://a.example.com; script-src *',
        'javascript:alert(1)',
      ],
      resourceDomains: ['https://*.cdn.example.com', 'data:'],
      frameDomains: ['https://www.youtube.com', 'https://x.example.com/path'],
    };
    const policy = (await fetch(`${running.host.appSandboxOrigin}/proxy?csp=${cspParam(csp)}`)).headers.get(
      'content-security-policy',
    );
    expect(directive(policy, 'connect-src')).toBe('connect-src https://api.example.com');
    expect(directive(policy, 'frame-src')).toBe('frame-src https://www.youtube.com');
    expect(directive(policy, 'img-src')).toBe('img-src data: blob: https://*.cdn.example.com');
    expect(policy).not.toContain('unsafe-eval');
    expect(policy?.split(';').filter((part) => part.trim().startsWith('script-src'))).toHaveLength(1);
  });

  it('reads a malformed csp parameter as nothing declared', () => {
    for (const param of ['%%%', cspParam([1, 2]), cspParam('x'), 'a'.repeat(20_000)]) {
      expect(appPolicy(parseAppCspParam(param))).toBe(appPolicy(parseAppCspParam(null)));
    }
  });

  it('serves the proxy script, and nothing else: other paths 404, other methods 405, a foreign Host 403', async () => {
    const { appSandboxOrigin } = running.host;
    const script = await fetch(`${appSandboxOrigin}/proxy.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    // The app's page starts with the realm guard (WebRTC away), right after its CSP and before the app's own scripts.
    const text = await script.text();
    expect(text).toContain(JSON.stringify(APP_REALM_GUARD_SCRIPT));
    expect(text).toMatch(/content="' \+ escape\(policy\) \+ '"><script>' \+ guard \+ '<\/script>';/);
    expect((await fetch(`${appSandboxOrigin}/index.html`)).status).toBe(404);
    expect((await fetch(`${appSandboxOrigin}/session`)).status).toBe(404);
    expect((await fetch(`${appSandboxOrigin}/proxy`, { method: 'POST', body: 'x' })).status).toBe(405);
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${appSandboxOrigin}/proxy`, { headers: { Host: 'evil.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});
