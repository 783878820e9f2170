import { PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { surelyLegacy, surelyModern } from '../../electron/gateway/eraRoute.js';

const MODERN = '2026-07-28';
const envelope = (extra: Record<string, unknown> = {}) => ({
  [PROTOCOL_VERSION_META_KEY]: MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
const call = { name: 'everything__echo', arguments: { message: 'hi' } };

/** Bodies the gateway may be sent, each with the headers it comes with; the SDK's predicate is the truth. */
const cases: Array<[string, unknown, Record<string, string>?]> = [
  ['a modern tools/call', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...call, _meta: envelope() } }],
  ['a modern notification', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: envelope() } }],
  [
    'a claim with a bad envelope',
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: 7 } } },
  ],
  [
    'a claim naming 2025',
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '2025-11-25' } } },
  ],
  ['a claim on a body that is no JSON-RPC message', { id: 1, method: 3, params: { _meta: envelope() } }],
  ['initialize with a modern envelope', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: envelope() } }],
  [
    'initialize with a bad envelope',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'a', version: '1' },
        _meta: { [PROTOCOL_VERSION_META_KEY]: 7 },
      },
    },
  ],
  [
    'a response carrying a claim',
    { jsonrpc: '2.0', id: 1, result: {}, method: 'tools/list', params: { _meta: envelope() } },
  ],
  [
    'an error response carrying a claim',
    { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' }, method: 'x', params: { _meta: envelope() } },
  ],
  ['a batch with a claim', [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } }]],
  [
    'a legacy tools/call',
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...call, _meta: { progressToken: 1 } } },
  ],
  [
    'a legacy initialize',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } },
    },
  ],
  [
    'no claim, a modern header',
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    { 'mcp-protocol-version': MODERN },
  ],
  [
    'a _meta that is an array',
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: [PROTOCOL_VERSION_META_KEY] } },
  ],
  [
    'a 2025 session’s tools/call',
    { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { ...call, _meta: { progressToken: 7 } } },
    { 'mcp-protocol-version': '2025-11-25' },
  ],
  [
    'a 2025 session’s notification',
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-protocol-version': '2025-06-18' },
  ],
  ['a 2025 request with no params', { jsonrpc: '2.0', id: 'a', method: 'ping' }],
  [
    'no claim, a header naming an unknown version',
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { 'mcp-protocol-version': '2099-01-01' },
  ],
  ['no claim, not JSON-RPC 2.0', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
  ['no claim, no jsonrpc', { id: 1, method: 'tools/list' }],
  ['no claim, a null id', { jsonrpc: '2.0', id: null, method: 'tools/list' }],
  ['no claim, params an array', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] }],
  ['no claim, a null _meta', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: null } }],
  ['a result response', { jsonrpc: '2.0', id: 1, result: {} }],
  ['a null body', null],
];

/** The cases every 2025 session sends, which the gateway decides without the SDK's predicate. */
const SURELY_LEGACY = [
  'a legacy tools/call',
  'a legacy initialize',
  'a 2025 session’s tools/call',
  'a 2025 session’s notification',
  'a 2025 request with no params',
];

const versionHeader = (headers: Record<string, string> | undefined) => headers?.['mcp-protocol-version'];

describe('the era decided once (eraRoute.ts)', () => {
  it.each(cases)(
    '%s: taken as modern only where the SDK would never serve it as legacy',
    async (_name, body, headers) => {
      const request = new Request('http://127.0.0.1:4321/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      });
      const legacy = await isLegacyRequest(request, body);
      if (surelyModern(body)) expect(legacy).toBe(false);
      if (surelyLegacy(body, versionHeader(headers))) expect(legacy).toBe(true);
      expect(surelyModern(body) && surelyLegacy(body, versionHeader(headers))).toBe(false);
    },
  );

  it('skips the SDK predicate for what 2025 sessions send: a call, a notification, initialize, a request without params', () => {
    for (const name of SURELY_LEGACY) {
      const [, body, headers] = cases.find(([n]) => n === name)!;
      expect(surelyLegacy(body, versionHeader(headers)), name).toBe(true);
    }
  });

  it('takes every 2025-era version the SDK supports in the MCP-Protocol-Version header, as the SDK does', async () => {
    const body = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: call };
    const versions = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => !v.startsWith('2026'));
    expect(versions.length).toBeGreaterThan(3);
    for (const version of versions) {
      expect(surelyLegacy(body, version), version).toBe(true);
      const request = new Request('http://127.0.0.1:4321/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mcp-protocol-version': version },
      });
      expect(await isLegacyRequest(request, body), version).toBe(true);
    }
  });

  it('leaves to the SDK what it might not serve as legacy: a claim, a modern or unknown header, a response, a body not JSON-RPC', () => {
    for (const [name, body, headers] of cases)
      if (!SURELY_LEGACY.includes(name)) expect(surelyLegacy(body, versionHeader(headers)), name).toBe(false);
  });

  it('skips the SDK predicate for what modern agents send: a call, a list, a notification', () => {
    // The calls a 2026-07-28 agent sends, each of which the SDK classified twice before (the gateway, then the handler).
    expect(surelyModern(cases[0]![1])).toBe(true);
    expect(surelyModern({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope() } })).toBe(true);
    expect(surelyModern(cases[1]![1])).toBe(true);
  });

  it('leaves every legacy body, initialize and anything response-shaped to the SDK', () => {
    for (const name of [
      'initialize with a modern envelope',
      'a response carrying a claim',
      'a batch with a claim',
      'a legacy tools/call',
      'a legacy initialize',
      'no claim, a modern header',
      'a _meta that is an array',
    ])
      expect(surelyModern(cases.find(([n]) => n === name)![1]), name).toBe(false);
  });
});
