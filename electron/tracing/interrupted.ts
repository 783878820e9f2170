/**
 * At start, traces left `running` by a process that died (killed, crashed, power lost) are closed
 * as `interrupted`, so the Traces view stops showing them as live forever. Only traces whose
 * owner is provably gone are touched: another live process may share the database
 * (see storage/processOwner.ts for how "gone" is decided, and why unsure means alive).
 *
 * The end time is the trace's last recorded event (its last sign of life), not the restart,
 * which may come days later. What is said depends on the call's checkpoint, which is claimed
 * (durably) before any attempt runs: with one, whether the tool acted is unknown — the record
 * stays `started` and History asks a person to resolve it; without one, the call stopped before
 * it could run (waiting for approval, say) and nothing ran. (Trace events are written in
 * batches and may have been lost with the process: they cannot tell.)
 */
import type { Database } from 'better-sqlite3';
import type { ProcessOwner } from '../storage/processOwner.js';
import { decodeOwner, ownerState } from '../storage/processOwner.js';
import type { TraceError, TraceSummary } from '../../shared/traces.js';
import type { TraceRow } from './traceReader.js';
import { toSummary } from './traceReader.js';

export const INTERRUPTED_ERROR: TraceError = {
  code: 'interrupted',
  message:
    'MiniHarness stopped (its process ended) before this call finished. If the call had started running, ' +
    'whether the tool acted is unknown: check the remote side, then resolve the call in History.',
};

/** The call had not claimed its checkpoint: it was still waiting (for approval, say), so nothing ran. */
export const INTERRUPTED_BEFORE_RUN_ERROR: TraceError = {
  code: 'interrupted',
  message:
    'MiniHarness stopped before this call ran (it was still waiting, for approval or to start): nothing ran, and there is nothing to resolve.',
};

const COLUMNS =
  'seq, trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at, ended_at, duration_ms, error';

/** Closes the running traces of dead owners in one transaction; returns them as now stored. */
export function closeInterruptedTraces(db: Database, self: ProcessOwner): TraceSummary[] {
  const running = db.prepare<[], { trace_id: string; owner: string | null; session_id: string; call_id: string }>(
    `SELECT trace_id, owner, session_id, call_id FROM traces INDEXED BY traces_by_time WHERE status = 'running'`,
  );
  // The checkpoint store shares the app's database; a database of traces alone (tests) has none.
  const hasCheckpoints =
    db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get() !== undefined;
  const claimed = hasCheckpoints
    ? db.prepare<[string, string], unknown>('SELECT 1 FROM checkpoints WHERE session_id = ? AND call_id = ?')
    : undefined;
  const close = db.prepare<Record<string, unknown>, TraceRow>(
    `UPDATE traces SET status = 'interrupted',
       ended_at = MAX(started_at, COALESCE((SELECT MAX(at) FROM trace_events e WHERE e.trace_id = traces.trace_id), started_at)),
       duration_ms = MAX(0, COALESCE((SELECT MAX(at) FROM trace_events e WHERE e.trace_id = traces.trace_id), started_at) - started_at),
       error = @error
     WHERE trace_id = @traceId AND status = 'running'
     RETURNING ${COLUMNS}`,
  );
  const mayHaveRun = JSON.stringify(INTERRUPTED_ERROR);
  const neverRan = JSON.stringify(INTERRUPTED_BEFORE_RUN_ERROR);
  const sweep = db.transaction(() => {
    const verdicts = new Map<string, boolean>();
    const closed: TraceSummary[] = [];
    for (const row of running.all()) {
      const key = row.owner ?? '';
      let dead = verdicts.get(key);
      if (dead === undefined) {
        // No owner: written before owners were recorded, by a version no live process runs any more.
        const owner = row.owner === null ? undefined : decodeOwner(row.owner);
        dead = row.owner === null ? true : owner !== undefined && ownerState(owner, self) === 'dead';
        verdicts.set(key, dead);
      }
      if (!dead) continue;
      const ran = claimed === undefined || claimed.get(row.session_id, row.call_id) !== undefined;
      const updated = close.get({ traceId: row.trace_id, error: ran ? mayHaveRun : neverRan });
      if (updated) closed.push(toSummary(updated));
    }
    return closed;
  });
  return sweep.immediate();
}
