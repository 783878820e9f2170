/**
 * The Prompts tab: a server's prompts (kept current by 'prompts.changed') and the chosen one's
 * form — its arguments, completed by the server while typed, the required ones checked before
 * anything is sent — and the messages it gives (each get is a trace).
 */
import { useEffect, useRef, useState } from 'react';
import type { ErrorShape, PromptResultView, PromptView, ServerView } from '../../../../../shared/contract.js';
import { formatTime } from '../../../lib/format.js';
import { countOf } from '../../../lib/plural.js';
import type { DetailEntry } from '../../../state/slices/serversSlice.js';
import { useAppStore } from '../../../state/useAppStore.js';
import { Spinner } from '../../components/Spinner.js';
import { CallErrorView } from '../../components/CallErrorView.js';
import { TraceButton } from '../../components/ResultView.js';
import { ArgumentFields, filledValues } from './ArgumentFields.js';
import { FeatureGate, FeatureListView, errorShapeOf } from './FeatureGate.js';
import { PromptMessages } from './PromptMessages.js';

type GetState =
  | { status: 'idle' }
  | { status: 'getting' }
  | { status: 'done'; result: PromptResultView; at: number }
  | { status: 'failed'; error: ErrorShape };

export function ServerPrompts({
  view,
  detail,
  serverId,
}: {
  view: ServerView;
  detail: DetailEntry | undefined;
  serverId: string;
}) {
  return (
    <FeatureGate view={view} detail={detail} capability="prompts" noun="prompts" icon="terminal">
      {(capabilities) => <PromptBrowser serverId={serverId} canComplete={Boolean(capabilities.completions)} />}
    </FeatureGate>
  );
}

function PromptBrowser({ serverId, canComplete }: { serverId: string; canComplete: boolean }) {
  const entry = useAppStore((s) => s.promptLists[serverId]);
  const load = useAppStore((s) => s.loadPrompts);
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const [filter, setFilter] = useState('');

  useEffect(() => {
    void load(serverId);
  }, [serverId, load]);

  return (
    <FeatureListView
      serverId={serverId}
      entry={entry}
      noun="prompts"
      reload={() => void load(serverId, true)}
      filter={filter}
      onFilter={setFilter}
      count={(data) => countOf(data.prompts.length, 'prompt', 'prompts')}
      cutText="The server lists more prompts than the app keeps; the rest is not shown."
      listLabel="Prompts"
      render={(data) => {
        const needle = filter.trim().toLowerCase();
        const prompts = needle
          ? data.prompts.filter((p) =>
              `${p.name} ${p.title ?? ''} ${p.description ?? ''}`.toLowerCase().includes(needle),
            )
          : data.prompts;
        const prompt = data.prompts.find((p) => p.name === chosen);
        return {
          list:
            prompts.length === 0 ? (
              <p className="muted">{needle ? `Nothing matches “${filter}”.` : 'This server lists no prompts.'}</p>
            ) : (
              <ul className="feature-items" aria-label="Prompt list">
                {prompts.map((p) => (
                  <li key={p.name}>
                    <button
                      type="button"
                      className="feature-item"
                      data-prompt={p.name}
                      aria-pressed={p.name === chosen}
                      onClick={() => setChosen(p.name)}
                    >
                      <span className="feature-item-name">{p.title ?? p.name}</span>
                      <code className="feature-item-uri">{p.name}</code>
                      {p.arguments.length > 0 && (
                        <span className="feature-item-facts muted">
                          {countOf(p.arguments.length, 'argument', 'arguments')}
                        </span>
                      )}
                    </button>
                  </li>
                ))}
              </ul>
            ),
          panel: prompt ? (
            <PromptPanel key={prompt.name} serverId={serverId} prompt={prompt} canComplete={canComplete} />
          ) : (
            <p className="muted feature-placeholder">Choose a prompt to fill in its arguments and get it.</p>
          ),
        };
      }}
    />
  );
}

function PromptPanel({
  serverId,
  prompt,
  canComplete,
}: {
  serverId: string;
  prompt: PromptView;
  canComplete: boolean;
}) {
  const getPrompt = useAppStore((s) => s.getPrompt);
  const [values, setValues] = useState<Record<string, string>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [state, setState] = useState<GetState>({ status: 'idle' });
  const sequence = useRef(0);

  async function get(): Promise<void> {
    const empty = prompt.arguments.filter((a) => a.required && !values[a.name]).map((a) => a.name);
    setMissing(empty);
    if (empty.length > 0) return; // nothing is sent with a required argument left empty
    const mine = ++sequence.current;
    setState({ status: 'getting' });
    try {
      const result = await getPrompt({ serverId, name: prompt.name, arguments: filledValues(values) });
      if (mine === sequence.current) setState({ status: 'done', result, at: Date.now() });
    } catch (error) {
      if (mine === sequence.current) setState({ status: 'failed', error: errorShapeOf(error) });
    }
  }

  return (
    <section className="feature-detail" aria-label={`Prompt ${prompt.name}`}>
      <header className="feature-detail-head">
        <h3 className="feature-detail-title">{prompt.title ?? prompt.name}</h3>
        {prompt.title && <code className="result-uri">{prompt.name}</code>}
        {prompt.description && <p className="tool-description">{prompt.description}</p>}
      </header>
      <form
        className="feature-form"
        aria-label="Prompt arguments"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void get();
        }}
      >
        {prompt.arguments.length > 0 ? (
          <ArgumentFields
            serverId={serverId}
            target={{ type: 'prompt', name: prompt.name }}
            fields={prompt.arguments}
            values={values}
            onChange={(name, value) => {
              setValues((current) => ({ ...current, [name]: value }));
              setMissing((current) => current.filter((m) => m !== name));
            }}
            canComplete={canComplete}
            missing={missing}
          />
        ) : (
          <p className="muted">This prompt takes no arguments.</p>
        )}
        <div className="detail-actions">
          <button type="submit" className="btn btn-primary" disabled={state.status === 'getting'}>
            Get prompt
          </button>
        </div>
      </form>
      {state.status === 'getting' && (
        <div className="loading-block">
          <Spinner label="Getting the prompt" /> Getting the prompt…
        </div>
      )}
      {state.status === 'failed' && <CallErrorView error={state.error} serverId={serverId} />}
      {state.status === 'done' && (
        <section className="result result-ok" aria-label="Prompt messages">
          <header className="result-head">
            <span className="badge status-ready">
              <span className="status-dot" aria-hidden="true" />
              Got at {formatTime(state.at)}
            </span>
            <span className="result-head-actions">
              <TraceButton traceId={state.result.traceId} />
            </span>
          </header>
          <PromptMessages result={state.result} />
        </section>
      )}
    </section>
  );
}
