/**
 * The error mapping as a pure function: each rule alone, with the v2 SDK's own error classes
 * (ProtocolError from the wire, SdkError for local failures, SdkHttpError for HTTP answers),
 * including the 2026-07-28 codes and the era negotiation's failures.
 */
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { MappingContext } from '../../electron/mcp/errorMapping.js';
import { HEADER_MISMATCH, mapClientError } from '../../electron/mcp/errorMapping.js';
import type { MCPTransportError } from '../../electron/mcp/errors.js';
import {
  MCPClientClosedError,
  MCPNotAnMCPServerError,
  MCPProtocolError,
  MCPRemoteError,
  MCPRequestCancelled,
  MCPRequestTimeout,
  MCPServerExitedError,
  MCPUnreachableError,
} from '../../electron/mcp/errors.js';
import { ServerConfigSchema } from '../../shared/serverConfig.js';

const http = ServerConfigSchema.parse({
  id: 'srv',
  name: 'srv',
  transport: 'streamable_http',
  url: 'http://127.0.0.1:9/mcp',
});
const stdio = ServerConfigSchema.parse({ id: 'srv', name: 'srv', transport: 'stdio', command: 'srv' });

function ctx(overrides: Partial<MappingContext> = {}): MappingContext {
  return {
    serverId: 'srv',
    config: http,
    operation: 'tools/call "x"',
    timeoutMs: 1_000,
    callerAborted: false,
    state: 'ready',
    closed: false,
    tooLarge: false,
    violation: undefined,
    target: 'http://127.0.0.1:9/mcp',
    sessionId: undefined,
    authChallenge: undefined,
    oauthChallenged: false,
    processExited: false,
    redact: (text) => text.replaceAll('s3cret', '[redacted]'),
    connectionLost: () => new MCPServerExitedError('srv', { exitCode: 1, signal: null, stderrTail: [] }, 'x'),
    notJsonRpcDetail: 'it answered with something that is not JSON-RPC (check the URL)',
    ...overrides,
  };
}

describe('mapClientError', () => {
  it('-32021 names the capability the server required', () => {
    const error = mapClientError(
      new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, 'needs sampling', {
        requiredCapabilities: { sampling: {} },
      }),
      ctx(),
    );
    expect(error).toBeInstanceOf(MCPRemoteError);
    expect((error as MCPRemoteError).rpcCode).toBe(-32021);
    expect(error.message).toMatch(/client capability this app did not declare \(sampling\)/);
  });

  it('-32022 lists the versions the server supports', () => {
    const error = mapClientError(
      new ProtocolError(ProtocolErrorCode.UnsupportedProtocolVersion, 'unsupported', {
        supported: ['2026-07-28'],
        requested: '2027-01-01',
      }),
      ctx(),
    );
    expect(error.message).toMatch(/it supports 2026-07-28/);
  });

  it('-32020 (header mismatch) stays the server’s answer with its code', () => {
    const error = mapClientError(new ProtocolError(HEADER_MISMATCH, 'Mcp-Name does not match'), ctx());
    expect((error as MCPRemoteError).rpcCode).toBe(HEADER_MISMATCH);
  });

  it('a failed era probe is named by its cause: a refused socket is unreachable, a web page is not an MCP server', () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    const probe = new SdkError(
      SdkErrorCode.EraNegotiationFailed,
      'Version negotiation probe failed: fetch failed',
      undefined,
      { cause: refused },
    );
    expect(mapClientError(probe, ctx({ state: 'initializing' }))).toBeInstanceOf(MCPUnreachableError);
    const page = new SdkError(SdkErrorCode.EraNegotiationFailed, 'unusable reply', undefined, {
      cause: new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, 'Unexpected content type: text/html'),
    });
    expect(mapClientError(page, ctx({ state: 'initializing' }))).toBeInstanceOf(MCPNotAnMCPServerError);
  });

  it('a failed era probe without a known cause says to pin the era; a stdio server that exited is its exit', () => {
    const pinFailed = new SdkError(
      SdkErrorCode.EraNegotiationFailed,
      'the server did not offer pinned protocol version 2026-07-28',
    );
    const error = mapClientError(pinFailed, ctx({ state: 'initializing', config: stdio }));
    expect(error).toBeInstanceOf(MCPProtocolError);
    expect(error.message).toMatch(/pin the server’s protocol era/);
    expect(
      mapClientError(pinFailed, ctx({ state: 'initializing', config: stdio, processExited: true })),
    ).toBeInstanceOf(MCPServerExitedError);
  });

  it('rounds of input that never end are a protocol error that says so', () => {
    const error = mapClientError(
      new SdkError(SdkErrorCode.InputRequiredRoundsExceeded, 'rounds', { rounds: 8 }),
      ctx(),
    );
    expect(error).toBeInstanceOf(MCPProtocolError);
    expect(error.message).toMatch(/kept asking for more input after 8 rounds/);
  });

  it('a deadline is a timeout; the caller’s own abort is a cancel; progress past the maximum names it', () => {
    const timeout = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: 1_000 });
    expect(mapClientError(timeout, ctx())).toBeInstanceOf(MCPRequestTimeout);
    expect(mapClientError(timeout, ctx({ callerAborted: true }))).toBeInstanceOf(MCPRequestCancelled);
    const maxTotal = mapClientError(
      new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: 5_000 }),
      ctx(),
    );
    expect((maxTotal as MCPRequestTimeout).timeoutMs).toBe(5_000);
  });

  it('a closed connection is "closed" after close(), a lost one otherwise', () => {
    const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    expect(mapClientError(closed, ctx({ closed: true }))).toBeInstanceOf(MCPClientClosedError);
    expect(mapClientError(closed, ctx())).toBeInstanceOf(MCPServerExitedError);
  });

  it('HTTP answers carry their status, and a remote message is redacted', () => {
    const error = mapClientError(
      new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'HTTP 500: s3cret leaked', { status: 500 }),
      ctx(),
    );
    expect((error as MCPTransportError).httpStatus).toBe(500);
    expect(error.message).not.toMatch(/s3cret/);
  });
});
