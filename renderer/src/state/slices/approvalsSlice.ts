/**
 * Approvals: the calls waiting for the person's decision, oldest first (loaded with
 * 'approvals.list', then kept current by 'approval.requested' / 'approval.closed').
 *
 * Each request is answered at most once from here: the answer in flight is recorded before the
 * call is sent, and every later click on that request is ignored. A request that closes without
 * an answer (expired, cancelled) or whose answer main refused (stale) stays visible for a moment
 * with what happened, then goes.
 */
import type { ApprovalView, EventOf } from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import { loadable } from '../loadable.js';
import type { Loadable } from '../loadable.js';
import type { ClientSliceCreator, StateOf } from '../types.js';

export type ApprovalAnswer = 'allow-once' | 'allow-session' | 'allow-always' | 'deny';

/** Why a request is no longer open, shown briefly before it disappears. */
type ApprovalEnd = 'expired' | 'cancelled' | 'refused';

export interface PendingApproval {
  view: ApprovalView;
  /** The answer sent for it (buttons are disabled from the click on). */
  answering: ApprovalAnswer | undefined;
  ended: ApprovalEnd | undefined;
  /** For `refused`: main's words. */
  endedMessage: string | undefined;
}

export interface ApprovalsSlice extends Loadable<'approvals'> {
  approvals: PendingApproval[];
  /** Requests the person chose to decide later in the Approvals view (not shown as a dialog). */
  deferredApprovals: string[];

  loadApprovals(): Promise<void>;
  applyApprovalRequested(view: ApprovalView): void;
  applyApprovalClosed(event: EventOf<'approval.closed'>): void;
  /** Sends one answer for one request, once. */
  answerApproval(requestId: string, answer: ApprovalAnswer): Promise<void>;
  deferApproval(requestId: string): void;
  /**
   * The person clicked the OS notification of a request: the dialog shows it unless it was set
   * aside with "Decide later", which the Approvals view lists.
   */
  revealApproval(requestId: string): void;
  dismissApproval(requestId: string): void;
  clearApprovals(): void;
}

/** How long an ended request stays visible with its explanation. */
export const ENDED_LINGER_MS = 3_000;

function byAge(a: ApprovalView, b: ApprovalView): number {
  // Every request gets the same time to answer, so the earliest deadline is the oldest request.
  return a.expiresAt - b.expiresAt;
}

function fresh(view: ApprovalView): PendingApproval {
  return { view, answering: undefined, ended: undefined, endedMessage: undefined };
}

const APPROVALS = loadable('approvals');
const INITIAL: StateOf<ApprovalsSlice> = { approvals: [], ...APPROVALS.idle, deferredApprovals: [] };

export const createApprovalsSlice: ClientSliceCreator<ApprovalsSlice> = (client) => (set, get) => {
  function patch(requestId: string, change: Partial<PendingApproval>, action: string): void {
    const list = get().approvals;
    if (!list.some((p) => p.view.requestId === requestId)) return;
    set({ approvals: list.map((p) => (p.view.requestId === requestId ? { ...p, ...change } : p)) }, false, action);
  }

  /** Marks a request as ended, then removes it after a moment. */
  function end(requestId: string, ended: ApprovalEnd, endedMessage?: string): void {
    patch(requestId, { ended, endedMessage, answering: undefined }, `approvals/${ended}`);
    setTimeout(() => get().dismissApproval(requestId), ENDED_LINGER_MS);
  }

  function toolOf(requestId: string): string {
    return get().approvals.find((p) => p.view.requestId === requestId)?.view.toolName ?? 'a tool';
  }

  return {
    ...INITIAL,

    async loadApprovals() {
      if (get().approvalsLoad !== 'ready') set(APPROVALS.loading, false, 'approvals/load');
      try {
        const views = await client.call('approvals.list', {});
        const known = new Map(get().approvals.map((p) => [p.view.requestId, p]));
        const ids = new Set(views.map((v) => v.requestId));
        // Keep what the person already did to a request; drop those main no longer has (unless ending).
        const kept = get().approvals.filter((p) => ids.has(p.view.requestId) || p.ended);
        const added = views.filter((v) => !known.has(v.requestId)).map(fresh);
        const approvals = [...kept, ...added].sort((a, b) => byAge(a.view, b.view));
        set({ approvals, ...APPROVALS.ready }, false, 'approvals/list');
      } catch (error) {
        set(APPROVALS.failed(error), false, 'approvals/loadError');
      }
    },

    applyApprovalRequested(view) {
      if (get().approvals.some((p) => p.view.requestId === view.requestId)) return;
      const approvals = [...get().approvals, fresh(view)].sort((a, b) => byAge(a.view, b.view));
      set({ approvals }, false, 'approvals/requested');
    },

    applyApprovalClosed({ requestId, outcome, decidedBy, answer }) {
      const entry = get().approvals.find((p) => p.view.requestId === requestId);
      if (!entry || entry.ended) return;
      if (outcome === 'answered') {
        // A shared instance: someone else decided first; say who (this page's own answer says nothing).
        if (decidedBy && !entry.answering)
          get().notify('info', `${decidedBy} ${answer === 'deny' ? 'denied' : 'allowed'} ${entry.view.toolName}.`);
        get().dismissApproval(requestId);
        return;
      }
      get().notify(
        'info',
        outcome === 'expired'
          ? `The approval for ${entry.view.toolName} expired without an answer; the call was denied and nothing ran.`
          : `The call to ${entry.view.toolName} was cancelled before it was approved; nothing ran.`,
      );
      end(requestId, outcome);
    },

    async answerApproval(requestId, answer) {
      const entry = get().approvals.find((p) => p.view.requestId === requestId);
      // Exactly once: a request already answered (or ended) takes no second answer from here.
      if (!entry || entry.answering || entry.ended) return;
      patch(requestId, { answering: answer }, 'approvals/answer');
      try {
        await client.call('approvals.answer', { requestId, answer });
        get().dismissApproval(requestId);
      } catch (error) {
        if (error instanceof BridgeError && error.code === 'stale_approval') {
          const text = `Your answer for ${toolOf(requestId)} was refused: this request is no longer pending (already answered, expired, or cancelled). Your answer ran nothing.`;
          get().notify('error', text);
          end(requestId, 'refused', text);
          return;
        }
        patch(requestId, { answering: undefined }, 'approvals/answerFailed');
        get().notify('error', `Could not send your answer for ${toolOf(requestId)}: ${messageOf(error)}`);
      }
    },

    deferApproval(requestId) {
      if (get().deferredApprovals.includes(requestId)) return;
      set({ deferredApprovals: [...get().deferredApprovals, requestId] }, false, 'approvals/defer');
    },

    revealApproval(requestId) {
      if (get().deferredApprovals.includes(requestId)) get().navigate('approvals');
    },

    dismissApproval(requestId) {
      const approvals = get().approvals.filter((p) => p.view.requestId !== requestId);
      const deferredApprovals = get().deferredApprovals.filter((id) => id !== requestId);
      if (approvals.length === get().approvals.length) return;
      set({ approvals, deferredApprovals }, false, 'approvals/remove');
    },

    clearApprovals() {
      set(INITIAL, false, 'approvals/clear');
    },
  };
};
