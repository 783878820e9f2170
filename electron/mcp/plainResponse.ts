/**
 * The JSON-RPC envelope of a server's answer, checked by hand when it is the plain kind (issue 33).
 *
 * Every line a stdio server writes is checked against the SDK's `JSONRPCMessageSchema` (a zod union
 * of four strict objects) before the client reads it: for the usual line — a result response — the
 * union tries the request and notification shapes first, and builds an issue list for each miss.
 * A result response is accepted here when it is one beyond doubt: exactly the keys `jsonrpc`, `id`
 * and `result`, version "2.0", an id the schema takes (a string or a safe integer), and a result
 * that is a plain object without `_meta` (whose server-info key the schema checks and may drop) or
 * an own `__proto__` key (which the schema's copy drops).
 * For such a message the schema's answer is this same message — `{ jsonrpc, id, result }` with the
 * result's keys as given — so it is built here without zod. Anything else (notifications, requests,
 * errors, a `_meta`, an odd id) goes to the SDK's parse as before. The result's content is not this
 * check's: the client checks the `tools/call` result against the era's schema after it.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { isPlainObject } from '../util/plainObject.js';

/** `value` as the SDK's JSON-RPC message schema parses it; throws the schema's error when it is none. */
export function toJsonRpcMessage(value: unknown): JSONRPCMessage {
  return plainResultResponse(value) ?? parseJSONRPCMessage(value);
}

/** The result response `value` is when it is plainly one (see the header), else undefined. */
export function plainResultResponse(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainObject(value)) return undefined;
  let keys = 0;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return undefined;
    keys++;
  }
  if (keys !== 3 || value.jsonrpc !== '2.0') return undefined;
  const { id, result } = value;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  // An own `__proto__` key (JSON.parse makes one) is dropped by the schema's copy: left to it.
  if (!isPlainObject(result) || Object.hasOwn(result, '_meta') || Object.hasOwn(result, '__proto__')) return undefined;
  return { jsonrpc: '2.0', id: id as string | number, result };
}
