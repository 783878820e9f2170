/**
 * Per caller (`gui` or an agent's name): how many calls are recorded and the latest one — what
 * the Agents view shows beside each agent. Read on demand (the view is opened, a call ends),
 * never on the call path.
 */
import type { Database } from 'better-sqlite3';

export interface CallerStats {
  calls: number;
  lastCall?: { toolName: string; serverId: string; at: number; status: string };
}

export function callerStats(db: Database, userIds: readonly string[]): Map<string, CallerStats> {
  const stats = new Map<string, CallerStats>();
  if (userIds.length === 0) return stats;
  const count = db.prepare<[string], { calls: number }>('SELECT COUNT(*) AS calls FROM traces WHERE user_id = ?');
  const last = db.prepare<[string], { tool_name: string; server_id: string; started_at: number; status: string }>(
    'SELECT tool_name, server_id, started_at, status FROM traces WHERE user_id = ? ORDER BY started_at DESC, seq DESC LIMIT 1',
  );
  for (const userId of userIds) {
    const row = last.get(userId);
    stats.set(userId, {
      calls: count.get(userId)?.calls ?? 0,
      ...(row
        ? { lastCall: { toolName: row.tool_name, serverId: row.server_id, at: row.started_at, status: row.status } }
        : {}),
    });
  }
  return stats;
}
