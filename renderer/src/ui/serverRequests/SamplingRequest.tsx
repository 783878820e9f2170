/**
 * Sampling in the request dialog, the MCP Inspector's way: everything the server would send a model
 * (system prompt, messages, model preferences, max tokens, temperature, stop sequences) shown as
 * is; the person writes the response the server gets back — and the model name it reports — or
 * rejects the request. No model is called.
 */
import { useId, useState } from 'react';
import type { ServerRequestView } from '../../../../shared/serverRequests.js';
import type { PendingServerRequest } from '../../state/slices/serverRequestsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Icon } from '../components/Icon.js';
import { ContentBlock } from '../components/ResultView.js';

type SamplingView = Extract<ServerRequestView, { kind: 'sampling' }>;

/** What is reported as the model when a person wrote the response. */
const DEFAULT_MODEL = 'human';

function percent(value: number | undefined): string | undefined {
  return value === undefined ? undefined : `${Math.round(value * 100)}%`;
}

function Request({ view }: { view: SamplingView }) {
  const prefs = view.modelPreferences;
  const hints = prefs?.hints?.map((h) => h.name).filter((n): n is string => !!n) ?? [];
  const priorities = [
    ['cost', percent(prefs?.costPriority)],
    ['speed', percent(prefs?.speedPriority)],
    ['intelligence', percent(prefs?.intelligencePriority)],
  ].filter(([, v]) => v !== undefined);
  return (
    <>
      <dl className="props ask-sampling-props">
        <dt>Max tokens</dt>
        <dd>{view.maxTokens}</dd>
        {view.temperature !== undefined && (
          <>
            <dt>Temperature</dt>
            <dd>{view.temperature}</dd>
          </>
        )}
        {hints.length > 0 && (
          <>
            <dt>Model hints</dt>
            <dd>{hints.join(', ')}</dd>
          </>
        )}
        {priorities.length > 0 && (
          <>
            <dt>Priorities</dt>
            <dd>{priorities.map(([k, v]) => `${k} ${v}`).join(' · ')}</dd>
          </>
        )}
        {view.stopSequences && view.stopSequences.length > 0 && (
          <>
            <dt>Stop sequences</dt>
            <dd>{view.stopSequences.map((s) => JSON.stringify(s)).join(', ')}</dd>
          </>
        )}
        {view.includeContext && view.includeContext !== 'none' && (
          <>
            <dt>Context</dt>
            <dd>
              Asked to include context from {view.includeContext === 'thisServer' ? 'this server' : 'all servers'}; none
              is included.
            </dd>
          </>
        )}
      </dl>
      {view.systemPrompt !== undefined && (
        <section className="ask-sampling-message" aria-label="System prompt">
          <h3 className="ask-role">System prompt</h3>
          <pre className="ask-pre">{view.systemPrompt}</pre>
        </section>
      )}
      {view.messages.map((message, i) => (
        <section
          key={i}
          className={`ask-sampling-message role-${message.role}`}
          aria-label={`Message ${i + 1} (${message.role})`}
        >
          <h3 className="ask-role">{message.role === 'user' ? 'User' : 'Assistant'}</h3>
          {message.content.map((block, j) => (
            <ContentBlock key={j} block={block} />
          ))}
        </section>
      ))}
    </>
  );
}

export function SamplingServerRequest({ pending, view }: { pending: PendingServerRequest; view: SamplingView }) {
  const answer = useAppStore((s) => s.answerServerRequest);
  const [text, setText] = useState('');
  const [model, setModel] = useState(DEFAULT_MODEL);
  const id = useId();
  const busy = pending.answering !== undefined;
  const ready = text.trim() !== '' && model.trim() !== '';
  return (
    <>
      <div className="dialog-body ask-body">
        <Request view={view} />
        <div className="field">
          <label className="field-label" htmlFor={`${id}-response`}>
            Response
          </label>
          <textarea
            id={`${id}-response`}
            className="input"
            rows={5}
            value={text}
            disabled={busy}
            onChange={(e) => setText(e.target.value)}
          />
          <p className="field-hint">Sent back as the model’s answer (text), with the stop reason “endTurn”.</p>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-model`}>
            Model name
          </label>
          <input
            id={`${id}-model`}
            className="input mono"
            value={model}
            disabled={busy}
            onChange={(e) => setModel(e.target.value)}
          />
          <p className="field-hint">What the server is told produced the response.</p>
        </div>
      </div>
      <footer className="dialog-footer">
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy}
          onClick={() => void answer(view.requestId, { action: 'reject' })}
        >
          Reject
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy || !ready}
          onClick={() => void answer(view.requestId, { action: 'respond', text, model: model.trim() })}
        >
          <Icon name="check" size={14} />
          Send response
        </button>
      </footer>
    </>
  );
}
