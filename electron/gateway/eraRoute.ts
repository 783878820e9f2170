/**
 * The era of an agent's request decided once (issue 33). The SDK decides it by its predicate
 * (`isLegacyRequest`), and a modern request is decided again inside the modern handler
 * (`createMcpHandler` classifies every request it is given, and takes no classification from outside):
 * two runs of the SDK's classification per modern request, each a few schema probes that fail
 * (is it a response? an error?) before the one that passes (~8–20 µs each, bench/gatewayCuts.ts).
 *
 * Here a body the SDK can only classify as not legacy is known by four property reads, and is sent
 * to the modern handler, whose classification is then the only one; any other body still goes
 * through `isLegacyRequest`. Why the four reads imply the SDK's answer (`classifyInboundRequest`, which
 * only ever sees a POST here: the gateway reads a body for POSTs only): a plain object is not a batch;
 * with no `result` and no `error` it is not a JSON-RPC response (both keys are required by those
 * schemas); it is then a request, a notification or neither (refused, not legacy); a request or a
 * notification whose `params._meta` holds the protocol-version claim is modern, or refused by the
 * modern path's ladder — except `initialize`, which stays legacy unless its envelope is valid, so it is
 * never decided here. test/gateway/eraRoute.test.ts holds this against the SDK's predicate, case by case.
 *
 * A 2025 session's requests are the mirror case (`surelyLegacy`): the SDK tries them as a result
 * response and as an error response first — two zod parses that fail, each building its error —
 * before the request parse that passes. A body with neither `result` nor `error` can be neither
 * response; a JSON-RPC request or notification (the SDK's own guards, one passing parse) with no
 * protocol-version claim in a plain `params._meta`, under no MCP-Protocol-Version header or one naming
 * a 2025-era version, is legacy by every rule of the SDK's ladder (initialize included: legacy
 * unless it carries a valid claim). Anything else still goes to `isLegacyRequest`.
 */
import {
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  isJSONRPCNotification,
  isJSONRPCRequest,
} from '@modelcontextprotocol/server';
import { MODERN_PROTOCOL_VERSION } from '../mcp/negotiation.js';
import { isPlainObject } from '../util/plainObject.js';

/** Whether the SDK's classification can only answer "not legacy" for this POST body (false: ask the SDK). */
export function surelyModern(body: unknown): boolean {
  if (!isPlainObject(body) || body.result !== undefined || body.error !== undefined) return false;
  if (body.method === 'initialize') return false;
  const params = body.params;
  return isPlainObject(params) && isPlainObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}

/** The SDK's versions before 2026-07-28 (it compares dates the same way): what a 2025 session's MCP-Protocol-Version header names. */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(
  SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < MODERN_PROTOCOL_VERSION),
);

/** Whether the SDK's classification can only answer "legacy" for this POST body and MCP-Protocol-Version header (false: ask the SDK). */
export function surelyLegacy(body: unknown, protocolVersionHeader: string | undefined): boolean {
  if (!isPlainObject(body) || 'result' in body || 'error' in body) return false;
  if (protocolVersionHeader !== undefined && !LEGACY_VERSIONS.has(protocolVersionHeader)) return false;
  const params = body.params;
  if (params !== undefined) {
    if (!isPlainObject(params)) return false;
    const meta = params._meta;
    if (meta !== undefined && (!isPlainObject(meta) || PROTOCOL_VERSION_META_KEY in meta)) return false;
  }
  return isJSONRPCRequest(body) || isJSONRPCNotification(body);
}
