/** The shape every local tool shares: described like an MCP tool, checked before it runs. */
import type { GuardrailResult } from '../security/guardrails.js';
import type { NormalizedToolResult } from '../results/toolResult.js';

/** A JSON Schema for a tool's arguments (always an object, as MCP requires). */
export interface ToolInputSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

/** Written by the app itself, so — unlike a remote server's — they can be trusted. */
interface LocalToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  title?: string;
}

export interface LocalToolRunContext {
  /** Aborting stops the tool (a running command is killed) and run() rejects with ToolCancelledError. */
  signal?: AbortSignal;
  /** Told each access the sandbox refused the call's process (run_command): the call's trace records it. */
  onSandboxViolation?: (line: string) => void;
}

export interface LocalTool {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  annotations: LocalToolAnnotations;
  /** Pre-flight checks (arguments, paths, the command guard) with no side effect. */
  guardrails(args: Record<string, unknown>): Promise<GuardrailResult>;
  /**
   * Runs the tool. Failures of the operation (a missing file, a non-zero exit) come back as a
   * result with `isError: true`; it throws only for invalid arguments and cancellation.
   */
  run(args: Record<string, unknown>, context?: LocalToolRunContext): Promise<NormalizedToolResult>;
}
