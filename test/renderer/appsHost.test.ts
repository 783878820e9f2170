/**
 * The renderer's MCP Apps host pieces that need no browser: the apps slice sends the app's calls
 * to main with the app's tool and a fresh callId each; links leave only as plain http(s); the
 * proxy URL carries the resource's CSP wishes as main will read them; heights are bounded.
 */
import { describe, expect, it } from 'vitest';
import { clampHeight, MAX_APP_HEIGHT, MIN_APP_HEIGHT } from '../../renderer/src/ui/components/apps/appBridgeHost.js';
import { isOpenableLink } from '../../renderer/src/ui/components/apps/OpenLinkDialog.js';
import { proxyUrlOf } from '../../renderer/src/ui/components/apps/sandboxLocation.js';
import { STORED_APP_CALL_REFUSAL, messageText } from '../../renderer/src/ui/components/apps/appMessages.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient } from '../doubles/renderer/fakeClient.js';

describe('the apps slice', () => {
  it('calls tools as the app of its tool, each with a new callId, and reads through apps.readResource', () => {
    const client = new FakeClient();
    const store = createAppStore(client);
    void store.getState().callAppTool('basic', 'get-time', 'get-time', { a: 1 });
    void store.getState().callAppTool('basic', 'get-time', 'get-time', {});
    const [first, second] = client.callsTo('apps.callTool');
    expect(first?.request).toMatchObject({ serverId: 'basic', toolName: 'get-time', name: 'get-time', args: { a: 1 } });
    expect(first?.request.callId).toMatch(/^gui-/);
    expect(second?.request.callId).not.toBe(first?.request.callId);
    void store.getState().readAppResource('basic', 'get-time', 'ui://get-time/x.json');
    expect(client.latest('apps.readResource').request).toEqual({
      serverId: 'basic',
      toolName: 'get-time',
      uri: 'ui://get-time/x.json',
    });
    void store.getState().loadApp('basic', 'ui://get-time/mcp-app.html');
    expect(client.latest('apps.load').request).toEqual({
      serverId: 'basic',
      resourceUri: 'ui://get-time/mcp-app.html',
    });
  });
});

describe('open-link', () => {
  it('opens only plain http(s) links without credentials', () => {
    expect(isOpenableLink('https://modelcontextprotocol.io/')).toBe(true);
    expect(isOpenableLink('http://example.com/a?b=c')).toBe(true);
    for (const url of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'mh-app-sandbox://proxy/proxy',
      'https://u:p@example.com/',
      'data:text/html,x',
      'not a url',
      '',
    ]) {
      expect(isOpenableLink(url)).toBe(false);
    }
  });
});

/** What the sandbox origin does with the parameter (electron/core/appSandboxPage.ts): base64url → UTF-8 → JSON. */
function decodeCsp(param: string | null): unknown {
  const binary = atob((param ?? '').replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
}

describe('the proxy URL', () => {
  it('carries the CSP wishes so the sandbox origin reads them back (non-ASCII included)', () => {
    const url = new URL(
      proxyUrlOf('http://127.0.0.1:1234', {
        connectDomains: ['https://api.example.com'],
        resourceDomains: ['https://cdn.example.com'],
      }),
    );
    expect(url.origin).toBe('http://127.0.0.1:1234');
    expect(url.pathname).toBe('/proxy');
    expect(decodeCsp(url.searchParams.get('csp'))).toEqual({
      connectDomains: ['https://api.example.com'],
      resourceDomains: ['https://cdn.example.com'],
    });
    expect(
      decodeCsp(
        new URL(proxyUrlOf('http://127.0.0.1:1', { frameDomains: ['https://ü.example'] })).searchParams.get('csp'),
      ),
    ).toEqual({ frameDomains: ['https://ü.example'] });
  });
});

describe('app heights', () => {
  it('are bounded, and nonsense is ignored', () => {
    expect(clampHeight(10)).toBe(MIN_APP_HEIGHT);
    expect(clampHeight(10_000_000)).toBe(MAX_APP_HEIGHT);
    expect(clampHeight(300.2)).toBe(301);
    expect(clampHeight(Number.NaN)).toBeUndefined();
    expect(clampHeight(undefined)).toBeUndefined();
  });
});

describe('an app’s ui/message as the person reads it', () => {
  it('shows its text, names the blocks it does not show, and is bounded', () => {
    expect(messageText([{ type: 'text', text: 'Book the 3 pm slot' }])).toBe('Book the 3 pm slot');
    expect(
      messageText([
        { type: 'text', text: 'See:' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ]),
    ).toBe('See:\n[image content, not shown]');
    expect(messageText([null, 42])).toBe('[unknown content, not shown]\n[unknown content, not shown]');
    expect(messageText([{ type: 'text', text: 'x'.repeat(10_000) }])).toHaveLength(4_001);
  });

  it('a stored app’s call is refused with a sentence that says nothing ran and where to run it', () => {
    expect(STORED_APP_CALL_REFUSAL).toMatch(/^Nothing runs from this app here/);
    expect(STORED_APP_CALL_REFUSAL).toContain('Tools view');
  });
});
