/**
 * Protocol era negotiation, which is the SDK's: this file only turns a server's `protocolEra`
 * setting (and a kept verdict) into the v2 `Client`'s options, and reads the verdict back as the
 * SDK settled it. Nothing here is made up: the era, the version and the `initialize` or
 * `server/discover` result are what the SDK reports after `connect()`; a connection that cannot
 * say all of them fails instead of showing a guess.
 *
 * - `auto` (the default): `versionNegotiation: { mode: 'auto' }` — a `server/discover` probe,
 *   falling back to `initialize` on a legacy answer (on stdio a probe timeout or a closed pipe
 *   counts as legacy, on HTTP a timeout is an error). On stdio the probe gets half the connect
 *   deadline, at most STDIO_PROBE_MAX_MS (a live process answers in milliseconds), so a legacy
 *   server that ignores unknown requests still has time for its `initialize`; on HTTP it gets
 *   the whole deadline (silence there is an outage, not an era).
 * - `legacy`: the plain 2025 `initialize` sequence, no probe.
 * - `modern`: pinned at 2026-07-28; anything else fails loudly (no fallback).
 * - a kept verdict (`prior`) skips the probe; the caller dates it and stops supplying it past
 *   its horizon (see verdictStore.ts). A pin in the config wins over a kept verdict.
 */
import type { Client, Implementation, PriorDiscovery, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import type { ProtocolEraSetting } from '../../shared/serverConfig.js';
import type { NegotiatedInfo, ProtocolEra, VerdictSource } from './types.js';

/** The 2026-07-28 revision: the one modern revision this client pins to. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** How many `input_required` rounds one request may take (each round is answered by the person, or by the agent that made the call). */
export const MAX_INPUT_ROUNDS = 8;

/** The longest a stdio server's silence to the probe is waited for before it counts as legacy. */
const STDIO_PROBE_MAX_MS = 5_000;

/** The SDK's negotiation options for a server's era setting. */
export function negotiationOptions(
  setting: ProtocolEraSetting,
  timeoutMs: number,
  transport: 'stdio' | 'streamable_http',
): VersionNegotiationOptions {
  switch (setting) {
    case 'legacy':
      return { mode: 'legacy' };
    case 'modern':
      return { mode: { pin: MODERN_PROTOCOL_VERSION }, probe: { timeoutMs } };
    case 'auto':
      return {
        mode: 'auto',
        probe: {
          timeoutMs:
            transport === 'stdio' ? Math.max(50, Math.min(STDIO_PROBE_MAX_MS, Math.floor(timeoutMs / 2))) : timeoutMs,
        },
      };
  }
}

/** The kept verdict to connect with, unless the config pins the era (a pin is never second-guessed). */
export function priorFor(setting: ProtocolEraSetting, kept: PriorDiscovery | undefined): PriorDiscovery | undefined {
  return setting === 'auto' ? kept : undefined;
}

/** How a connection's era was settled. */
export function verdictSourceOf(setting: ProtocolEraSetting, prior: PriorDiscovery | undefined): VerdictSource {
  if (setting !== 'auto') return 'pinned';
  return prior ? 'prior' : 'probe';
}

/** The era the SDK settled on, as this app names it (undefined before connect). */
function eraOf(sdk: Client): ProtocolEra | undefined {
  const era = sdk.getProtocolEra();
  return era === 'modern' || era === 'legacy' ? era : undefined;
}

/**
 * What the SDK negotiated, read back after `connect()`; undefined when it cannot say all of it
 * (the caller refuses the connection rather than showing a guess).
 */
/** A server's `serverInfo` as the wire carried it, if it has what an Implementation needs. */
function implementationOf(value: unknown): Implementation | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, version } = value as { name?: unknown; version?: unknown };
  return typeof name === 'string' && typeof version === 'string' ? (value as Implementation) : undefined;
}

export function readNegotiated(
  sdk: Client,
  source: VerdictSource,
  timings: NegotiatedInfo['timings'],
): NegotiatedInfo | undefined {
  const era = eraOf(sdk);
  const protocolVersion = sdk.getNegotiatedProtocolVersion();
  const discover = era === 'modern' ? sdk.getDiscoverResult() : undefined;
  if (era === 'modern' && !discover) return undefined;
  // A modern server names itself in its discover result; the SDK's getServerVersion() may not
  // carry it over (seen against the conformance suite's servers), so read it where it was sent.
  const serverInfo = sdk.getServerVersion() ?? implementationOf(discover?.serverInfo);
  const capabilities = sdk.getServerCapabilities() ?? discover?.capabilities;
  if (!era || !protocolVersion || !serverInfo || !capabilities) return undefined;
  return {
    era,
    verdictSource: source,
    protocolVersion,
    ...(discover ? { discover } : {}),
    capabilities,
    serverInfo,
    instructions: sdk.getInstructions(),
    timings,
  };
}

/** The verdict to keep for a warm start: the SDK's own `PriorDiscovery` shape. */
export function verdictOf(info: NegotiatedInfo): PriorDiscovery {
  return info.era === 'modern' && info.discover ? { kind: 'modern', discover: info.discover } : { kind: 'legacy' };
}
