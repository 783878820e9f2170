/**
 * An app's page as the renderer gets it (electron/apps/appResource.ts), from read results shaped
 * as servers send them: the MIME type checked (case and spaces aside), text or base64 HTML, the
 * size cap, and a CSP of bare scheme://host[:port] sources only — a keyword, a path, a wildcard
 * or a directive smuggled in a source is dropped and named; the listing's `_meta.ui` is the
 * fallback when the content item has none. Also: the app's caller id, told apart from the rest.
 */
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { appResourceView, isAppMimeType } from '../../electron/apps/appResource.js';
import { MAX_APP_HTML_BYTES, appCallerId, isAppCaller } from '../../shared/contract/apps.js';

const URI = 'ui://t/app.html';
const read = (item: Record<string, unknown>): ReadResourceResult =>
  ({ contents: [{ uri: URI, ...item }] }) as ReadResourceResult;
const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('appResourceView', () => {
  it('keeps only bare scheme://host[:port] CSP sources and names the rest', () => {
    const sources = [
      'https://api.example.com',
      'wss://live.example.com:8443',
      'https://*.cdn.example.com',
      "'self'",
      '*',
      'https://a.example.com/path',
      'data:',
      'https://a.example.com; script-src *',
      'javascript://x',
      42,
    ];
    const view = appResourceView(
      URI,
      read({
        mimeType: 'text/html;profile=mcp-app',
        text: '<p>hi</p>',
        _meta: { ui: { csp: { connectDomains: sources, frameDomains: 'https://x.example.com' } } },
      }),
      'trace-1',
    );
    expect(view.csp).toEqual({
      connectDomains: ['https://api.example.com', 'wss://live.example.com:8443', 'https://*.cdn.example.com'],
    });
    expect(view.warnings).toHaveLength(8);
    expect(view.warnings.join('\n')).toContain('csp.frameDomains is not a list');
  });

  it('reads base64 HTML, accepts the MIME type in any case and spacing, and falls back to the listing’s _meta.ui', () => {
    const view = appResourceView(
      URI,
      read({ mimeType: 'Text/HTML; profile=mcp-app', blob: Buffer.from('<p>été</p>').toString('base64') }),
      'trace-2',
      { ui: { prefersBorder: false, permissions: { camera: {}, unknown: {} } } },
    );
    expect(view).toMatchObject({
      html: '<p>été</p>',
      csp: {},
      prefersBorder: false,
      permissions: { camera: true },
      warnings: [],
    });
    expect(isAppMimeType('text/html')).toBe(false);
  });

  it('refuses what is not an app, an empty answer and a page past the cap', () => {
    expect(codeOf(() => appResourceView(URI, read({ mimeType: 'text/html', text: '<p/>' }), 't'))).toBe(
      'app_resource_invalid',
    );
    expect(codeOf(() => appResourceView(URI, read({ text: '<p/>' }), 't'))).toBe('app_resource_invalid');
    expect(codeOf(() => appResourceView(URI, read({ mimeType: 'text/html;profile=mcp-app' }), 't'))).toBe(
      'app_resource_invalid',
    );
    expect(codeOf(() => appResourceView(URI, { contents: [] }, 't'))).toBe('app_resource_invalid');
    expect(
      codeOf(() =>
        appResourceView(
          URI,
          read({ mimeType: 'text/html;profile=mcp-app', text: 'x'.repeat(MAX_APP_HTML_BYTES + 1) }),
          't',
        ),
      ),
    ).toBe('result_too_large');
    expect(
      codeOf(() =>
        appResourceView(
          URI,
          read({
            mimeType: 'text/html;profile=mcp-app',
            blob: 'A'.repeat(Math.ceil((MAX_APP_HTML_BYTES * 4) / 3) + 8),
          }),
          't',
        ),
      ),
    ).toBe('result_too_large');
  });
});

describe('the app as a caller', () => {
  it('is "<server>’s app", which no agent name, the person or a run’s caller can be', () => {
    expect(appCallerId('Counter')).toBe("Counter's app");
    expect(isAppCaller(appCallerId('Counter'))).toBe(true);
    expect(isAppCaller('gui')).toBe(false);
    expect(isAppCaller('Claude Code')).toBe(false);
    expect(isAppCaller("agent run 1234abcd (Bob's app)")).toBe(false);
  });
});
