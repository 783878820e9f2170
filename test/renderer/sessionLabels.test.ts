/**
 * Session labels (Traces and History filters): an agent's session reads as the agent's name and a
 * short session label instead of `agent:<uuid>:mcp-<uuid>`; the GUI's own sessions as before.
 */
import { describe, expect, it } from 'vitest';
import { agentSessionOf, sessionLabel } from '../../renderer/src/lib/historyFormat.js';

const AGENT_ID = '0b9d7c2e-4f1a-4c55-9d0e-6a1f2b3c4d5e';
const agents = [{ id: AGENT_ID, name: 'Claude Code' }];

describe('session labels', () => {
  it('names the agent of a 2025 session, with the session id shortened', () => {
    expect(
      sessionLabel({ sessionId: `agent:${AGENT_ID}:mcp-3f2a1b9c-1111-2222-3333-444455556666`, current: false }, agents),
    ).toBe('Claude Code · session 3f2a1b…');
  });

  it('names 2026-07-28 calls, keyed calls and an agent since removed', () => {
    expect(sessionLabel({ sessionId: `agent:${AGENT_ID}:stateless`, current: false }, agents)).toBe(
      'Claude Code · 2026-07-28 calls',
    );
    expect(sessionLabel({ sessionId: `agent:${AGENT_ID}:default`, current: false }, agents)).toBe(
      'Claude Code · calls with a callId',
    );
    expect(sessionLabel({ sessionId: `agent:${AGENT_ID}:nightly-build`, current: false }, agents)).toBe(
      'Claude Code · calls keyed “nightly-build”',
    );
    expect(sessionLabel({ sessionId: `agent:other:mcp-abcdef123456`, current: false }, agents)).toBe(
      'A removed agent · session abcdef…',
    );
  });

  it('leaves the GUI sessions and foreign ids as they were', () => {
    expect(sessionLabel({ sessionId: 'gui-x', current: true }, agents)).toBe('This app session');
    expect(sessionLabel({ sessionId: 'something-else', current: false }, agents)).toBe('something-else');
    expect(agentSessionOf('gui-2025-11-29T23-19-00-000Z-abc')).toBeUndefined();
  });
});
