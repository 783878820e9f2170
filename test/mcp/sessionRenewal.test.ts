import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { refusedUnprocessed } from '../../electron/mcp/sessionRenewal.js';

// A tool call on a connection made from a kept protocol era is sent again only on these: the
// server refused it unread. Anything it may have processed is not, or the tool could run twice.
const http = (status: number) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `HTTP ${status}`, { status });

describe('refusedUnprocessed', () => {
  it('is true for refusals made before the request was read', () => {
    expect(refusedUnprocessed(new ProtocolError(-32022, 'Unsupported protocol version'))).toBe(true);
    expect(refusedUnprocessed(new ProtocolError(-32020, 'Header mismatch'))).toBe(true);
    expect(refusedUnprocessed(new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found'))).toBe(true);
    expect(refusedUnprocessed(http(400))).toBe(true);
    expect(refusedUnprocessed(http(404))).toBe(true);
  });

  it('is false for anything the server may have processed, and for a deadline', () => {
    expect(refusedUnprocessed(new ProtocolError(ProtocolErrorCode.InternalError, 'the tool failed'))).toBe(false);
    expect(refusedUnprocessed(new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad arguments'))).toBe(false);
    expect(refusedUnprocessed(new SdkError(SdkErrorCode.InvalidResult, 'missing resultType'))).toBe(false);
    expect(refusedUnprocessed(new SdkError(SdkErrorCode.RequestTimeout, 'timed out'))).toBe(false);
    expect(refusedUnprocessed(http(500))).toBe(false);
    expect(refusedUnprocessed(new Error('socket hang up'))).toBe(false);
  });
});
