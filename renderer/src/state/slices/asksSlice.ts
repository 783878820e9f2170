/**
 * Asks: what servers are asking the person — elicitation (a form, a link) and sampling (a model
 * response) — oldest first (loaded with 'asks.list', kept current by 'ask.requested' /
 * 'ask.closed'). Shown one at a time as a dialog naming the server.
 *
 * One answer in flight per ask; main checks it again. Form values main refuses come back as
 * field errors and the ask stays open for a corrected answer. An ask that closes without an
 * answer (expired, withdrawn, its call ended) or whose answer main refused as stale stays visible for a moment
 * with what happened, then goes.
 */
import type { AskAnswer, AskView } from '../../../../shared/asks.js';
import type { EventOf } from '../../../../shared/contract.js';
import type { FieldErrors } from '../../../../shared/serverConfig.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import type { ClientSliceCreator } from '../types.js';
import { ENDED_LINGER_MS } from './approvalsSlice.js';

/** Why an ask is no longer open, shown briefly before it disappears (`call_ended`: the tool call that asked is over). */
export type AskEnd = 'expired' | 'cancelled' | 'call_ended' | 'refused';

export interface PendingAsk {
  view: AskView;
  /** The answer being sent (the buttons are disabled meanwhile). */
  answering: AskAnswer['action'] | undefined;
  /** Main's refusals of the last answer, by field (form values that do not fit). */
  fieldErrors: FieldErrors;
  ended: AskEnd | undefined;
  /** For `refused`: main's words. */
  endedMessage: string | undefined;
}

export interface AsksSlice {
  asks: PendingAsk[];
  loadAsks(): Promise<void>;
  applyAskRequested(view: AskView): void;
  applyAskClosed(event: EventOf<'ask.closed'>): void;
  /** Sends one answer; true when main took it. */
  answerAsk(requestId: string, answer: AskAnswer): Promise<boolean>;
  dismissAsk(requestId: string): void;
  clearAsks(): void;
}

function fresh(view: AskView): PendingAsk {
  return { view, answering: undefined, fieldErrors: {}, ended: undefined, endedMessage: undefined };
}

function byAge(a: PendingAsk, b: PendingAsk): number {
  return a.view.expiresAt - b.view.expiresAt;
}

export const createAsksSlice: ClientSliceCreator<AsksSlice> = (client) => (set, get) => {
  function patch(requestId: string, change: Partial<PendingAsk>, action: string): void {
    const list = get().asks;
    if (!list.some((p) => p.view.requestId === requestId)) return;
    set({ asks: list.map((p) => (p.view.requestId === requestId ? { ...p, ...change } : p)) }, false, action);
  }

  function end(requestId: string, ended: AskEnd, endedMessage?: string): void {
    patch(requestId, { ended, endedMessage, answering: undefined }, `asks/${ended}`);
    setTimeout(() => get().dismissAsk(requestId), ENDED_LINGER_MS);
  }

  return {
    asks: [],

    async loadAsks() {
      try {
        const views = await client.call('asks.list', {});
        const ids = new Set(views.map((v) => v.requestId));
        const known = new Set(get().asks.map((p) => p.view.requestId));
        const kept = get().asks.filter((p) => ids.has(p.view.requestId) || p.ended);
        set({ asks: [...kept, ...views.filter((v) => !known.has(v.requestId)).map(fresh)].sort(byAge) }, false, 'asks/list');
      } catch (error) {
        get().notify('error', `Could not load what servers are asking: ${messageOf(error)}`);
      }
    },

    applyAskRequested(view) {
      if (get().asks.some((p) => p.view.requestId === view.requestId)) return;
      set({ asks: [...get().asks, fresh(view)].sort(byAge) }, false, 'asks/requested');
    },

    applyAskClosed({ requestId, outcome }) {
      const entry = get().asks.find((p) => p.view.requestId === requestId);
      if (!entry || entry.ended) return;
      if (outcome === 'answered') get().dismissAsk(requestId);
      else end(requestId, outcome);
    },

    async answerAsk(requestId, answer) {
      const entry = get().asks.find((p) => p.view.requestId === requestId);
      if (!entry || entry.answering || entry.ended) return false;
      patch(requestId, { answering: answer.action, fieldErrors: {} }, 'asks/answer');
      try {
        await client.call('asks.answer', { requestId, answer });
        get().dismissAsk(requestId);
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

    dismissAsk(requestId) {
      const asks = get().asks.filter((p) => p.view.requestId !== requestId);
      if (asks.length !== get().asks.length) set({ asks }, false, 'asks/remove');
    },

    clearAsks() {
      set({ asks: [] }, false, 'asks/clear');
    },
  };
};
