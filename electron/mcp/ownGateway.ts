/**
 * No loops, by what answers: MiniHarness's agent gateway names itself to its clients with a value
 * drawn fresh for each run of the app (its "mark") — in the capabilities of its `initialize` and
 * `server/discover` results (`experimental["io.miniharness/gateway"].run`), and in the `_meta` of
 * every tools/list page — which the stdio entry relays unchanged. A server whose answer carries
 * this run's mark is the app's own gateway, however it was reached (the bin under another name,
 * a symlink, `node …/stdioCli.ts`, a URL on the port the gateway moved to): its tools would
 * include its own and every call would come back here. The client refuses it — at the handshake,
 * and again at each tools/list page (a kept 2026-07-28 verdict skips `server/discover`) — before
 * any of its tools is listed. Another MiniHarness (another run, another person's) is not refused —
 * unless it reaches back here: each gateway also names the marks of the gateways it is itself
 * connected to (`through`), so the link that would close a ring of runs (A lists B, B lists A)
 * meets its own run's mark and is refused.
 *
 * The spelled-out checks (gateway/loop.ts) still refuse what can be recognised when it is saved.
 */
import { MCPGatewayLoopError } from './errors.js';

/** Where the gateway writes its mark: an experimental capability, and a key of a tools/list page's `_meta`. */
const GATEWAY_MARK_KEY = 'io.miniharness/gateway';

/** A tools/list page's `_meta` key for the marks of the gateways behind this one. */
const GATEWAY_THROUGH_KEY = 'io.miniharness/gateway-through';
/** At most this many marks are read from an answer (a ring longer than this is not followed). */
const MAX_MARKS = 64;

/** The gateway's capabilities entry for `mark`, and the marks of the gateways it is connected to. */
export function gatewayMarkCapability(
  mark: string,
  through: readonly string[] = [],
): Record<string, { run: string; through?: string[] }> {
  return { [GATEWAY_MARK_KEY]: { run: mark, ...(through.length > 0 ? { through: [...through] } : {}) } };
}

/** A tools/list page's `_meta` entries for `mark` and `through`. */
export function gatewayMarkMeta(mark: string, through: readonly string[] = []): Record<string, string | string[]> {
  return { [GATEWAY_MARK_KEY]: mark, ...(through.length > 0 ? { [GATEWAY_THROUGH_KEY]: [...through] } : {}) };
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The gateway mark an answer carries (negotiated capabilities, or a result with `_meta`), if any. */
export function gatewayMarkOf(answer: unknown): string | undefined {
  const record = recordOf(answer);
  const fromCapabilities = recordOf(recordOf(recordOf(record?.experimental)?.[GATEWAY_MARK_KEY]))?.run;
  if (typeof fromCapabilities === 'string') return fromCapabilities;
  const fromMeta = recordOf(record?._meta)?.[GATEWAY_MARK_KEY];
  return typeof fromMeta === 'string' ? fromMeta : undefined;
}

/** Every gateway mark an answer carries: the answering gateway's, and those of the gateways behind it (bounded, strings only). */
export function gatewayMarksOf(answer: unknown): string[] {
  const record = recordOf(answer);
  const capability = recordOf(recordOf(record?.experimental)?.[GATEWAY_MARK_KEY]);
  const meta = recordOf(record?._meta);
  const run = gatewayMarkOf(answer);
  const through = [capability?.through, meta?.[GATEWAY_THROUGH_KEY]].flatMap((list) =>
    Array.isArray(list) ? (list as unknown[]) : [],
  );
  const marks = [...(run !== undefined ? [run] : []), ...through].filter(
    (m): m is string => typeof m === 'string' && m.length <= 200,
  );
  return [...new Set(marks)].slice(0, MAX_MARKS);
}

/** Throws MCPGatewayLoopError when `answer` carries `ownMark` (this run's gateway mark, as the answering gateway's or one behind it), after `onRefused` (ending the connection). */
export function refuseOwnGateway(
  serverId: string,
  ownMark: string | undefined,
  answer: unknown,
  onRefused?: () => void,
): void {
  if (ownMark === undefined || !gatewayMarksOf(answer).includes(ownMark)) return;
  onRefused?.();
  throw new MCPGatewayLoopError(serverId);
}
