/**
 * Room for one more 2025 session of an agent, within its limit of open sessions. An agent that
 * never ends its sessions cannot pile them up: beyond the limit the least recently seen session
 * without work in flight is closed (callsInFlight.ts) — never one with a call running or waiting,
 * whose answer would be lost with its connection while the call still acts. When every session
 * is busy, the new one is refused with a sentence naming the limit (503, Retry-After), and the
 * calls already running keep their connections.
 */
import type { AgentSession } from './agentSession.js';

export type SessionRoom = { refused: false; evict: AgentSession[] } | { refused: true; message: string };

/**
 * What to close so that the agent's sessions (`mine`) plus `adding` new ones stay within `max`;
 * `busy`: the session has work in flight.
 */
export function roomForSessions(
  mine: AgentSession[],
  max: number,
  busy: (session: AgentSession) => boolean,
  adding = 1,
): SessionRoom {
  const excess = mine.length + adding - max;
  if (excess <= 0) return { refused: false, evict: [] };
  const idle = mine.filter((s) => !busy(s)).sort((a, b) => a.lastSeenAt - b.lastSeenAt);
  if (idle.length < excess) {
    return {
      refused: true,
      message: `Too many sessions: this agent already has ${mine.length} open sessions with calls in flight, and MiniHarness allows ${max} per agent. End a session you no longer use (or wait for its call to finish), then initialize again.`,
    };
  }
  return { refused: false, evict: idle.slice(0, excess) };
}
