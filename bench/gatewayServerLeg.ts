/**
 * The SDK server's own work on one agent `tools/call` (issue 33, the server leg): the stored
 * handler the SDK dispatches to, in each era, with the checks it runs around the gateway's handler.
 *
 * - `two checks`: the method-name registration (`setRequestHandler('tools/call', …)`), which checks
 *   the request against the era's schema twice (`Server._wrapHandler`, then the registration);
 * - `one check`: `GatewayServer.serveToolCalls` (mcp/sdkAdapter.ts), the request checked once;
 * - `as is`: a result valid in every era by its shape handed on without the SDK's result check
 *   (`plainInEveryEra` + `handAsIs`), for a result of 1 and of 50 text blocks.
 *
 * The handler is reached through the SDK's private map (a bench only; production never does): no
 * transport, no HTTP, so the figures are the checks alone. Minimum over rounds (a shared machine).
 *
 *   npm run bench:gateway-server-leg   (BENCH_ROUNDS, default 12)
 */
import type { Result, ServerContext } from '@modelcontextprotocol/server';
import { GatewayServer, handAsIs, plainInEveryEra } from '../electron/mcp/sdkAdapter.js';
import { printTable } from './pipelineHelpers.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Variant = 'two checks' | 'one check' | 'as is';
type Stored = (request: unknown, ctx: unknown) => Promise<Result>;

function resultOf(blocks: number): Record<string, unknown> {
  return {
    content: Array.from({ length: blocks }, (_, i) => ({ type: 'text', text: `Echo: hello ${i}` })),
    _meta: { 'io.miniharness/callId': 'c1', 'io.miniharness/traceId': 't1', 'io.miniharness/replayed': false },
  };
}

function storedHandler(variant: Variant, era: string, blocks: number): Stored {
  const server = new GatewayServer({ name: 'bench', version: '1' }, { capabilities: { tools: {} } });
  const answer = async (): Promise<Result> => {
    const result = resultOf(blocks);
    return variant === 'as is' && plainInEveryEra(result) ? handAsIs(result) : result;
  };
  if (variant === 'two checks') server.setRequestHandler('tools/call', answer as () => Promise<never>);
  else server.serveToolCalls(answer);
  // The era a 2025 initialize or a 2026-07-28 serving entry would bind (private: a bench only).
  (server as unknown as { _negotiatedProtocolVersion: string })._negotiatedProtocolVersion = era;
  return (server as unknown as { _requestHandlers: Map<string, Stored> })._requestHandlers.get('tools/call')!;
}

const request = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'fx__echo', arguments: { message: 'hello' }, _meta: { progressToken: 1 } },
};
const ctx = {
  mcpReq: { id: 1, requestState: () => undefined, _meta: request.params._meta },
} as unknown as ServerContext;

async function perCall(handler: Stored, calls: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await handler(request, ctx);
  return Number(process.hrtime.bigint() - started) / calls / 1000;
}

const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++)
  for (const blocks of [1, 50])
    for (const era of ERAS)
      for (const variant of ['two checks', 'one check', 'as is'] as const) {
        const handler = storedHandler(variant, era, blocks);
        await perCall(handler, 500);
        const us = await perCall(handler, blocks === 1 ? 10_000 : 2_000);
        const key = `${blocks}\t${era}\t${variant}`;
        best.set(key, Math.min(best.get(key) ?? Infinity, us));
      }

printTable([
  ['blocks', 'era', 'variant', 'µs per tools/call (min)'],
  ...[...best].map(([key, us]) => [...key.split('\t'), us.toFixed(2)]),
]);
console.log(`(${ROUNDS} rounds; the SDK server's stored tools/call handler alone, no transport)`);
console.log(JSON.stringify({ bench: 'gateway-server-leg', ...Object.fromEntries(best) }));
