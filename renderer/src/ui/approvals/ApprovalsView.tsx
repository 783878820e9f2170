/**
 * The Approvals view: every call waiting for a decision, oldest first, each with the same
 * details and answers as the dialog (including the ones set aside with "Decide later").
 */
import { useEffect } from 'react';
import { isAgentCaller } from '../../lib/callers.js';
import type { PendingApproval } from '../../state/slices/approvalsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { EmptyState } from '../components/EmptyState.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { ApprovalActions } from './ApprovalActions.js';
import { ExpiryCountdown } from '../components/ExpiryCountdown.js';
import { ApprovalDetails } from './ApprovalDetails.js';
import { EgressApprovalDetails } from './EgressApprovalDetails.js';

const ENDED_WORDS = {
  expired: 'Expired — the call was denied; nothing ran.',
  cancelled: 'Cancelled — nothing ran.',
  refused: 'Answer refused — no longer pending.',
} as const;

function ApprovalCard({ pending, index }: { pending: PendingApproval; index: number }) {
  const deferred = useAppStore((s) => s.deferredApprovals.includes(pending.view.requestId));
  const view = pending.view;
  return (
    <li
      className={`card approval-card ${pending.ended ? 'is-ended' : ''}`}
      aria-label={`Approval request ${index + 1}: ${view.toolName}${isAgentCaller(view.userId) ? `, asked by ${view.userId}` : ''}`}
    >
      <header className="approval-card-head">
        <span className="approval-card-index">#{index + 1}</span>
        <h2 className="approval-card-title">
          <code>{view.toolName}</code>
        </h2>
        {isAgentCaller(view.userId) && <span className="chip chip-warning">{view.userId}</span>}
        {deferred && <span className="chip">decide later</span>}
        <ExpiryCountdown expiresAt={view.expiresAt} stopped={pending.ended !== undefined} />
      </header>
      {pending.ended && (
        <p className="approval-ended" role="status">
          {pending.ended === 'refused' ? (pending.endedMessage ?? ENDED_WORDS.refused) : ENDED_WORDS[pending.ended]}
        </p>
      )}
      {view.egress ? (
        <EgressApprovalDetails view={view} egress={view.egress} />
      ) : (
        <ApprovalDetails view={view} headingLevel={3} />
      )}
      <footer className="approval-card-foot">
        <ApprovalActions pending={pending} />
      </footer>
    </li>
  );
}

export function ApprovalsView() {
  const approvals = useAppStore((s) => s.approvals);
  const load = useAppStore((s) => s.approvalsLoad);
  const error = useAppStore((s) => s.approvalsError);
  const reload = useAppStore((s) => s.loadApprovals);
  const navigate = useAppStore((s) => s.navigate);
  const open = approvals.filter((p) => !p.ended).length;

  // Events keep the list current; opening the view also asks main, in case one was missed.
  useEffect(() => {
    void reload();
  }, [reload]);

  let body;
  if (load === 'error' && approvals.length === 0) {
    body = (
      <Callout
        tone="error"
        title="Could not load the pending approvals"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void reload()}>
            Try again
          </button>
        }
      >
        {error}
      </Callout>
    );
  } else if (load !== 'ready' && approvals.length === 0) {
    body = (
      <div className="loading-block">
        <Spinner label="Loading approvals" /> Loading approvals…
      </div>
    );
  } else if (approvals.length === 0) {
    body = (
      <EmptyState
        icon="approvals"
        title="Nothing is waiting for you"
        action={
          <button type="button" className="btn" onClick={() => navigate('permissions')}>
            Open Permissions
          </button>
        }
      >
        When a tool that asks first is called, its request appears here and as a dialog. The “always allow” answers you
        gave are listed in Permissions, where you can revoke them.
      </EmptyState>
    );
  } else {
    body = (
      <ol className="approval-list" aria-label="Pending approvals">
        {approvals.map((pending, i) => (
          <ApprovalCard key={pending.view.requestId} pending={pending} index={i} />
        ))}
      </ol>
    );
  }

  return (
    <section className="view" aria-labelledby="view-title">
      <ViewHeader
        title="Approvals"
        subtitle={
          open === 0
            ? 'Tool calls waiting for your decision'
            : `${open} ${open === 1 ? 'call is' : 'calls are'} waiting for your decision, oldest first`
        }
      />
      <div className="view-body view-body-narrow approvals-body">{body}</div>
    </section>
  );
}
