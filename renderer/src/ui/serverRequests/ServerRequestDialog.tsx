/**
 * The dialog for what servers ask the person — a form to fill, a link to open, a model response
 * to write — rendered at the app's root so it appears wherever the person is, one request at a time
 * (oldest first, "1 of 3" when more wait). It names the server in its title. Nothing is answered
 * for the person: Esc is "cancel" for an elicitation and "reject" for a sampling request, and the
 * focus starts on the dialog itself, so keys typed elsewhere a moment before answer nothing.
 *
 * Like the approval dialog, it is not the shared Dialog component: closing it without an answer
 * must not be possible while the server waits.
 */
import { useEffect } from 'react';
import type { ServerRequestView } from '../../../../shared/serverRequests.js';
import type { PendingServerRequest } from '../../state/slices/serverRequestsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { ExpiryCountdown } from '../components/ExpiryCountdown.js';
import { Callout } from '../components/Callout.js';
import { Icon } from '../components/Icon.js';
import { useWaitingModal } from '../components/useWaitingModal.js';
import { ElicitationFormRequest, ElicitationLinkRequest } from './ElicitationRequest.js';
import { SamplingServerRequest } from './SamplingRequest.js';

const ENDED_TEXT = {
  expired: { title: 'Expired', text: 'Nobody answered in time; the server was told so.' },
  cancelled: {
    title: 'Withdrawn',
    text: 'The server no longer waits for this answer (it gave up, or its connection closed).',
  },
  call_ended: {
    title: 'The call ended',
    text: 'The tool call that asked this has ended (it finished, failed or was cancelled), so nobody waits for your answer any more. Nothing was sent.',
  },
  refused: { title: 'Answer refused', text: '' },
} as const;

/** The dialog's title: what the server asks, naming it. */
function serverRequestTitle(view: ServerRequestView): string {
  switch (view.kind) {
    case 'elicitation-form':
      return `${view.serverName} asks for information`;
    case 'elicitation-url':
      return `${view.serverName} asks you to open a link`;
    case 'sampling':
      return `${view.serverName} asks for a model response`;
  }
}

const EXPLANATION: Record<ServerRequestView['kind'], string> = {
  'elicitation-form': 'The server waits for your answer. Nothing is sent until you accept.',
  'elicitation-url': 'The link opens in your browser only if you choose to open it.',
  sampling: 'The server would send this to a language model. Write the response yourself, or reject the request.',
};

function Body({ pending, count }: { pending: PendingServerRequest; count: number }) {
  const { view, ended } = pending;
  return (
    <>
      <header className="dialog-header approval-header">
        <div className="approval-heading">
          <span className="approval-icon ask-icon" aria-hidden="true">
            <Icon
              name={view.kind === 'elicitation-url' ? 'globe' : view.kind === 'sampling' ? 'traces' : 'edit'}
              size={20}
            />
          </span>
          <div>
            <h2 className="dialog-title">{serverRequestTitle(view)}</h2>
            <p className="dialog-description">
              From server <strong>{view.serverName}</strong>
              {/* The id only when it says something the name does not. */}
              {view.serverId !== view.serverName && (
                <>
                  {' '}
                  <code className="ask-server-id">{view.serverId}</code>
                </>
              )}
              . {EXPLANATION[view.kind]}
            </p>
          </div>
        </div>
        <div className="approval-meta">
          {count > 1 && (
            <span className="approval-queue" aria-label={`Request 1 of ${count}`}>
              1 of {count}
            </span>
          )}
          <ExpiryCountdown
            expiresAt={view.expiresAt}
            stopped={ended !== undefined}
            title="Without an answer, the server is told nobody answered"
          />
        </div>
      </header>
      {ended && (
        <div className="dialog-body ask-ended">
          <Callout tone={ended === 'refused' ? 'error' : 'warning'} title={ENDED_TEXT[ended].title} role="alert">
            {ended === 'refused' ? pending.endedMessage : ENDED_TEXT[ended].text}
          </Callout>
        </div>
      )}
    </>
  );
}

export function ServerRequestDialog() {
  const serverRequests = useAppStore((s) => s.serverRequests);
  const answer = useAppStore((s) => s.answerServerRequest);
  const dismiss = useAppStore((s) => s.dismissServerRequest);
  const current = serverRequests[0];
  const { ref, onClose } = useWaitingModal(current !== undefined);
  const requestId = current?.view.requestId;

  // Each request starts with the focus on the dialog, not in a field or on a button.
  useEffect(() => {
    if (requestId) ref.current?.querySelector<HTMLElement>('.ask-content')?.focus();
  }, [ref, requestId]);

  return (
    <dialog
      ref={ref}
      className="dialog dialog-large approval-dialog ask-dialog"
      role="alertdialog"
      aria-modal="true"
      aria-label={current ? serverRequestTitle(current.view) : 'Server request'}
      onCancel={(event) => {
        event.preventDefault();
        if (!current) return;
        if (current.ended) dismiss(current.view.requestId);
        else if (!current.answering)
          void answer(
            current.view.requestId,
            current.view.kind === 'sampling' ? { action: 'reject' } : { action: 'cancel' },
          );
      }}
      onClose={onClose}
    >
      {current && (
        <div className="dialog-form ask-content" key={current.view.requestId} tabIndex={-1}>
          <Body pending={current} count={serverRequests.length} />
          {current.ended ? (
            <footer className="dialog-footer">
              <button type="button" className="btn" onClick={() => dismiss(current.view.requestId)}>
                Close
              </button>
            </footer>
          ) : current.view.kind === 'elicitation-form' ? (
            <ElicitationFormRequest pending={current} view={current.view} />
          ) : current.view.kind === 'elicitation-url' ? (
            <ElicitationLinkRequest pending={current} view={current.view} />
          ) : (
            <SamplingServerRequest pending={current} view={current.view} />
          )}
        </div>
      )}
    </dialog>
  );
}
