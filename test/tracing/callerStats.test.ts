/** The Agents view's counts per caller: right numbers, and read from the caller index (never the whole table). */
import { describe, expect, it } from 'vitest';
import { openAppDatabase } from '../../electron/core/database.js';
import { callerStats } from '../../electron/tracing/callerStats.js';

describe('callerStats', () => {
  it('counts each caller’s calls and names its latest one, through traces_by_user', () => {
    const db = openAppDatabase(':memory:');
    const insert = db.prepare(
      `INSERT INTO traces (trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at) VALUES (?, 's', ?, ?, ?, 'fx', 'ok', ?)`,
    );
    for (let i = 0; i < 50; i++)
      insert.run(`t${i}`, `c${i}`, i % 5 === 0 ? 'Claude Code' : 'gui', `tool${i}`, 1000 + i);
    const stats = callerStats(db, ['Claude Code', 'gui', 'Nobody']);
    expect(stats.get('Claude Code')).toEqual({
      calls: 10,
      lastCall: { toolName: 'tool45', serverId: 'fx', at: 1045, status: 'ok' },
    });
    expect(stats.get('gui')?.calls).toBe(40);
    expect(stats.get('Nobody')).toEqual({ calls: 0 });
    for (const sql of [
      'SELECT COUNT(*) FROM traces WHERE user_id = ?',
      'SELECT tool_name FROM traces WHERE user_id = ? ORDER BY started_at DESC, seq DESC LIMIT 1',
    ]) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('gui') as Array<{ detail: string }>)
        .map((row) => row.detail)
        .join(' | ');
      expect(plan).toContain('traces_by_user');
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
    db.close();
  });
});
