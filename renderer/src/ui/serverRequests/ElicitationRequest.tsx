/**
 * Elicitation in the request dialog. Form mode: the server's message and a form generated from its
 * `requestedSchema` (the Tools view's form machinery), with Accept / Decline / Cancel; values main
 * refuses come back at their fields. URL mode: the message and the whole link with its host
 * set apart (where it really leads), with Open link / Decline / Cancel — the link opens in the
 * browser only on the person's click, and that click is the "accept".
 */
import { useMemo, useState } from 'react';
import type { ServerRequestView } from '../../../../shared/serverRequests.js';
import type { PendingServerRequest } from '../../state/slices/serverRequestsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Icon } from '../components/Icon.js';
import { ArgsSchemaForm } from '../components/argsForm/ArgsForm.js';
import { contentOf, errorSchemaOf, formSchemaOf } from './formSchema.js';

type FormView = Extract<ServerRequestView, { kind: 'elicitation-form' }>;
type LinkView = Extract<ServerRequestView, { kind: 'elicitation-url' }>;

function Message({ text }: { text: string }) {
  return <p className="ask-message">{text}</p>;
}

function DeclineAndCancel({ pending }: { pending: PendingServerRequest }) {
  const answer = useAppStore((s) => s.answerServerRequest);
  const busy = pending.answering !== undefined;
  const id = pending.view.requestId;
  return (
    <>
      <button
        type="button"
        className="btn"
        disabled={busy}
        onClick={() => void answer(id, { action: 'cancel' })}
        title="Dismiss without choosing"
      >
        Cancel
      </button>
      <button
        type="button"
        className="btn btn-danger"
        disabled={busy}
        onClick={() => void answer(id, { action: 'decline' })}
        title="Tell the server you do not want to answer"
      >
        Decline
      </button>
    </>
  );
}

export function ElicitationFormRequest({ pending, view }: { pending: PendingServerRequest; view: FormView }) {
  const answer = useAppStore((s) => s.answerServerRequest);
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [cannotRender, setCannotRender] = useState(false);
  const form = useMemo(() => formSchemaOf(view.requestedSchema), [view.requestedSchema]);
  const errors = errorSchemaOf(pending.fieldErrors);
  const busy = pending.answering !== undefined;
  const accept = (): void => void answer(view.requestId, { action: 'accept', content: contentOf(values) });
  const general = pending.fieldErrors[''];
  return (
    <>
      <div className="dialog-body ask-body">
        <Message text={view.message} />
        {Object.keys(pending.fieldErrors).length > 0 && (
          <p className="field-error" role="alert">
            Some values do not fit what the server asked for; correct them and accept again.
            {general ? ` ${general.join('; ')}` : ''}
          </p>
        )}
        {cannotRender ? (
          <p className="muted">This form cannot be shown. Decline or cancel the request.</p>
        ) : (
          <ArgsSchemaForm
            schema={form.schema}
            uiSchema={form.uiSchema}
            value={values}
            disabled={busy}
            onChange={setValues}
            onSubmit={accept}
            onCannotRender={() => setCannotRender(true)}
            emptyText="The server asks for no values: accept to confirm, or decline."
            allDefaults
            {...(errors ? { extraErrors: errors } : {})}
          />
        )}
      </div>
      <footer className="dialog-footer">
        <DeclineAndCancel pending={pending} />
        <button type="button" className="btn btn-primary" disabled={busy || cannotRender} onClick={accept}>
          <Icon name="check" size={14} />
          Accept
        </button>
      </footer>
    </>
  );
}

/** The link with its host set apart, so a misleading path cannot hide where it leads. */
function LinkText({ url }: { url: string }) {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed) return <code className="ask-link">{url}</code>;
  const head = `${parsed.protocol}//`;
  const rest = url.slice(head.length + parsed.host.length);
  return (
    <code className="ask-link">
      {head}
      <strong className="ask-link-host">{parsed.host}</strong>
      {rest}
    </code>
  );
}

export function ElicitationLinkRequest({ pending, view }: { pending: PendingServerRequest; view: LinkView }) {
  const answer = useAppStore((s) => s.answerServerRequest);
  const busy = pending.answering !== undefined;
  const host = (() => {
    try {
      return new URL(view.url).host;
    } catch {
      return view.url;
    }
  })();
  return (
    <>
      <div className="dialog-body ask-body">
        <Message text={view.message} />
        <p className="field-label">The link leads to {host}:</p>
        <LinkText url={view.url} />
      </div>
      <footer className="dialog-footer">
        <DeclineAndCancel pending={pending} />
        {/* The shell opens http(s) links in the system browser (browser mode: a new tab). */}
        <a
          className={`btn btn-primary ${busy ? 'is-disabled' : ''}`}
          href={view.url}
          target="_blank"
          rel="noopener noreferrer"
          aria-disabled={busy || undefined}
          onClick={(event) => {
            if (busy) {
              event.preventDefault();
              return;
            }
            void answer(view.requestId, { action: 'accept' });
          }}
        >
          <Icon name="globe" size={14} />
          Open link
        </a>
      </footer>
    </>
  );
}
