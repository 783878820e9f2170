/**
 * No loops, by what answers: MiniHarness's agent gateway names itself to its clients with a value
 * drawn fresh for each run of the app (its "mark") — in the capabilities of its `initialize` and
 * `server/discover` results (`experimental["io.miniharness/gateway"].run`), and in the `_meta` of
 * every tools/list page — which the stdio entry relays unchanged. A server whose answer carries
 * this run's mark is the app's own gateway, however it was reached (the bin under another name,
 * a symlink, `node …/stdioCli.ts`, a URL on the port the gateway moved to): its tools would
 * include its own and every call would come back here. The client refuses it — at the handshake,
 * and again at each tools/list page (a kept 2026-07-28 verdict skips `server/discover`) — before
 * any of its tools is listed. Another MiniHarness (another run, another person's) is not refused.
 *
 * The spelled-out checks (gateway/loop.ts) still refuse what can be recognised when it is saved.
 */
import { MCPGatewayLoopError } from './errors.js';

/** Where the gateway writes its mark: an experimental capability, and a key of a tools/list page's `_meta`. */
export const GATEWAY_MARK_KEY = 'io.miniharness/gateway';

/** The gateway's capabilities entry for `mark`. */
export function gatewayMarkCapability(mark: string): Record<string, { run: string }> {
  return { [GATEWAY_MARK_KEY]: { run: mark } };
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The gateway mark an answer carries (negotiated capabilities, or a result with `_meta`), if any. */
export function gatewayMarkOf(answer: unknown): string | undefined {
  const record = recordOf(answer);
  const fromCapabilities = recordOf(recordOf(recordOf(record?.experimental)?.[GATEWAY_MARK_KEY]))?.run;
  if (typeof fromCapabilities === 'string') return fromCapabilities;
  const fromMeta = recordOf(record?._meta)?.[GATEWAY_MARK_KEY];
  return typeof fromMeta === 'string' ? fromMeta : undefined;
}

/** Throws MCPGatewayLoopError when `answer` carries `ownMark` (this run's gateway mark), after `onRefused` (ending the connection). */
export function refuseOwnGateway(serverId: string, ownMark: string | undefined, answer: unknown, onRefused?: () => void): void {
  if (ownMark === undefined || gatewayMarkOf(answer) !== ownMark) return;
  onRefused?.();
  throw new MCPGatewayLoopError(serverId);
}
