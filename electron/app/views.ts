/**
 * Every mapping from a domain object to its contract view, in one place: what the core shows the
 * renderer of a tool, a server's status and negotiation, a history record, an import plan and
 * the secret store. Handlers build their answers from these and from nothing else.
 */
import type { AppInfo, HistoryRecordView, ImportPreview, NegotiatedView, ServerView, ToolIcon, ToolView } from '../../shared/contract.js';
import type { HistoryEntry } from '../checkpoints/types.js';
import type { HarnessToolInfo } from '../harness/application.js';
import type { ServerStatus } from '../mcp/registry.js';
import type { NegotiatedInfo } from '../mcp/types.js';
import type { PlannedServer } from './importer.js';
import type { SecretBackendInfo } from '../secrets/types.js';

/** Inline images a page may show as an icon; an SVG in an <img> runs no script. */
const ICON_SRC = /^data:image\/(png|jpeg|gif|webp|svg\+xml)(;[a-z0-9=.+-]+)*,/i;
/** An icon larger than this (as text) is not shown: icons are small. */
const MAX_ICON_CHARS = 64 * 1024;
const MAX_ICONS = 4;

/**
 * The icons the page may show: inline images only, small ones, a few. An http(s) icon is not
 * passed on: the page loads nothing from the network (its CSP forbids it, and a fetch would tell a
 * third party that the tool list was opened).
 */
export function iconsView(icons: HarnessToolInfo['icons']): ToolIcon[] {
  return (icons ?? [])
    .filter((icon) => ICON_SRC.test(icon.src) && icon.src.length <= MAX_ICON_CHARS)
    .slice(0, MAX_ICONS)
    .map((icon) => ({
      src: icon.src,
      ...(icon.mimeType ? { mimeType: icon.mimeType } : {}),
      ...(icon.sizes ? { sizes: icon.sizes } : {}),
      ...(icon.theme ? { theme: icon.theme } : {}),
    }));
}

/** `cached`: the tool's server lists it from the schema cache and is not ready yet. */
export function toolView(tool: HarnessToolInfo, cached = false): ToolView {
  const title = tool.title ?? tool.annotations?.title;
  const icons = iconsView(tool.icons);
  return {
    name: tool.name,
    source: tool.source,
    serverId: tool.serverId,
    ...(title ? { title } : {}),
    ...(icons.length ? { icons } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
    ...(tool.shadowedBy ? { shadowedBy: tool.shadowedBy } : {}),
    ...(cached ? { cached: true } : {}),
  };
}

export function statusView(status: ServerStatus): ServerView['status'] {
  const cause = 'cause' in status && status.cause ? { cause: status.cause } : {};
  if (status.state === 'reconnecting') return { state: 'reconnecting', attempt: status.attempt, nextRetryAt: status.nextRetryAt, code: status.code, reason: status.reason, ...cause };
  return status.state === 'error' ? { state: 'error', code: status.code, reason: status.reason, ...cause } : { state: status.state };
}

export function negotiatedView(negotiated: NegotiatedInfo): NegotiatedView {
  return {
    protocolVersion: negotiated.protocolVersion,
    capabilities: negotiated.capabilities,
    serverInfo: negotiated.serverInfo,
    ...(negotiated.instructions ? { instructions: negotiated.instructions } : {}),
    timings: negotiated.timings,
  };
}

export function secretBackendView(backend: SecretBackendInfo): AppInfo['secretBackend'] {
  return { kind: backend.kind, secure: backend.secure, ...(backend.warning ? { warning: backend.warning } : {}) };
}

/** `running`: whether this process is running the call now (a 'started' record it is not running is 'unknown'). */
export function historyRecordView(record: HistoryEntry, isRunning: (sessionId: string, callId: string) => boolean): HistoryRecordView {
  return {
    sessionId: record.sessionId,
    callId: record.callId,
    userId: record.userId,
    toolName: record.toolName,
    serverId: record.serverId,
    status: record.status === 'started' && !isRunning(record.sessionId, record.callId) ? 'unknown' : record.status,
    args: record.args,
    ...(record.result
      ? { result: { content: record.result.content, ...(record.result.structuredContent ? { structuredContent: record.result.structuredContent } : {}), isError: record.result.isError } }
      : {}),
    ...(record.lastError ? { lastError: { ...(record.lastError.code ? { code: record.lastError.code } : {}), message: record.lastError.message, at: record.lastError.at } } : {}),
    attempts: record.attempts,
    traceId: record.traceId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.resolvedBy ? { resolvedBy: record.resolvedBy } : {}),
    ...(record.resolutionNote ? { resolutionNote: record.resolutionNote } : {}),
    ...(record.preview ? { preview: record.preview } : {}),
  };
}

/** `exists`: whether a server with this id is configured already. */
export function importServerView(server: PlannedServer, exists: (id: string) => boolean): ImportPreview['servers'][number] {
  return {
    name: server.name,
    ...(server.config ? { config: server.config } : {}),
    secretSlots: [...Object.keys(server.fileSecrets), ...Object.keys(server.inputSecrets)],
    inputs: [...new Set(Object.values(server.inputSecrets))],
    exists: server.config !== undefined && exists(String(server.config.id)),
    problems: server.problems,
  };
}
