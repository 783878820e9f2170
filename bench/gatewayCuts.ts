/**
 * Micro-benchmark of the per-request costs cut from the gateway's HTTP path (bench/gateway.ts
 * --profile finds them; this measures each alone, old way against new, in one process, interleaved
 * rounds, median CPU ns per operation):
 * - the Web Request the SDK reads, built once per request instead of twice, in both eras (for
 *   2026-07-28 requests the SDK's Node adapter built a second one and serialized the parsed body
 *   back into it);
 * - the request's abort joined to the app's: AbortSignal.any against a listener;
 * - the agent's `_meta` key: a zod parse against a hand check;
 * - a 2025 answer's one SSE event turned into a JSON body: decoded, matched by a regular expression
 *   and encoded again, against recognised on its bytes and written from them;
 * - a token's check: the resource-metadata URL (two URL parses) built for every request, against
 *   built for a refusal only;
 * - a 2026-07-28 request's era: the SDK's classification twice (the gateway's `isLegacyRequest`, then the
 *   modern handler's own), against once (eraRoute.ts): both run the SDK's exported `classifyInboundRequest`
 *   on the parsed body, timed here directly (it is synchronous).
 * The idle sweep (on every request before, once per interval now) is not here: its cost grows
 * with the sessions open; bench/gateway.ts --profile shows it (`expireIdle`).
 *
 *   npx tsx bench/gatewayCuts.ts      (BENCH_OPS, default 200000; BENCH_ROUNDS, default 5)
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { toWebRequest as sdkToWebRequest } from '@modelcontextprotocol/node';
import { classifyInboundRequest, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/server';
import { surelyModern } from '../electron/gateway/eraRoute.js';
import { responseData, toWebRequest } from '../electron/gateway/webResponse.js';
import { fmt, median, printTable } from './pipelineHelpers.js';

const OPS = Number(process.env.BENCH_OPS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const req = {
  url: '/mcp',
  method: 'POST',
  headers: { host: '127.0.0.1:4321' },
  rawHeaders: [
    'Host',
    '127.0.0.1:4321',
    'Content-Type',
    'application/json',
    'Accept',
    'application/json, text/event-stream',
    'Authorization',
    'Bearer mh_x',
    'mcp-session-id',
    'abc',
    'mcp-protocol-version',
    '2025-11-25',
    'Content-Length',
    '120',
  ],
} as unknown as IncomingMessage;

const KeyPart = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/);
const CallMetaSchema = z.looseObject({
  'io.miniharness/callId': KeyPart.optional(),
  'io.miniharness/session': KeyPart.optional(),
});
const KEY_PART = /^[\x21-\x7e]{1,200}$/;
const meta = { 'io.miniharness/callId': 'bench-12345', progressToken: 7 };
const body = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    name: 'everything__echo',
    arguments: { message: 'hello #7' },
    _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  },
};
let sink: unknown;

const cases: Array<[string, () => void, () => void]> = [
  [
    'Web Request per legacy request (two → one)',
    () => void (sink = [toWebRequest(req), toWebRequest(req)]),
    () => void (sink = toWebRequest(req)),
  ],
  [
    'modern request: the SDK adapter’s second Request, parsed body re-serialized → the era decision’s reused',
    () => {
      sink = [toWebRequest(req), sdkToWebRequest(req as never, body)];
    },
    () => void (sink = toWebRequest(req)),
  ],
  [
    'request abort joined to the app’s (AbortSignal.any → listener)',
    () => {
      const request = new AbortController();
      const app = new AbortController();
      sink = AbortSignal.any([request.signal, app.signal]);
    },
    () => {
      const request = new AbortController();
      const app = new AbortController();
      const follow = (): void => app.abort(request.signal.reason);
      request.signal.addEventListener('abort', follow, { once: true });
      request.signal.removeEventListener('abort', follow);
      sink = app.signal;
    },
  ],
  [
    '_meta key check (zod looseObject parse → hand check)',
    () => void (sink = CallMetaSchema.safeParse(meta).success),
    () => {
      const v = (meta as Record<string, unknown>)['io.miniharness/callId'];
      const s = (meta as Record<string, unknown>)['io.miniharness/session'];
      sink =
        (v === undefined || (typeof v === 'string' && KEY_PART.test(v))) &&
        (s === undefined || (typeof s === 'string' && KEY_PART.test(s)));
    },
  ],
];

const sseChunk = new TextEncoder().encode(
  `event: message\ndata: ${JSON.stringify({ result: { content: [{ type: 'text', text: 'Echo: hello #7' }], _meta: meta }, jsonrpc: '2.0', id: 7 })}\n\n`,
);
const decoder = new TextDecoder();
const modernBody = {
  ...body,
  params: {
    ...body.params,
    _meta: {
      ...body.params._meta,
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
};
const modernRequest = {
  httpMethod: 'POST',
  protocolVersionHeader: '2026-07-28',
  mcpMethodHeader: 'tools/call',
  mcpNameHeader: 'everything__echo',
  body: modernBody,
};
cases.push(
  [
    'a 2025 answer’s SSE event → JSON body (decode + regex + encode → bytes)',
    () => {
      const data = /^event: message\n(?:id: [^\n]*\n)?data: ([^\n]*)\n\n$/.exec(decoder.decode(sseChunk))?.[1];
      sink = data !== undefined && data.startsWith('{"result":') ? [data, Buffer.byteLength(data)] : undefined;
    },
    () => {
      const data = responseData(sseChunk);
      sink = data ? [data, data.byteLength] : undefined;
    },
  ],
  [
    'modern request’s era: the SDK’s classification twice → once (eraRoute.ts)',
    () => void (sink = [classifyInboundRequest(modernRequest), classifyInboundRequest(modernRequest)]),
    () => void (sink = [surelyModern(modernBody), classifyInboundRequest(modernRequest)]),
  ],
  [
    'token check: resource-metadata URL for every request → for a refusal only',
    () => void (sink = getOAuthProtectedResourceMetadataUrl(new URL('http://127.0.0.1:4321/mcp'))),
    () => void (sink = undefined),
  ],
);

/** CPU time, not wall-clock: on this shared machine a wall-clock loop is charged the time others run (×4–5 at load 10). */
function nsPerOp(run: () => void): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < OPS; i++) run();
  const used = process.cpuUsage(t0);
  return ((used.user + used.system) * 1e3) / OPS;
}

const rows: string[][] = [['per request', 'old ns', 'new ns', 'saved ns']];
for (const [name, before, after] of cases) {
  nsPerOp(before);
  nsPerOp(after);
  const old: number[] = [];
  const now: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    old.push(nsPerOp(before));
    now.push(nsPerOp(after));
  }
  rows.push([name, fmt(median(old), 0), fmt(median(now), 0), fmt(median(old) - median(now), 0)]);
}
printTable(rows);
console.log(
  `(${OPS} operations per round, ${ROUNDS} rounds interleaved, medians of the process's CPU time; the collection of AbortSignal.any's weakly held sources comes later and is only partly in it)`,
);
void sink;
