/**
 * A server's elicitation or sampling request → the contract's `AskView`, checked before anyone
 * sees it: it must fit the contract's schema (the spec's flat form subset, bounded sizes) and one
 * bridge frame with room to spare. A request that does not is refused to the server instead of
 * being shown half or hanging until it expires.
 */
import type { AskView } from '../../../shared/asks.js';
import { AskViewSchema } from '../../../shared/asks.js';
import { formatBytes, jsonByteLength } from '../../../shared/limits.js';
import type { ElicitationAsk, SamplingAsk } from '../../mcp/serverAsks.js';
import { AskNotShownError } from '../../mcp/serverAsks.js';

/** The largest ask the GUI is sent, as JSON (images in sampling messages make it grow). */
export const MAX_ASK_VIEW_BYTES = 4 * 1024 * 1024;

type Common = Pick<AskView, 'requestId' | 'serverId' | 'serverName' | 'expiresAt'>;

export function elicitationView(ask: ElicitationAsk, common: Common): unknown {
  return ask.mode === 'form'
    ? { kind: 'elicitation-form', ...common, message: ask.message, requestedSchema: ask.requestedSchema }
    : { kind: 'elicitation-url', ...common, message: ask.message, url: ask.url };
}

export function samplingView(ask: SamplingAsk, common: Common): unknown {
  const p = ask.params;
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

/** The view as the contract will carry it, or AskNotShownError saying what does not fit. */
export function showable(candidate: unknown): AskView {
  const parsed = AskViewSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` (at ${issue.path.map(String).join('.')})` : '';
    throw new AskNotShownError(`The request cannot be shown: ${issue?.message ?? 'it does not fit the dialog'}${where}.`);
  }
  const size = jsonByteLength(parsed.data);
  if (size > MAX_ASK_VIEW_BYTES) throw new AskNotShownError(`The request is too large to show (${formatBytes(size)}; the limit is ${formatBytes(MAX_ASK_VIEW_BYTES)}).`);
  return parsed.data;
}
