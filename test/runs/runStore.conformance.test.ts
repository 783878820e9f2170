/**
 * The agent runs' store (RunStorage), the same on both implementations: SQLite (the app's file)
 * and PostgreSQL (shared by the cores on one database). On PostgreSQL also: a run written through
 * one pool (another instance) is listed and read through another, its changes are heard there
 * (`mh_runs`), and a core starting marks interrupted only the runs whose owner is gone.
 */
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAppDatabase } from '../../electron/core/database.js';
import type { ModelConfig } from '../../electron/models/providerFactory.js';
import { POSTGRES_RUN_MIGRATIONS, PostgresRunStore } from '../../electron/runs/postgresRunStore.js';
import type { NewRun, RunStorage } from '../../electron/runs/runStorage.js';
import { RunStore } from '../../electron/runs/runStore.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import { currentProcessOwner, encodeOwner } from '../../electron/storage/processOwner.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

const MODEL: ModelConfig = { id: 'm1', name: 'Local', kind: 'openai', model: 'llama', baseUrl: 'http://127.0.0.1:1' };
const ALL = { allServers: true, serverIds: [], localTools: false };

function newRun(id: string): NewRun {
  return {
    id,
    model: MODEL,
    visibility: ALL,
    systemPrompt: 'be brief',
    limits: { maxToolCalls: 5, tokenBudget: 1_000 },
  };
}

function describeRunStore(name: string, open: () => Promise<RunStorage>): void {
  describe(`${name}: agent runs store`, () => {
    let store: RunStorage;
    beforeAll(async () => {
      store = await open();
    });

    it('creates a run with its first message, and reads it back whole', async () => {
      const created = await store.create(newRun('r1'), { role: 'user', text: 'hello' });
      expect(created).toMatchObject({
        id: 'r1',
        model: MODEL,
        visibility: ALL,
        systemPrompt: 'be brief',
        status: 'running',
        outcome: undefined,
        limits: { maxToolCalls: 5, tokenBudget: 1_000 },
        toolCalls: 0,
        inputTokens: 0,
        outputTokens: 0,
      });
      expect(await store.get('r1')).toEqual(created);
      expect(await store.messages('r1')).toEqual([{ role: 'user', text: 'hello' }]);
      expect(await store.get('nope')).toBeUndefined();
      await expect(Promise.resolve().then(() => store.require('nope'))).rejects.toThrow(/No run/);
    });

    it("stores a model turn's calls in order, counts each call once, and keeps its result", async () => {
      const calls = [
        { call: { id: 'c1', name: 'fx__write', args: { a: 1 } }, toolName: 'write', serverId: 'fx' },
        { call: { id: 'c2', name: 'fx__read', args: { b: 'x' } }, toolName: 'read', serverId: 'fx' },
      ];
      await store.appendAssistantTurn(
        'r1',
        { role: 'assistant', text: 'on it', toolCalls: calls.map((c) => c.call) },
        calls,
        { inputTokens: 10, outputTokens: 4 },
      );
      expect((await store.toolCalls('r1')).map((c) => [c.call.id, c.status, c.messageSeq])).toEqual([
        ['c1', 'pending', 1],
        ['c2', 'pending', 1],
      ]);
      await store.markCallRunning('r1', 'c1');
      await store.markCallRunning('r1', 'c1'); // counted once
      await store.recordCallResult('r1', 'c1', { text: 'written', isError: false }, 'trace-1');
      const [first, second] = await store.toolCalls('r1');
      expect(first).toEqual({
        call: calls[0]?.call,
        messageSeq: 1,
        toolName: 'write',
        serverId: 'fx',
        status: 'done',
        result: { text: 'written', isError: false },
        traceId: 'trace-1',
      });
      expect(second?.status).toBe('pending');
      expect(await store.require('r1')).toMatchObject({ toolCalls: 1, inputTokens: 10, outputTokens: 4 });
      await store.appendMessage('r1', { role: 'tool_results', results: [] });
      expect((await store.messages('r1')).map((m) => m.role)).toEqual(['user', 'assistant', 'tool_results']);
    });

    it('resumes only a resumable run, and of two resumes at once exactly one wins', async () => {
      expect(await store.markResumed('r1')).toBe(false); // running
      await store.setStatus('r1', 'stopped', { code: 'cancelled', message: 'Stopped by the person.' });
      expect(await store.require('r1')).toMatchObject({ status: 'stopped', outcome: { code: 'cancelled' } });
      const both = await Promise.all([store.markResumed('r1'), store.markResumed('r1')]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await store.require('r1')).toMatchObject({ status: 'running', outcome: undefined });
      await store.setStatus('r1', 'completed');
      expect(await store.markResumed('r1')).toBe(false);
    });

    it('lists newest first, within the limit', async () => {
      await store.create(newRun('r2'), { role: 'user', text: 'second' });
      const listed = await store.list();
      expect(listed.map((r) => r.id).sort()).toEqual(['r1', 'r2']);
      expect(listed.every((r, i) => i === 0 || r.updatedAt <= (listed[i - 1]?.updatedAt ?? 0))).toBe(true);
      expect(await store.list(1)).toHaveLength(1);
    });

    it('removes a run that is not running, with its messages and calls; never one that runs', async () => {
      expect(await store.delete('r2')).toBe(false); // running
      expect(await store.get('r2')).toBeDefined();
      expect(await store.delete('r1')).toBe(true);
      expect(await store.get('r1')).toBeUndefined();
      expect(await store.messages('r1')).toEqual([]);
      expect(await store.toolCalls('r1')).toEqual([]);
      expect(await store.delete('r1')).toBe(false);
    });

    it('keeps model configurations: saved, replaced by id, removed', async () => {
      await store.saveModel(MODEL);
      await store.saveModel({ ...MODEL, id: 'm2', name: 'Other' });
      await store.saveModel({ ...MODEL, name: 'Renamed' });
      expect((await store.models()).map((m) => [m.id, m.name])).toEqual([
        ['m1', 'Renamed'],
        ['m2', 'Other'],
      ]);
      expect(await store.deleteModel('m2')).toBe(true);
      expect(await store.deleteModel('m2')).toBe(false);
      expect((await store.models()).map((m) => m.id)).toEqual(['m1']);
    });
  });
}

describeRunStore('SQLite', async () => new RunStore(openAppDatabase(':memory:')));

describePostgres('PostgreSQL agent runs', () => {
  let database: TestDatabase;
  const opened: PostgresDatabase[] = [];
  const connect = async (): Promise<PostgresDatabase> => {
    database ??= await createTestDatabase('runs');
    const db = await openPostgres(database.url, { migrations: { agent_runs: POSTGRES_RUN_MIGRATIONS }, max: 4 });
    opened.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of opened) await db.close();
    await database?.drop();
  });

  describeRunStore('PostgreSQL', async () => {
    const db = await connect();
    return new PostgresRunStore(db.pool, db.where, 'instance-a');
  });

  it('a run started through one instance is listed and read through another, which hears its changes', async () => {
    const a = await connect();
    const b = await connect();
    const one = new PostgresRunStore(a.pool, a.where, 'one');
    const two = new PostgresRunStore(b.pool, b.where, 'two');
    const heard: string[] = [];
    let told: () => void = () => undefined;
    /** Resolves once `done` holds, checked now and at each notice heard (set before the write that causes it). */
    const until = (done: () => boolean) =>
      new Promise<void>((resolve) => {
        told = () => done() && resolve();
        told();
      });
    const listener = await two.follow(database.url, (runId) => {
      heard.push(runId);
      told();
    });
    try {
      const stopped = until(() => heard.includes('shared'));
      await one.create(newRun('shared'), { role: 'user', text: 'from A' });
      await one.setStatus('shared', 'stopped', { code: 'cancelled', message: 'Stopped by the person.' });
      await stopped;
      expect((await two.list()).map((r) => r.id)).toContain('shared');
      expect(await two.require('shared')).toMatchObject({ status: 'stopped' });
      expect(await two.messages('shared')).toEqual([{ role: 'user', text: 'from A' }]);
      // Its own notices are not echoed back to it: after its write and then the other's, one more is heard.
      await until(() => heard.filter((id) => id === 'shared').length >= 2);
      const own = heard.length;
      await two.setStatus('shared', 'failed');
      const next = until(() => heard.length > own);
      await one.setStatus('shared', 'stopped');
      await next;
      expect(heard.slice(own)).toEqual(['shared']);
    } finally {
      await listener.close();
    }
  });

  it("a core starting marks interrupted only the runs whose owner is gone, never a live instance's", async () => {
    const db = await connect();
    const store = new PostgresRunStore(db.pool, db.where, 'starting');
    await store.create(newRun('live'), { role: 'user', text: 'running here' });
    await store.create(newRun('orphan'), { role: 'user', text: 'its process died' });
    const dead = { ...currentProcessOwner(), host: hostname(), pid: 2 ** 22 + 7, start: '1' };
    await db.pool.query('UPDATE runs SET owner = $1 WHERE id = $2', [encodeOwner(dead), 'orphan']);
    expect(await store.markInterrupted()).toBe(1);
    expect(await store.require('orphan')).toMatchObject({ status: 'interrupted', outcome: { code: 'interrupted' } });
    expect((await store.require('live')).status).toBe('running');
  });
});
