/**
 * What the registry's parts share: the server entries, the tool map, the listeners, and whether
 * the registry is closing. Every status and tool change goes out through here as an event.
 */
import type { ErrorCause, SandboxReason } from '../../../shared/errors.js';
import type { ServerConfig } from '../../../shared/serverConfig.js';
import { DescriptorRedaction } from '../descriptorRedaction.js';
import { MCPError, RegistryClosedError } from '../errors.js';
import type { MCPErrorCode } from '../errors.js';
import type { ToolDescriptor } from '../types.js';
import { ToolMap } from './toolMap.js';
import type { RegistryEvent, ServerEntry, ServerStatus } from './types.js';

/**
 * What a server's failure becomes in its status and log: the error's code and sentence (and the
 * cause underneath, when known). Not the renderer's `describeError`, which words a contract error
 * for the person.
 */
export function failureOfServer(error: unknown): {
  code: MCPErrorCode | 'internal';
  reason: string;
  cause?: ErrorCause;
  sandbox?: { reason: SandboxReason };
} {
  if (error instanceof MCPError) {
    const { cause, sandbox } = error.details;
    return { code: error.code, reason: error.message, ...(cause ? { cause } : {}), ...(sandbox ? { sandbox } : {}) };
  }
  return { code: 'internal', reason: error instanceof Error ? error.message : String(error) };
}

export class RegistryState {
  readonly entries = new Map<string, ServerEntry>();
  /** Known secrets out of what servers describe (tools, resources, prompts, progress): see descriptorRedaction.ts. */
  readonly redaction: DescriptorRedaction;
  readonly toolMap: ToolMap;
  /** Set by close(); every part stops applying outcomes once it is. */
  closing: Promise<void> | undefined;
  private readonly listeners = new Set<(event: RegistryEvent) => void>();

  constructor(redaction: DescriptorRedaction = new DescriptorRedaction(undefined)) {
    this.redaction = redaction;
    this.toolMap = new ToolMap((serverId) => this.entries.get(serverId)?.config.priority ?? 0, redaction);
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  assertOpen(): void {
    if (this.closing) throw new RegistryClosedError();
  }

  subscribe(listener: (event: RegistryEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: RegistryEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener (a closed window) must not break the registry.
      }
    }
  }

  warn(message: string): void {
    this.emit({ type: 'warning', message });
  }

  setStatus(entry: ServerEntry, status: ServerStatus): void {
    entry.status = status;
    this.emit({ type: 'status', serverId: entry.config.id, status, at: Date.now() });
  }

  emitStatus(id: string): void {
    const entry = this.entries.get(id);
    if (entry) this.emit({ type: 'status', serverId: id, status: entry.status, at: Date.now() });
  }

  /** Sets (or drops) one server's tools; `fromCache` marks a list taken from the schema cache. */
  setServerTools(id: string, tools: ToolDescriptor[] | undefined, fromCache = false): void {
    if (this.toolMap.set(id, tools ? { tools, fromCache } : undefined)) this.emitTools();
  }

  emitTools(): void {
    this.emit({ type: 'tools', tools: this.toolMap.tools(), conflicts: this.toolMap.conflicts() });
  }

  servers(): ServerConfig[] {
    return [...this.entries.values()].map((e) => e.config);
  }

  emitServers(): void {
    this.emit({ type: 'servers', servers: this.servers() });
  }
}
