/**
 * AgentTasks.start resolves with a Result in every case: a call the server behind runs as a task
 * is answered with the gateway's task as a plain Result, never an Error in its place (issue 37).
 */
import { describe, expect, it } from 'vitest';
import { AgentTasks } from '../../electron/gateway/agentTasks.js';

describe('AgentTasks.start', () => {
  it('answers a call that became a task with a plain task Result the agent can follow', async () => {
    const tasks = new AgentTasks();
    let finish: () => void = () => undefined;
    const answer = await tasks.start('agent-1', (_signal, onTask) => {
      onTask({ taskId: 'downstream-1', status: 'working', statusMessage: 'started', at: Date.now() });
      return new Promise((resolve) => {
        finish = () => resolve({ content: [{ type: 'text', text: 'done' }] });
      });
    });
    expect(answer).not.toBeInstanceOf(Error);
    expect(answer).toMatchObject({ resultType: 'task', status: 'working', statusMessage: 'started', ttlMs: null });
    const taskId = (answer as { taskId: string }).taskId;
    expect(taskId).not.toBe('downstream-1');
    expect(tasks.get('agent-1', taskId)).toMatchObject({ taskId, status: 'working' });
    finish();
    tasks.close();
  });

  it('answers a call that ended before any task with its own result', async () => {
    const tasks = new AgentTasks();
    const answer = await tasks.start('agent-1', () => Promise.resolve({ content: [{ type: 'text', text: 'now' }] }));
    expect(answer).toEqual({ content: [{ type: 'text', text: 'now' }] });
  });
});
