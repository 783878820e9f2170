/**
 * Server requests: what servers are asking the person — elicitation (a form, a link) and sampling (a model
 * response) — oldest first (loaded with 'serverRequests.list', kept current by 'serverRequest.opened' /
 * 'serverRequest.closed'). Shown one at a time as a dialog naming the server.
 *
 * One answer in flight per ask; main checks it again. Form values main refuses come back as
 * field errors and the request stays open for a corrected answer. A request that closes without an
 * answer (expired, withdrawn, its call ended) or whose answer main refused as stale stays visible for a moment
 * with what happened, then goes.
 */
import type { ServerRequestAnswer, ServerRequestView } from '../../../../shared/serverRequests.js';
import type { EventOf } from '../../../../shared/contract.js';
import type { FieldErrors } from '../../../../shared/serverConfig.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';
import { ENDED_LINGER_MS } from './approvalsSlice.js';

/** Why a request is no longer open, shown briefly before it disappears (`call_ended`: the tool call that asked is over). */
type ServerRequestEnd = 'expired' | 'cancelled' | 'call_ended' | 'refused';

export interface PendingServerRequest {
  view: ServerRequestView;
  /** The answer being sent (the buttons are disabled meanwhile). */
  answering: ServerRequestAnswer['action'] | undefined;
  /** Main's refusals of the last answer, by field (form values that do not fit). */
  fieldErrors: FieldErrors;
  ended: ServerRequestEnd | undefined;
  /** For `refused`: main's words. */
  endedMessage: string | undefined;
}

export interface ServerRequestsSlice {
  serverRequests: PendingServerRequest[];
  loadServerRequests(): Promise<void>;
  applyServerRequestOpened(view: ServerRequestView): void;
  applyServerRequestClosed(event: EventOf<'serverRequest.closed'>): void;
  /** Sends one answer; true when main took it. */
  answerServerRequest(requestId: string, answer: ServerRequestAnswer): Promise<boolean>;
  dismissServerRequest(requestId: string): void;
  clearServerRequests(): void;
}

function fresh(view: ServerRequestView): PendingServerRequest {
  return { view, answering: undefined, fieldErrors: {}, ended: undefined, endedMessage: undefined };
}

function byAge(a: PendingServerRequest, b: PendingServerRequest): number {
  return a.view.expiresAt - b.view.expiresAt;
}

export const createServerRequestsSlice: ClientSliceCreator<ServerRequestsSlice> = (client) => (set, get) => {
  function patch(requestId: string, change: Partial<PendingServerRequest>, action: string): void {
    const list = get().serverRequests;
    if (!list.some((p) => p.view.requestId === requestId)) return;
    set({ serverRequests: list.map((p) => (p.view.requestId === requestId ? { ...p, ...change } : p)) }, false, action);
  }

  function end(requestId: string, ended: ServerRequestEnd, endedMessage?: string): void {
    patch(requestId, { ended, endedMessage, answering: undefined }, `asks/${ended}`);
    setTimeout(() => get().dismissServerRequest(requestId), ENDED_LINGER_MS);
  }

  return {
    serverRequests: [],

    async loadServerRequests() {
      try {
        const views = await client.call('serverRequests.list', {});
        const ids = new Set(views.map((v) => v.requestId));
        const known = new Set(get().serverRequests.map((p) => p.view.requestId));
        const kept = get().serverRequests.filter((p) => ids.has(p.view.requestId) || p.ended);
        set(
          { serverRequests: [...kept, ...views.filter((v) => !known.has(v.requestId)).map(fresh)].sort(byAge) },
          false,
          'asks/list',
        );
      } catch (error) {
        get().notify('error', `Could not load what servers are asking: ${messageOf(error)}`);
      }
    },

    applyServerRequestOpened(view) {
      if (get().serverRequests.some((p) => p.view.requestId === view.requestId)) return;
      set({ serverRequests: [...get().serverRequests, fresh(view)].sort(byAge) }, false, 'asks/requested');
    },

    applyServerRequestClosed({ requestId, outcome }) {
      const entry = get().serverRequests.find((p) => p.view.requestId === requestId);
      if (!entry || entry.ended) return;
      if (outcome === 'answered') get().dismissServerRequest(requestId);
      else end(requestId, outcome);
    },

    async answerServerRequest(requestId, answer) {
      const entry = get().serverRequests.find((p) => p.view.requestId === requestId);
      if (!entry || entry.answering || entry.ended) return false;
      patch(requestId, { answering: answer.action, fieldErrors: {} }, 'asks/answer');
      try {
        await client.call('serverRequests.answer', { requestId, answer });
        get().dismissServerRequest(requestId);
        return true;
      } catch (error) {
        if (error instanceof BridgeError && error.code === 'stale_ask') {
          end(requestId, 'refused', error.message);
          return false;
        }
        if (error instanceof BridgeError && Object.keys(error.fieldErrors).length > 0) {
          patch(requestId, { answering: undefined, fieldErrors: error.fieldErrors }, 'asks/refusedFields');
          return false;
        }
        patch(requestId, { answering: undefined }, 'asks/answerFailed');
        get().notify('error', `Could not send your answer to ${entry.view.serverName}: ${messageOf(error)}`);
        return false;
      }
    },

    dismissServerRequest(requestId) {
      const serverRequests = get().serverRequests.filter((p) => p.view.requestId !== requestId);
      if (serverRequests.length !== get().serverRequests.length) set({ serverRequests }, false, 'asks/remove');
    },

    clearServerRequests() {
      set({ serverRequests: [] }, false, 'asks/clear');
    },
  };
};
