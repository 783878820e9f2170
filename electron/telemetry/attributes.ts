/**
 * The attribute names MiniHarness puts on its spans.
 *
 * MCP and GenAI names follow the OpenTelemetry semantic conventions for MCP and GenAI, which now
 * live in `open-telemetry/semantic-conventions-genai` (status: development). The
 * `@opentelemetry/semantic-conventions` package still carries them, marked deprecated ("moved to
 * the GenAI repository"), so they are spelled here once, exactly as that repository names them;
 * the stable ones (`error.type`, `network.transport`, `server.*`) come from the package.
 *
 * What no convention covers yet is ours, under `miniharness.` (documented in the README's
 * Observability section).
 */
export {
  ATTR_ERROR_TYPE,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';

// ── MCP (semantic-conventions-genai docs/gen-ai/mcp.md) ─────────────────────────────────────────
export const MCP_METHOD_NAME = 'mcp.method.name';
export const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const MCP_SESSION_ID = 'mcp.session.id';
export const MCP_RESOURCE_URI = 'mcp.resource.uri';
export const JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
// The metrics (model/mcp/metrics.yaml: `mcp.client.operation.duration`, `mcp.server.operation.duration`) are
// spelled in exportWorker.ts, which runs alone in the export worker and imports nothing of ours.

// ── GenAI (semantic-conventions-genai docs/gen-ai/gen-ai-spans.md, gen-ai-agent-spans.md) ───────
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';

// ── MiniHarness's own (README → Observability) ──────────────────────────────────────────────────
/** The permission decision of the rules: `allow`, `deny` or `ask` (before any person answered). */
export const MH_PERMISSION_DECISION = 'miniharness.permission.decision';
/** What decided it: `rule`, `default`, `session-grant`, … (the trace's decision kind). */
export const MH_PERMISSION_KIND = 'miniharness.permission.kind';
/** The id of the rule that decided, when a rule did. */
export const MH_PERMISSION_RULE_ID = 'miniharness.permission.rule_id';
/** Who let the call run: `rule` (an ALLOW rule or the default), `session-grant`, `person`, or `nobody` (refused). */
export const MH_APPROVAL_BY = 'miniharness.approval.by';
/** The person's answer: `allow-once`, `allow-session`, `allow-always`, `deny`. */
export const MH_APPROVAL_ANSWER = 'miniharness.approval.answer';
/** How long the person took to answer, in ms. */
export const MH_APPROVAL_WAIT_MS = 'miniharness.approval.wait_ms';
/** Nobody answered in time. */
export const MH_APPROVAL_TIMED_OUT = 'miniharness.approval.timed_out';
/** `execution` (the server ran it), `replay` (a recorded result answered, nothing ran) or `none` (refused). */
export const MH_CALL_EXECUTION = 'miniharness.call.execution';
/** How the call ended as MiniHarness recorded it: ok, error, denied, replayed, cancelled. */
export const MH_CALL_OUTCOME = 'miniharness.call.outcome';
/** Attempts made (retries included). */
export const MH_CALL_ATTEMPTS = 'miniharness.call.attempts';
/** The checkpoint key: session id and call id (replaying the same key answers with the stored result). */
export const MH_CHECKPOINT_SESSION = 'miniharness.checkpoint.session_id';
export const MH_CHECKPOINT_CALL = 'miniharness.checkpoint.call_id';
/** The checkpoint claim's answer: owner, replay, in_progress, arguments_mismatch, failed. */
export const MH_CHECKPOINT_CLAIM = 'miniharness.checkpoint.claim';
/** The task id a server runs the call as (the tasks extension). */
export const MH_TASK_ID = 'miniharness.task.id';
/** The MiniHarness trace id (Traces view), to go from the backend back to the app. */
export const MH_TRACE_ID = 'miniharness.trace.id';
/** The configured server id the call went to (`local` for the built-in tools). */
export const MH_SERVER_ID = 'miniharness.server.id';
/** Who asked: the GUI's user or the agent's name. */
export const MH_CALLER = 'miniharness.caller';
/** The era an agent's request came in: `2025` (sessions) or `2026-07-28` (stateless). */
export const MH_GATEWAY_ERA = 'miniharness.gateway.era';
/**
 * How many sandbox violations were recorded while the call ran (its server is sandboxed: the
 * trace's `sandbox_violation` events). Absent when none.
 */
export const MH_SANDBOX_VIOLATIONS = 'miniharness.sandbox.violations';
/**
 * The tool's definition changed since it was pinned (approved), so the call asked again whatever
 * the rules said: `reapproved` (the person allowed it; the new definition is pinned) or `refused`.
 * Absent when the definition was the pinned one.
 */
export const MH_PINNING_CHANGE = 'miniharness.pinning.change';
