/**
 * The IPC contract between the main process and the renderer: every channel with zod schemas
 * for its request and response, and every event main pushes to the renderer. Both sides derive
 * their types from here; main validates every incoming payload with it, and responses are parsed
 * through their schema on the way out (unknown fields are stripped, so nothing slips across
 * that the contract does not name).
 *
 * Transports: Electron IPC (preload exposes one named function per channel) or, in browser mode,
 * a loopback WebSocket (`bridge.ts`). The contract is the same.
 *
 * The channels and events are defined by domain in contract/ (servers, tools, approvals,
 * permissions, settings, agents, traces, history, import, asks, resources/prompts/completion, apps,
 * models and runs); this file composes them, checks the whole against channelNames.ts, and
 * re-exports every schema and type, so importers need only this one path.
 *
 * Secrets: a renderer sends a secret value once (write-only) and afterwards sees only whether
 * it is set. Server configurations hold references ({secret: {source: 'store', key: slot}}),
 * where a slot names the field: `auth.token`, `env.NAME` or `headers.NAME`.
 */
import type { z } from 'zod';
import type { ChannelName, EventName } from './channelNames.js';
import { CHANNEL_NAMES } from './channelNames.js';
import type { ChannelSpec } from './contract/common.js';
import { agentChannels, agentEvents } from './contract/agents.js';
import { appChannels, appEvents } from './contract/app.js';
import { approvalChannels, approvalEvents } from './contract/approvals.js';
import { mcpAppChannels } from './contract/apps.js';
import { serverRequestChannels, serverRequestEvents } from './contract/serverRequests.js';
import { featureChannels, featureEvents } from './contract/features.js';
import { historyChannels } from './contract/history.js';
import { importChannels } from './contract/import.js';
import { permissionChannels, permissionEvents } from './contract/permissions.js';
import { serverChannels, serverEvents } from './contract/servers.js';
import { settingChannels, settingEvents } from './contract/settings.js';
import { toolChannels, toolEvents } from './contract/tools.js';
import { traceChannels, traceEvents } from './contract/traces.js';
import { runChannels, runEvents } from './contract/runs.js';
import { catalogChannels } from './contract/catalog.js';
import { sandboxChannels } from './contract/sandbox.js';
import { observabilityChannels } from './contract/observability.js';
import { peopleChannels } from './contract/people.js';

export { ErrorShapeSchema, ReceivedErrorShapeSchema } from './contract/common.js';
export type { ErrorShape } from './contract/common.js';
export * from './contract/warnings.js';
export * from './contract/app.js';
export * from './contract/servers.js';
export * from './contract/callKey.js';
export * from './contract/tools.js';
export * from './contract/approvals.js';
export * from './contract/permissions.js';
export * from './contract/toolPins.js';
export * from './contract/history.js';
export * from './contract/import.js';
export * from './contract/settings.js';
export * from './contract/features.js';
export * from './contract/apps.js';
export * from './contract/catalog.js';
export * from './contract/sandbox.js';
export type { ObservabilityView } from './contract/observability.js';
export * from './contract/people.js';

// ── channels ──────────────────────────────────────────────────────────────────────────────────

export const channels = {
  ...appChannels,
  ...serverChannels,
  ...toolChannels,
  ...approvalChannels,
  ...permissionChannels,
  ...settingChannels,
  ...agentChannels,
  ...traceChannels,
  ...historyChannels,
  ...importChannels,
  ...serverRequestChannels,
  ...featureChannels,
  // The person's models and agent runs (issue 21), defined in their own file.
  ...runChannels,
  // MCP Apps: an app's HTML, and its own tool calls and reads (issue 20).
  ...mcpAppChannels,
  // The MCP Registry catalog and one-step install (issue 30).
  ...catalogChannels,
  // Sandboxed servers' host rules and the choice to run one unsandboxed (issue 29).
  ...sandboxChannels,
  // Settings → Observability: the OpenTelemetry export (issue 32).
  ...observabilityChannels,
  // `miniharness serve`: people's roles and the command line's tokens (issue 36).
  ...peopleChannels,
} as const satisfies Record<ChannelName, ChannelSpec>;

type Channels = typeof channels;
export type { ChannelName, EventName };
export { CHANNEL_NAMES };

/** What the renderer sends (defaults may be omitted). */
export type RequestOf<C extends ChannelName> = z.input<Channels[C]['request']>;
/** What main's handler receives (validated, defaults applied). */
export type ParsedRequestOf<C extends ChannelName> = z.output<Channels[C]['request']>;
export type ResponseOf<C extends ChannelName> = z.output<Channels[C]['response']>;

// ── events (main → renderer) ──────────────────────────────────────────────────────────────────

export const events = {
  ...serverEvents,
  ...toolEvents,
  ...approvalEvents,
  ...traceEvents,
  ...permissionEvents,
  ...settingEvents,
  ...appEvents,
  ...agentEvents,
  ...serverRequestEvents,
  ...featureEvents,
  ...runEvents,
} as const satisfies Record<EventName, z.ZodType>;

type Events = typeof events;
export type EventOf<E extends EventName> = z.output<Events[E]>;

export function isChannelName(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(channels, name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}
