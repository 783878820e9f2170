/**
 * A server's elicitation or sampling request → the contract's `ServerRequestView`, checked before anyone
 * sees it: it must fit the contract's schema (the spec's flat form subset, bounded sizes) and one
 * bridge frame with room to spare. A request that does not is refused to the server instead of
 * being shown half or hanging until it expires.
 */
import type { ServerRequestView } from '../../../shared/serverRequests.js';
import { ServerRequestViewSchema } from '../../../shared/serverRequests.js';
import { formatBytes, jsonByteLength } from '../../../shared/limits.js';
import type { ElicitationServerRequest, SamplingServerRequest } from '../../mcp/serverRequests.js';
import { ServerRequestNotShownError } from '../../mcp/serverRequests.js';

/** The largest ask the GUI is sent, as JSON (images in sampling messages make it grow). */
const MAX_SERVER_REQUEST_VIEW_BYTES = 4 * 1024 * 1024;

type Common = Pick<ServerRequestView, 'requestId' | 'serverId' | 'serverName' | 'expiresAt'>;

export function elicitationView(serverRequest: ElicitationServerRequest, common: Common): unknown {
  return serverRequest.mode === 'form'
    ? {
        kind: 'elicitation-form',
        ...common,
        message: serverRequest.message,
        requestedSchema: serverRequest.requestedSchema,
      }
    : { kind: 'elicitation-url', ...common, message: serverRequest.message, url: serverRequest.url };
}

export function samplingView(serverRequest: SamplingServerRequest, common: Common): unknown {
  const p = serverRequest.params;
  return {
    kind: 'sampling',
    ...common,
    // The protocol allows one content block or a list; the dialog always gets a list.
    messages: p.messages.map((m) => ({ role: m.role, content: Array.isArray(m.content) ? m.content : [m.content] })),
    maxTokens: p.maxTokens,
    ...(p.systemPrompt !== undefined ? { systemPrompt: p.systemPrompt } : {}),
    ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
    ...(p.stopSequences !== undefined ? { stopSequences: p.stopSequences } : {}),
    ...(p.modelPreferences !== undefined ? { modelPreferences: p.modelPreferences } : {}),
    ...(p.includeContext !== undefined ? { includeContext: p.includeContext } : {}),
  };
}

/** The view as the contract will carry it, or ServerRequestNotShownError saying what does not fit. */
export function showable(candidate: unknown): ServerRequestView {
  const parsed = ServerRequestViewSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` (at ${issue.path.map(String).join('.')})` : '';
    throw new ServerRequestNotShownError(
      `The request cannot be shown: ${issue?.message ?? 'it does not fit the dialog'}${where}.`,
    );
  }
  const size = jsonByteLength(parsed.data);
  if (size > MAX_SERVER_REQUEST_VIEW_BYTES)
    throw new ServerRequestNotShownError(
      `The request is too large to show (${formatBytes(size)}; the limit is ${formatBytes(MAX_SERVER_REQUEST_VIEW_BYTES)}).`,
    );
  return parsed.data;
}
