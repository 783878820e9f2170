/**
 * Calls: a tool call on one given server, refused with the reason when the server cannot take it.
 * Its progress messages, and the questions its server asks the caller, come out with known
 * secrets redacted (descriptorRedaction.ts).
 */
import { MCPConfigError, MCPServerUnavailableError, MCPUnknownToolError } from '../errors.js';
import type { NormalizedToolResult } from '../../results/toolResult.js';
import type { DescriptorRedaction } from '../descriptorRedaction.js';
import type { CallServerRequestHandlers, ProgressUpdate, RequestOptions } from '../types.js';
import type { RegistryState } from './state.js';
import type { Connection } from './types.js';

export interface RegistryCallOptions extends RequestOptions {
  /** Who asked for the call (the GUI, or an agent), noted in the server's log. */
  agentId?: string;
}

function assertUsable(serverId: string, connection: Connection): void {
  if (connection.failure) throw new MCPServerUnavailableError(serverId, connection.failure.message);
}

export async function callServerTool(
  state: RegistryState,
  serverId: string,
  name: string,
  args: Record<string, unknown>,
  options: RegistryCallOptions = {},
): Promise<NormalizedToolResult> {
  state.assertOpen();
  const entry = state.entries.get(serverId);
  if (!entry) throw new MCPConfigError(serverId, 'no server with this id exists');
  const connection = entry.connection;
  if (!connection) throw new MCPServerUnavailableError(serverId, 'it is not connected; connect it first');
  // A lost server says why (it exited, it was killed) rather than "no such tool".
  assertUsable(serverId, connection);
  if (!state.toolMap.offers(serverId, name)) throw new MCPUnknownToolError(name, serverId);
  await connection.ready;
  assertUsable(serverId, connection);
  if (options.agentId) entry.log.note(`tools/call ${name} (by ${options.agentId})`);
  const { agentId: _agentId, onProgress, serverRequests, ...requestOptions } = options;
  // A server that echoes a credential in a progress message or a question: the GUI and agents get it redacted.
  const progress = onProgress
    ? { onProgress: (update: ProgressUpdate) => onProgress(state.redaction.progress(update)) }
    : {};
  return connection.client.callTool(name, args, {
    ...requestOptions,
    ...progress,
    ...(serverRequests ? { serverRequests: redactedAsks(serverRequests, state.redaction) } : {}),
  });
}

/** The caller's answerers, handed each question with known secrets redacted. */
export function redactedAsks(
  serverRequests: CallServerRequestHandlers,
  redaction: DescriptorRedaction,
): CallServerRequestHandlers {
  const { elicit, sample, relay } = serverRequests;
  return {
    ...(elicit ? { elicit: (question, signal) => elicit(redaction.values(question), signal) } : {}),
    ...(sample ? { sample: (params, signal) => sample(redaction.values(params), signal) } : {}),
    ...(relay
      ? { relay: { ...relay, round: (requests, signal) => relay.round(redaction.values(requests), signal) } }
      : {}),
  };
}
