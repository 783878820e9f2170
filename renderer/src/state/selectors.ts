/** Small, reusable selectors (each returns a stored value, never a fresh object). */
import type { ServerView } from '../../../shared/contract.js';
import { serverIdOf } from '../lib/serverView.js';
import type { AppStore } from './types.js';

export const selectServerById =
  (id: string | undefined) =>
  (s: AppStore): ServerView | undefined =>
    id === undefined ? undefined : s.servers.find((v) => serverIdOf(v) === id);

export const selectSelectedServer = (s: AppStore): ServerView | undefined => selectServerById(s.selectedServerId)(s);

export const selectBusy =
  (id: string) =>
  (s: AppStore): string | undefined =>
    s.busy[id];

export const selectDetail = (id: string) => (s: AppStore) => s.details[id];
export const selectLog = (id: string) => (s: AppStore) => s.logs[id];

/** The secret backend's warning, when secrets are not encrypted by the OS. */
export const selectSecretWarning = (s: AppStore): string | undefined =>
  s.info && !s.info.secretBackend.secure
    ? (s.info.secretBackend.warning ?? 'Secrets are stored without OS encryption.')
    : undefined;

/** Approval requests still waiting for an answer (the sidebar badge). */
export const selectPendingApprovalCount = (s: AppStore): number => s.approvals.filter((p) => !p.ended).length;

/** Recorded calls still `started` (in progress, or their result is unknown) across all sessions: History's attention mark. */
export const selectHistoryAttentionCount = (s: AppStore): number =>
  s.historySessions.reduce((n, session) => n + session.started, 0);
