/**
 * MCP Apps' CSP comes from the ext-apps package's own schema (McpUiResourceCsp,
 * McpUiResourcePermissions): the fields main reads from a resource's `_meta.ui` are exactly the
 * package's, and the sandbox proxy (electron/core/appSandboxPage.ts) keeps exactly the sources
 * main's reader (electron/apps/appResource.ts) keeps — one schema, not two regexes. Before, the
 * proxy took a `:*` port that main refused.
 */
import { McpUiResourceCspSchema, McpUiResourcePermissionsSchema } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { APP_CSP_KEYS, APP_PERMISSION_KEYS } from '../../shared/contract/apps.js';
import { appResourceView } from '../../electron/apps/appResource.js';
import { parseAppCspParam } from '../../electron/core/appSandboxPage.js';

const SOURCES = [
  'https://api.example.com',
  'wss://live.example.com:8443',
  'https://*.cdn.example.com',
  'https://x.example.com:*',
  'HTTPS://UPPER.example.com',
  "'self'",
  '*',
  'https://a.example.com/path',
  'https://a.example.com; script-src *',
  `https://${'a'.repeat(300)}.example.com`,
];

function mainKeeps(source: string): boolean {
  const read = {
    contents: [
      {
        uri: 'ui://x/app.html',
        mimeType: 'text/html;profile=mcp-app',
        text: '<p/>',
        _meta: { ui: { csp: { connectDomains: [source] } } },
      },
    ],
  } as unknown as ReadResourceResult;
  return (appResourceView('ui://x/app.html', read, 't').csp.connectDomains ?? []).length === 1;
}

function proxyKeeps(source: string): boolean {
  const param = Buffer.from(JSON.stringify({ connectDomains: [source] })).toString('base64url');
  return parseAppCspParam(param).connectDomains.length === 1;
}

describe('the MCP Apps CSP schema', () => {
  it('reads the package’s fields', () => {
    expect(APP_CSP_KEYS).toEqual(Object.keys(McpUiResourceCspSchema.shape));
    expect(APP_PERMISSION_KEYS).toEqual(Object.keys(McpUiResourcePermissionsSchema.shape));
  });

  it('the sandbox proxy keeps exactly the sources main keeps', () => {
    for (const source of SOURCES) expect(proxyKeeps(source), source).toBe(mainKeeps(source));
    expect(SOURCES.filter(mainKeeps)).toEqual([
      'https://api.example.com',
      'wss://live.example.com:8443',
      'https://*.cdn.example.com',
    ]);
  });
});
