/** The call panel's task status: a running GUI call the server runs as a task shows its id and status (call.task). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolView } from '../../shared/contract.js';
import { bindBridge } from '../../renderer/src/state/bindBridge.js';
import { toolKeyOf } from '../../renderer/src/state/slices/toolsSlice.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient } from '../doubles/renderer/fakeClient.js';

describe('tools slice: a call run as a task', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  let unbind: () => void;
  const tool = { name: 'long_job', serverId: 'tasks' } as ToolView;

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
    unbind = bindBridge(client, store);
  });
  afterEach(() => unbind());

  it('keeps the latest task status on the running call, and ignores another call’s', () => {
    void store.getState().runTool(tool, { label: 'x' });
    const { callId } = client.next('tools.call').request;
    client.emit('call.task', { callId: 'someone-else', taskId: 't-0', status: 'working' });
    client.emit('call.task', { callId, taskId: 't-1', status: 'working', statusMessage: 'step 1' });
    client.emit('call.task', { callId, taskId: 't-1', status: 'input_required' });
    const run = store.getState().toolRuns[toolKeyOf(tool)];
    expect(run).toMatchObject({ status: 'running', callId, task: { taskId: 't-1', status: 'input_required' } });
    expect(run && 'task' in run ? run.task?.statusMessage : undefined).toBeUndefined();
  });
});
