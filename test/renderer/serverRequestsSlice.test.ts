/**
 * The requests queue (what servers ask the person): oldest first, one answer in flight per ask,
 * field errors from main keep the request open, a stale or withdrawn ask says so and goes; and the
 * server's form schema as the generated form renders it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServerRequestView } from '../../shared/serverRequests.js';
import { bindBridge } from '../../renderer/src/state/bindBridge.js';
import { ENDED_LINGER_MS } from '../../renderer/src/state/slices/approvalsSlice.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { contentOf, errorSchemaOf, formSchemaOf } from '../../renderer/src/ui/serverRequests/formSchema.js';
import { BridgeError } from '../../renderer/src/bridge/errors.js';
import { FakeClient, bridgeError } from '../doubles/renderer/fakeClient.js';

function formAsk(requestId: string, expiresAt: number): ServerRequestView {
  return {
    kind: 'elicitation-form',
    requestId,
    serverId: 'srv',
    serverName: 'Server',
    expiresAt,
    message: 'Who?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  };
}

describe('asks slice', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  let unbind: () => void;
  const ids = () => store.getState().serverRequests.map((p) => p.view.requestId);

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
    unbind = bindBridge(client, store);
  });
  afterEach(() => {
    unbind();
    vi.useRealTimers();
  });

  it('keeps asks oldest first and merges serverRequests.list with what arrived as events', async () => {
    client.emit('serverRequest.opened', formAsk('b', 2_000));
    client.emit('serverRequest.opened', formAsk('a', 1_000));
    client.emit('serverRequest.opened', formAsk('b', 2_000));
    expect(ids()).toEqual(['a', 'b']);
    const load = store.getState().loadServerRequests();
    client.next('serverRequests.list').resolve([formAsk('c', 3_000), formAsk('a', 1_000)]);
    await load;
    expect(ids()).toEqual(['a', 'c']);
  });

  it('sends one answer at a time; main’s field errors keep the ask open for a corrected answer', async () => {
    client.emit('serverRequest.opened', formAsk('a', 1_000));
    const first = store.getState().answerServerRequest('a', { action: 'accept', content: { name: '' } });
    expect(await store.getState().answerServerRequest('a', { action: 'decline' })).toBe(false);
    expect(client.callsTo('serverRequests.answer')).toHaveLength(1);
    client.next('serverRequests.answer').reject(
      new BridgeError({
        code: 'validation',
        message: 'no',
        details: { fieldErrors: { name: ['must not be empty'] } },
      }),
    );
    expect(await first).toBe(false);
    expect(store.getState().serverRequests[0]).toMatchObject({
      answering: undefined,
      ended: undefined,
      fieldErrors: { name: ['must not be empty'] },
    });

    const second = store.getState().answerServerRequest('a', { action: 'accept', content: { name: 'Ada' } });
    expect(store.getState().serverRequests[0]?.fieldErrors).toEqual({});
    client.next('serverRequests.answer').resolve({ accepted: true });
    expect(await second).toBe(true);
    expect(ids()).toEqual([]);
  });

  it('a stale answer and a withdrawn ask are shown, then go', async () => {
    vi.useFakeTimers();
    client.emit('serverRequest.opened', formAsk('a', 1_000));
    client.emit('serverRequest.opened', formAsk('b', 2_000));
    const stale = store.getState().answerServerRequest('a', { action: 'cancel' });
    client.next('serverRequests.answer').reject(bridgeError('stale_ask'));
    await stale;
    client.emit('serverRequest.closed', { requestId: 'b', outcome: 'cancelled' });
    expect(store.getState().serverRequests.map((p) => [p.view.requestId, p.ended])).toEqual([
      ['a', 'refused'],
      ['b', 'cancelled'],
    ]);
    vi.advanceTimersByTime(ENDED_LINGER_MS);
    expect(ids()).toEqual([]);
  });
});

describe('elicitation form schema → generated form', () => {
  it('turns legacy enumNames into titled choices and several-choice fields into checkboxes; errors go to their fields', () => {
    const { schema, uiSchema } = formSchemaOf({
      type: 'object',
      properties: {
        pet: { type: 'string', enum: ['p1', 'p2'], enumNames: ['Cats', 'Dogs'], default: 'p1' },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        when: { type: 'string', format: 'date' },
      },
      required: ['pet'],
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        pet: {
          type: 'string',
          default: 'p1',
          oneOf: [
            { const: 'p1', title: 'Cats' },
            { const: 'p2', title: 'Dogs' },
          ],
        },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, uniqueItems: true },
        when: { type: 'string', format: 'date' },
      },
      required: ['pet'],
    });
    expect(uiSchema).toEqual({ tags: { 'ui:widget': 'checkboxes' } });
    expect(errorSchemaOf({ when: ['must be a date'], '': ['too many'] })).toEqual({
      when: { __errors: ['must be a date'] },
      __errors: ['too many'],
    });
    expect(contentOf({ pet: 'p2', tags: ['a'], when: undefined, n: 3, ok: false })).toEqual({
      pet: 'p2',
      tags: ['a'],
      n: 3,
      ok: false,
    });
  });
});
