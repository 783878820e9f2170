/**
 * Every mapping from a domain object to its contract view, in one place: what the core shows the
 * renderer of a tool, a server's status and negotiation, a history record, an import plan and
 * the secret store. Handlers build their answers from these and from nothing else.
 */
import { toolChange } from '../security/toolDiff.js';
import type {
  AppInfo,
  HistoryRecordView,
  ImportPreview,
  NegotiatedView,
  ServerView,
  ToolIcon,
  ToolView,
} from '../../shared/contract.js';
import type {
  CompletionView,
  PromptListView,
  PromptResultView,
  PromptView,
  ResourceContentView,
  ResourceListView,
  ResourceReadView,
  ResourceTemplateView,
  ResourceView,
} from '../../shared/contract.js';
import {
  MAX_CONTENT_BINARY_BYTES,
  MAX_CONTENT_TEXT_BYTES,
  MAX_CONTENT_VIEW_BYTES,
  jsonByteLength,
  utf8Length,
} from '../../shared/limits.js';
import type {
  CompleteResult,
  ContentBlock,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
} from '@modelcontextprotocol/client';
import type { Listed } from '../mcp/features/paging.js';
import { templateVariables } from '../mcp/features/resources.js';
import type { ResourceCatalog } from '../mcp/registry.js';
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
function iconsView(icons: HarnessToolInfo['icons']): ToolIcon[] {
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

/** The tool's pin for the list and its detail; a changed tool carries the diff (issue 31). */
function pinView(tool: HarnessToolInfo): Pick<ToolView, 'pin'> {
  const pin = tool.pin;
  if (!pin || pin.state === 'unpinned') return {};
  const { hash, pinnedAt, pinnedBy } = pin.pin;
  return {
    pin: {
      state: pin.state,
      hash,
      pinnedAt,
      pinnedBy,
      ...(pin.state === 'changed' && tool.definition ? { change: toolChange(pin.pin, tool.definition) } : {}),
    },
  };
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
    ...pinView(tool),
    ...(tool.flags?.length ? { flags: tool.flags.map((f) => ({ ...f })) } : {}),
    ...(tool.app
      ? {
          app: {
            ...(tool.app.resourceUri !== undefined ? { resourceUri: tool.app.resourceUri } : {}),
            visibility: [...tool.app.visibility],
          },
        }
      : {}),
  };
}

export function statusView(status: ServerStatus): ServerView['status'] {
  const cause = 'cause' in status && status.cause ? { cause: status.cause } : {};
  if (status.state === 'reconnecting')
    return {
      state: 'reconnecting',
      attempt: status.attempt,
      nextRetryAt: status.nextRetryAt,
      code: status.code,
      reason: status.reason,
      ...cause,
    };
  if (status.state !== 'error') return { state: status.state };
  const sandbox = status.sandbox ? { sandbox: { reason: status.sandbox.reason } } : {};
  return { state: 'error', code: status.code, reason: status.reason, ...cause, ...sandbox };
}

export function negotiatedView(negotiated: NegotiatedInfo): NegotiatedView {
  const discover = negotiated.discover as
    (typeof negotiated.discover & { ttlMs?: unknown; cacheScope?: unknown }) | undefined;
  const ttlMs = typeof discover?.ttlMs === 'number' ? discover.ttlMs : undefined;
  const cacheScope = typeof discover?.cacheScope === 'string' ? discover.cacheScope : undefined;
  return {
    era: negotiated.era,
    verdictSource: negotiated.verdictSource,
    protocolVersion: negotiated.protocolVersion,
    ...(discover ? { supportedVersions: [...discover.supportedVersions] } : {}),
    ...(ttlMs !== undefined || cacheScope !== undefined
      ? {
          cacheHints: {
            ...(ttlMs !== undefined ? { ttlMs } : {}),
            ...(cacheScope !== undefined ? { cacheScope } : {}),
          },
        }
      : {}),
    capabilities: negotiated.capabilities,
    serverInfo: negotiated.serverInfo,
    ...(negotiated.instructions ? { instructions: negotiated.instructions } : {}),
    timings: negotiated.timings,
  };
}

export function secretBackendView(backend: SecretBackendInfo): AppInfo['secretBackend'] {
  return { kind: backend.kind, secure: backend.secure, ...(backend.warning ? { warning: backend.warning } : {}) };
}

/** `running`: whether this process is running the call now (a 'started' record it is not running is 'unknown', or 'cancelled' when its call was cancelled while it ran). */
export function historyRecordView(
  record: HistoryEntry,
  isRunning: (sessionId: string, callId: string) => boolean,
): HistoryRecordView {
  return {
    sessionId: record.sessionId,
    callId: record.callId,
    userId: record.userId,
    toolName: record.toolName,
    serverId: record.serverId,
    status:
      record.status === 'started' && !isRunning(record.sessionId, record.callId)
        ? record.lastError?.code === 'cancelled'
          ? 'cancelled'
          : 'unknown'
        : record.status,
    args: record.args,
    ...(record.result
      ? {
          result: {
            content: record.result.content,
            ...(record.result.structuredContent ? { structuredContent: record.result.structuredContent } : {}),
            isError: record.result.isError,
          },
        }
      : {}),
    ...(record.lastError
      ? {
          lastError: {
            ...(record.lastError.code ? { code: record.lastError.code } : {}),
            message: record.lastError.message,
            at: record.lastError.at,
          },
        }
      : {}),
    attempts: record.attempts,
    traceId: record.traceId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.resolvedBy ? { resolvedBy: record.resolvedBy } : {}),
    ...(record.resolutionNote ? { resolutionNote: record.resolutionNote } : {}),
    ...(record.taskId ? { taskId: record.taskId } : {}),
    ...(record.preview ? { preview: record.preview } : {}),
  };
}

/** `exists`: whether a server with this id is configured already. */
export function importServerView(
  server: PlannedServer,
  exists: (id: string) => boolean,
): ImportPreview['servers'][number] {
  return {
    name: server.name,
    ...(server.config ? { config: server.config } : {}),
    secretSlots: [...Object.keys(server.fileSecrets), ...Object.keys(server.inputSecrets)],
    inputs: [...new Set(Object.values(server.inputSecrets))],
    exists: server.config !== undefined && exists(String(server.config.id)),
    problems: server.problems,
  };
}

// ── resources, prompts, completion (bodies bounded for the GUI: shared/limits.ts) ─────────────

function describedItem<
  T extends {
    name: string;
    title?: string | undefined;
    description?: string | undefined;
    mimeType?: string | undefined;
  },
>(item: T) {
  return {
    name: item.name,
    ...(item.title ? { title: item.title } : {}),
    ...(item.description ? { description: item.description } : {}),
    ...(item.mimeType ? { mimeType: item.mimeType } : {}),
  };
}

function resourceView(resource: Resource): ResourceView {
  return {
    uri: resource.uri,
    ...describedItem(resource),
    ...(resource.size !== undefined ? { size: resource.size } : {}),
    ...(resource.annotations ? { annotations: { ...resource.annotations } } : {}),
  };
}

function resourceTemplateView(template: ResourceTemplateType): ResourceTemplateView {
  return {
    uriTemplate: template.uriTemplate,
    ...describedItem(template),
    ...(template.annotations ? { annotations: { ...template.annotations } } : {}),
    variables: templateVariables(template.uriTemplate),
  };
}

export function resourceListView(catalog: ResourceCatalog): ResourceListView {
  return {
    resources: catalog.resources.items.map(resourceView),
    templates: catalog.templates.items.map(resourceTemplateView),
    truncated: catalog.resources.truncated || catalog.templates.truncated,
    canSubscribe: catalog.canSubscribe,
    subscribed: catalog.subscribed,
  };
}

function promptView(prompt: Prompt): PromptView {
  return {
    ...describedItem(prompt),
    arguments: (prompt.arguments ?? []).map((argument) => ({
      name: argument.name,
      ...(argument.description ? { description: argument.description } : {}),
      required: argument.required === true,
    })),
  };
}

export function promptListView(listed: Listed<Prompt>): PromptListView {
  return { prompts: listed.items.map(promptView), truncated: listed.truncated };
}

/** The bytes of bodies one answer may still carry (MAX_CONTENT_VIEW_BYTES in all). */
class BodyBudget {
  private remaining = MAX_CONTENT_VIEW_BYTES;

  get left(): number {
    return this.remaining;
  }

  /** Takes `bytes` when they fit, and says whether they did. */
  take(bytes: number): boolean {
    if (bytes > this.remaining) return false;
    this.remaining -= bytes;
    return true;
  }
}

const encoder = new TextEncoder();

/** The longest start of `text` that fits `maxBytes` of UTF-8, never splitting a character. */
function cutToBytes(text: string, maxBytes: number): string {
  const { read } = encoder.encodeInto(text, new Uint8Array(Math.max(0, maxBytes)));
  return text.slice(0, read);
}

/** A text within the text limit and the budget: whole, or cut (`truncated`, with the whole size). */
function boundedText(text: string, budget: BodyBudget): { text: string; sizeBytes: number; truncated?: true } {
  const sizeBytes = utf8Length(text);
  const limit = Math.min(MAX_CONTENT_TEXT_BYTES, budget.left);
  if (sizeBytes <= limit && budget.take(sizeBytes)) return { text, sizeBytes };
  const cut = cutToBytes(text, limit);
  budget.take(utf8Length(cut));
  return { text: cut, sizeBytes, truncated: true };
}

/** Base64 data carried when small and within the budget; otherwise only its decoded size. */
function boundedBinary(data: string, budget: BodyBudget): { data?: string; sizeBytes: number; omitted?: true } {
  const sizeBytes = Buffer.byteLength(data, 'base64');
  if (sizeBytes <= MAX_CONTENT_BINARY_BYTES && budget.take(data.length)) return { data, sizeBytes };
  return { sizeBytes, omitted: true };
}

function resourceContentView(content: ReadResourceResult['contents'][number], budget: BodyBudget): ResourceContentView {
  const head = { uri: content.uri, ...(content.mimeType ? { mimeType: content.mimeType } : {}) };
  if ('text' in content && typeof content.text === 'string')
    return { ...head, kind: 'text', ...boundedText(content.text, budget) };
  const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : '';
  const { data, sizeBytes, omitted } = boundedBinary(blob, budget);
  return {
    ...head,
    kind: 'blob',
    ...(data !== undefined ? { blob: data } : {}),
    sizeBytes,
    ...(omitted ? { omitted } : {}),
  };
}

/** `uri`: the URI that was read (a template's, expanded). */
export function resourceReadView(uri: string, result: ReadResourceResult, traceId: string): ResourceReadView {
  const budget = new BodyBudget();
  return { uri, contents: result.contents.map((content) => resourceContentView(content, budget)), traceId };
}

/** A prompt message's content block in its MCP shape, its body bounded like resource contents. */
function contentBlockView(block: ContentBlock, budget: BodyBudget): PromptResultView['messages'][number]['content'] {
  switch (block.type) {
    case 'text':
      return { ...block, ...boundedText(block.text, budget) };
    case 'image':
    case 'audio': {
      const { data: _data, ...rest } = block;
      const { data, sizeBytes, omitted } = boundedBinary(block.data, budget);
      return { ...rest, ...(data !== undefined ? { data } : {}), sizeBytes, ...(omitted ? { omitted } : {}) };
    }
    case 'resource':
      return {
        type: 'resource',
        resource: resourceContentView(block.resource, budget),
        ...(block.annotations ? { annotations: { ...block.annotations } } : {}),
      };
    default: {
      // A resource link, or a kind this version does not know: metadata, kept when it fits.
      const bytes = jsonByteLength(block);
      return budget.take(bytes) ? { ...block } : { type: block.type, sizeBytes: bytes, omitted: true };
    }
  }
}

export function promptResultView(result: GetPromptResult, traceId: string): PromptResultView {
  const budget = new BodyBudget();
  return {
    ...(result.description ? { description: result.description } : {}),
    messages: result.messages.map((message) => ({
      role: message.role,
      content: contentBlockView(message.content, budget),
    })),
    traceId,
  };
}

/** The longest completion value kept: one that could not be sent back as a value is of no use. */
const MAX_COMPLETION_VALUE_CHARS = 4096;

export function completionView(completion: CompleteResult['completion']): CompletionView {
  return {
    values: completion.values.filter((value) => value.length <= MAX_COMPLETION_VALUE_CHARS),
    ...(completion.total !== undefined && completion.total >= 0 ? { total: completion.total } : {}),
    ...(completion.hasMore !== undefined ? { hasMore: completion.hasMore } : {}),
  };
}
