/**
 * A client of one MCP Registry (the v0.1 API of modelcontextprotocol/registry's OpenAPI):
 * `GET /v0.1/servers?search&cursor&limit&updated_since&version`, `/v0.1/servers/{name}/versions`
 * and `/versions/{version}` (`latest`). Every request has a deadline (the body included), a size
 * cap, and a zod check; each entry of a list is checked alone, so a malformed entry is reported
 * beside the good ones instead of hiding them. Following pages stops at a repeated cursor (a
 * loop) and at a page cap.
 */
import type { ServerResponse } from '../../shared/registryServer.js';
import { ServerListEnvelopeSchema, ServerResponseSchema } from '../../shared/registryServer.js';
import { networkFailureOf } from '../mcp/networkFailure.js';
import { CatalogError } from './errors.js';

/** One entry of a list: read, or refused with why (and its name when the entry had one). */
export type EntryResult =
  { ok: true; response: ServerResponse } | { ok: false; index: number; name?: string; problem: string };

export interface RegistryClientOptions {
  /** Each request's deadline, body included. */
  timeoutMs?: number;
  /** The most bytes one answer may have. */
  maxBytes?: number;
  /** The most pages one listing follows. */
  maxPages?: number;
  /** Entries asked for per page. */
  pageSize?: number;
}

export interface ListQuery {
  search?: string;
  /** RFC 3339: only servers updated since. */
  updatedSince?: string;
  /** `latest`, or an exact version. */
  version?: string;
}

export interface Listing {
  entries: EntryResult[];
  /** The page cap was reached before the last page. */
  truncated: boolean;
}

const DEFAULTS = { timeoutMs: 15_000, maxBytes: 8 * 1024 * 1024, maxPages: 20, pageSize: 100 };

export class RegistryClient {
  private readonly options: Required<RegistryClientOptions>;

  constructor(
    readonly baseUrl: string,
    options: RegistryClientOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Every page of a listing, in order. */
  async list(query: ListQuery, signal?: AbortSignal): Promise<Listing> {
    const entries: EntryResult[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < this.options.maxPages; page++) {
      const params = new URLSearchParams({ limit: String(this.options.pageSize) });
      if (query.search) params.set('search', query.search);
      if (query.updatedSince) params.set('updated_since', query.updatedSince);
      if (query.version) params.set('version', query.version);
      if (cursor !== undefined) params.set('cursor', cursor);
      const body = await this.getJson(`/v0.1/servers?${params.toString()}`, signal);
      const { results, nextCursor } = readList(body, entries.length);
      entries.push(...results);
      if (!nextCursor) return { entries, truncated: false };
      if (seen.has(nextCursor) || nextCursor === cursor)
        throw new CatalogError(
          'registry_pagination_loop',
          `The registry at ${this.baseUrl} sent a page cursor it had sent before; listing stopped to avoid a loop.`,
        );
      seen.add(nextCursor);
      cursor = nextCursor;
    }
    return { entries, truncated: true };
  }

  /** Every published version of one server (newest first, as the registry orders them). */
  async versions(name: string, signal?: AbortSignal): Promise<EntryResult[]> {
    const body = await this.getJson(`/v0.1/servers/${encodeURIComponent(name)}/versions`, signal);
    return readList(body, 0).results;
  }

  /** One version (`latest` by default). */
  async version(name: string, version = 'latest', signal?: AbortSignal): Promise<ServerResponse> {
    const body = await this.getJson(
      `/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`,
      signal,
    );
    const parsed = ServerResponseSchema.safeParse(body);
    if (!parsed.success)
      throw new CatalogError(
        'bad_response',
        `The registry's entry for ${name} is malformed: ${issuesOf(parsed.error)}`,
      );
    return parsed.data;
  }

  private async getJson(path: string, signal?: AbortSignal): Promise<unknown> {
    // The base may carry a path (a company's registry under /mcp/): kept.
    const base = new URL(this.baseUrl);
    const full = new URL(`${trimSlash(base.pathname)}${path}`, base.origin);
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let text: string;
    try {
      const response = await fetch(full, { signal: combined, headers: { accept: 'application/json' } });
      if (response.status === 404) {
        await response.body?.cancel();
        throw new CatalogError('not_found', `The registry at ${this.baseUrl} has no such server or version.`);
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new CatalogError('bad_response', `The registry at ${this.baseUrl} answered HTTP ${response.status}.`, {
          kind: 'http_status',
          httpStatus: response.status,
          host: full.hostname,
        });
      }
      text = await readCapped(response, this.options.maxBytes, this.baseUrl);
    } catch (error) {
      if (error instanceof CatalogError) throw error;
      if (deadline.aborted)
        throw new CatalogError(
          'timeout',
          `The registry at ${this.baseUrl} did not answer within ${Math.round(this.options.timeoutMs / 1000)} s.`,
          { kind: 'timeout', host: full.hostname },
        );
      if (signal?.aborted) throw error;
      const failure = networkFailureOf(error, full.href);
      throw new CatalogError(
        'unreachable',
        `The registry at ${this.baseUrl} could not be reached.`,
        failure ?? { kind: 'network', host: full.hostname },
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new CatalogError('bad_response', `The registry at ${this.baseUrl} answered something that is not JSON.`);
    }
  }
}

function trimSlash(path: string): string {
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

async function readCapped(response: Response, maxBytes: number, baseUrl: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  const tooLarge = () =>
    new CatalogError('bad_response', `The registry at ${baseUrl} sent more than ${maxBytes} bytes; it was not read.`);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readList(body: unknown, offset: number): { results: EntryResult[]; nextCursor?: string } {
  const envelope = ServerListEnvelopeSchema.safeParse(body);
  if (!envelope.success)
    throw new CatalogError('bad_response', `The registry's list is not a v0.1 ServerList: ${issuesOf(envelope.error)}`);
  const results = envelope.data.servers.map((raw, i): EntryResult => {
    const parsed = ServerResponseSchema.safeParse(raw);
    if (parsed.success) return { ok: true, response: parsed.data };
    const name = (raw as { server?: { name?: unknown } } | null)?.server?.name;
    return {
      ok: false,
      index: offset + i,
      ...(typeof name === 'string' ? { name: name.slice(0, 200) } : {}),
      problem: issuesOf(parsed.error),
    };
  });
  const next = envelope.data.metadata?.nextCursor;
  return { results, ...(next ? { nextCursor: next } : {}) };
}

function issuesOf(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join('.') || 'entry'}: ${i.message}`)
    .join('; ');
}
