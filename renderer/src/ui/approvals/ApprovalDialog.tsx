/**
 * The approval dialog, rendered at the app's root so it appears wherever the person is. It shows
 * the oldest pending request ("1 of 3" when more wait), on the native <dialog> (focus is trapped,
 * Esc arrives as `cancel`): Esc and D deny, O / S / A allow once / for the session / always, and
 * Deny has the focus first. "Decide later" moves a request to the Approvals view only.
 *
 * The letter keys work only after a short moment per request, and never as key repeats: someone
 * typing when the dialog appears must not answer it by accident (an "a" is Always allow).
 *
 * Not the shared Dialog component: that one closes on Esc and has a close button, while closing
 * this one without an answer must not be possible (the call waits) — Esc is an answer here.
 */
import type { KeyboardEvent } from 'react';
import { useEffect, useState } from 'react';
import { isAgentCaller, isRunCaller } from '../../lib/callers.js';
import { isAppCaller } from '../../../../shared/contract.js';
import type { PendingApproval } from '../../state/slices/approvalsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Icon } from '../components/Icon.js';
import { useWaitingModal } from '../components/useWaitingModal.js';
import { ApprovalActions, answerForKey } from './ApprovalActions.js';
import { ExpiryCountdown } from '../components/ExpiryCountdown.js';
import { ApprovalDetails } from './ApprovalDetails.js';
import { EgressApprovalDetails, EgressTitle } from './EgressApprovalDetails.js';

/** How long a newly shown request ignores its accelerator keys. */
const KEY_DELAY_MS = 600;

const ENDED_TEXT = {
  expired: { title: 'Expired', text: 'Nobody answered in time, so the call was denied. Nothing ran.' },
  cancelled: { title: 'Cancelled', text: 'The call was cancelled before it was approved. Nothing ran.' },
  refused: { title: 'Answer refused', text: '' },
} as const;

function DialogBody({
  pending,
  index,
  count,
  deferred,
}: {
  pending: PendingApproval;
  index: number;
  count: number;
  deferred: number;
}) {
  const view = pending.view;
  const ended = pending.ended;
  return (
    <>
      <header className="dialog-header approval-header">
        <div className="approval-heading">
          <span className="approval-icon" aria-hidden="true">
            <Icon name="approvals" size={20} />
          </span>
          <div>
            <h2 className="dialog-title">
              {view.egress ? (
                <EgressTitle view={view} egress={view.egress} />
              ) : (
                <>
                  Allow <code>{view.toolName}</code> to run?
                </>
              )}
            </h2>
            <p className="dialog-description">
              {view.egress ? (
                'A sandboxed server tried to connect to a host its sandbox does not list; the attempt was refused.'
              ) : isAppCaller(view.userId) ? (
                <>
                  <strong>{view.userId}</strong> (a tool’s own interface, on your screen) is waiting for your decision.
                </>
              ) : isRunCaller(view.userId) ? (
                <>
                  The <strong>{view.userId}</strong> is waiting for your decision.
                </>
              ) : isAgentCaller(view.userId) ? (
                <>
                  The agent <strong>{view.userId}</strong> is waiting for your decision.
                </>
              ) : (
                'A tool call is waiting for your decision.'
              )}{' '}
              Nothing runs until you allow it.
            </p>
          </div>
        </div>
        <div className="approval-meta">
          {count > 1 && (
            <span className="approval-queue" aria-label={`Request ${index + 1} of ${count}`}>
              {index + 1} of {count}
            </span>
          )}
          <ExpiryCountdown expiresAt={view.expiresAt} stopped={ended !== undefined} />
          {deferred > 0 && <span className="approval-deferred">{deferred} more in Approvals</span>}
        </div>
      </header>
      <div className="dialog-body">
        {ended && (
          <Callout tone={ended === 'refused' ? 'error' : 'warning'} title={ENDED_TEXT[ended].title} role="alert">
            {ended === 'refused' ? pending.endedMessage : ENDED_TEXT[ended].text}
          </Callout>
        )}
        {view.egress ? (
          <EgressApprovalDetails view={view} egress={view.egress} />
        ) : (
          <ApprovalDetails view={view} headingLevel={3} />
        )}
      </div>
    </>
  );
}

export function ApprovalDialog() {
  const approvals = useAppStore((s) => s.approvals);
  const deferred = useAppStore((s) => s.deferredApprovals);
  const answer = useAppStore((s) => s.answerApproval);
  const defer = useAppStore((s) => s.deferApproval);
  const dismiss = useAppStore((s) => s.dismissApproval);
  const visible = approvals.filter((p) => !deferred.includes(p.view.requestId));
  const current = visible[0];
  // Open while anything waits; close when the queue is empty.
  const { ref, onClose } = useWaitingModal(current !== undefined);
  const requestId = current?.view.requestId;
  const ended = current?.ended !== undefined;
  const [armedFor, setArmedFor] = useState<string | undefined>();
  const armed = requestId !== undefined && armedFor === requestId;

  useEffect(() => {
    if (!requestId) return;
    const timer = setTimeout(() => setArmedFor(requestId), KEY_DELAY_MS);
    return () => clearTimeout(timer);
  }, [requestId]);

  // Each new request starts with the focus on the safe answer (or on Close when it has ended).
  useEffect(() => {
    if (!requestId) return;
    const dialog = ref.current;
    dialog?.querySelector<HTMLElement>(ended ? '[data-close]' : '[data-autofocus]')?.focus();
  }, [ref, requestId, ended]);

  function onKeyDown(event: KeyboardEvent<HTMLDialogElement>): void {
    if (!current || current.answering || current.ended || event.repeat || !armed) return;
    const choice = answerForKey(event);
    if (!choice) return;
    event.preventDefault();
    void answer(current.view.requestId, choice);
  }

  return (
    <dialog
      ref={ref}
      className="dialog dialog-large approval-dialog"
      role="alertdialog"
      aria-modal="true"
      aria-label={
        current
          ? current.view.egress
            ? `Approval: ${current.view.serverId} reaching ${current.view.toolName}`
            : `Approval: ${current.view.toolName}${isAgentCaller(current.view.userId) ? `, asked by ${current.view.userId}` : ''}`
          : 'Approval'
      }
      data-keys={armed ? 'armed' : 'waiting'}
      onCancel={(event) => {
        // Esc is an answer: Deny (or, for a request that already ended, just close it).
        event.preventDefault();
        if (!current) return;
        if (current.ended) dismiss(current.view.requestId);
        else if (!current.answering) void answer(current.view.requestId, 'deny');
      }}
      onKeyDown={onKeyDown}
      onClose={onClose}
    >
      {current && (
        <div className="dialog-form" key={current.view.requestId}>
          <DialogBody pending={current} index={0} count={visible.length} deferred={approvals.length - visible.length} />
          <footer className="dialog-footer approval-footer">
            {current.ended ? (
              <button type="button" className="btn" data-close onClick={() => dismiss(current.view.requestId)}>
                Close
              </button>
            ) : (
              <>
                <button
                  type="button"
                  className="btn btn-ghost btn-small approval-later"
                  onClick={() => defer(current.view.requestId)}
                  disabled={current.answering !== undefined}
                >
                  Decide later
                </button>
                <ApprovalActions pending={current} autoFocusDeny />
              </>
            )}
          </footer>
        </div>
      )}
    </dialog>
  );
}
