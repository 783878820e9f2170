/**
 * The Resources tab: a server's resources and resource templates (kept current by
 * 'resources.changed'), and the chosen one's panel — a resource is read when chosen (each read
 * is a trace) and can be subscribed to; a template is a form whose variables the server
 * completes, read into the URI it expands to.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type {
  ErrorShape,
  RequestOf,
  ResourceListView,
  ResourceReadView,
  ResourceTemplateView,
  ResourceView,
  ServerView,
} from '../../../../../shared/contract.js';
import { formatBytes, formatTime } from '../../../lib/format.js';
import { countOf } from '../../../lib/plural.js';
import { optionalTemplateVariables } from '../../../lib/uriTemplate.js';
import type { DetailEntry } from '../../../state/slices/serversSlice.js';
import { useAppStore } from '../../../state/useAppStore.js';
import { Callout } from '../../components/Callout.js';
import { Icon } from '../../components/Icon.js';
import { Spinner } from '../../components/Spinner.js';
import { CallErrorView } from '../../components/CallErrorView.js';
import { TraceButton } from '../../components/ResultView.js';
import { ArgumentFields } from './ArgumentFields.js';
import { FeatureGate, FeatureListView, errorShapeOf } from './FeatureGate.js';
import { ResourceContents } from './ResourceContents.js';

type Selection = { kind: 'resource'; uri: string } | { kind: 'template'; uriTemplate: string };

type ReadState =
  | { status: 'idle' }
  | { status: 'reading' }
  | { status: 'done'; view: ResourceReadView; at: number }
  | { status: 'failed'; error: ErrorShape };

function matches(needle: string, ...texts: Array<string | undefined>): boolean {
  return !needle || texts.some((t) => t?.toLowerCase().includes(needle));
}

export function ServerResources({
  view,
  detail,
  serverId,
}: {
  view: ServerView;
  detail: DetailEntry | undefined;
  serverId: string;
}) {
  return (
    <FeatureGate view={view} detail={detail} capability="resources" noun="resources" icon="globe">
      {(capabilities) => <ResourceBrowser serverId={serverId} canComplete={Boolean(capabilities.completions)} />}
    </FeatureGate>
  );
}

function ResourceBrowser({ serverId, canComplete }: { serverId: string; canComplete: boolean }) {
  const entry = useAppStore((s) => s.resourceLists[serverId]);
  const load = useAppStore((s) => s.loadResources);
  const [selection, setSelection] = useState<Selection | undefined>(undefined);
  const [filter, setFilter] = useState('');
  const reading = useRead();

  useEffect(() => {
    void load(serverId);
  }, [serverId, load]);

  /** Choosing a resource reads it (each read is a trace); choosing a template opens its form. */
  function choose(next: Selection): void {
    setSelection(next);
    if (next.kind === 'resource') void reading.read({ serverId, uri: next.uri });
    else reading.reset();
  }

  return (
    <FeatureListView
      serverId={serverId}
      entry={entry}
      noun="resources"
      reload={() => void load(serverId, true)}
      filter={filter}
      onFilter={setFilter}
      count={(data) =>
        `${countOf(data.resources.length, 'resource', 'resources')} · ${countOf(data.templates.length, 'template', 'templates')}`
      }
      cutText="The server lists more than the app keeps; the rest is not shown. A template or the exact URI still reaches them."
      listLabel="Resources and templates"
      render={(data) => {
        const needle = filter.trim().toLowerCase();
        const resources = data.resources.filter((r) => matches(needle, r.name, r.title, r.uri, r.description));
        const templates = data.templates.filter((t) => matches(needle, t.name, t.title, t.uriTemplate, t.description));
        const chosenResource =
          selection?.kind === 'resource' ? data.resources.find((r) => r.uri === selection.uri) : undefined;
        const chosenTemplate =
          selection?.kind === 'template'
            ? data.templates.find((t) => t.uriTemplate === selection.uriTemplate)
            : undefined;
        return {
          list: (
            <>
              <ResourceList
                serverId={serverId}
                resources={resources}
                data={data}
                selection={selection}
                onSelect={choose}
              />
              {templates.length > 0 && (
                <>
                  <h3 className="result-kind feature-list-title">Templates</h3>
                  <ul className="feature-items" aria-label="Resource templates">
                    {templates.map((t) => (
                      <li key={t.uriTemplate}>
                        <button
                          type="button"
                          className="feature-item"
                          aria-pressed={selection?.kind === 'template' && selection.uriTemplate === t.uriTemplate}
                          onClick={() => choose({ kind: 'template', uriTemplate: t.uriTemplate })}
                        >
                          <span className="feature-item-name">{t.title ?? t.name}</span>
                          <code className="feature-item-uri">{t.uriTemplate}</code>
                        </button>
                      </li>
                    ))}
                  </ul>
                </>
              )}
              {resources.length === 0 && templates.length === 0 && (
                <p className="muted">{needle ? `Nothing matches “${filter}”.` : 'This server lists no resources.'}</p>
              )}
            </>
          ),
          panel: chosenResource ? (
            <ResourcePanel
              key={chosenResource.uri}
              serverId={serverId}
              resource={chosenResource}
              canSubscribe={data.canSubscribe}
              subscribed={data.subscribed.includes(chosenResource.uri)}
              state={reading.state}
              read={reading.read}
            />
          ) : chosenTemplate ? (
            <TemplatePanel
              key={chosenTemplate.uriTemplate}
              serverId={serverId}
              template={chosenTemplate}
              canComplete={canComplete}
            />
          ) : (
            <p className="muted feature-placeholder">Choose a resource to read it, or a template to fill in.</p>
          ),
        };
      }}
    />
  );
}

function ResourceList({
  serverId,
  resources,
  data,
  selection,
  onSelect,
}: {
  serverId: string;
  resources: ResourceView[];
  data: ResourceListView;
  selection: Selection | undefined;
  onSelect: (selection: Selection) => void;
}) {
  const updates = useAppStore((s) => s.resourceUpdates[serverId]);
  if (resources.length === 0) return null;
  return (
    <ul className="feature-items" aria-label="Resources">
      {resources.map((r) => {
        const subscribed = data.subscribed.includes(r.uri);
        const updatedAt = updates?.[r.uri];
        return (
          <li key={r.uri}>
            <button
              type="button"
              className="feature-item"
              data-uri={r.uri}
              aria-pressed={selection?.kind === 'resource' && selection.uri === r.uri}
              onClick={() => onSelect({ kind: 'resource', uri: r.uri })}
            >
              <span className="feature-item-name">{r.title ?? r.name}</span>
              <code className="feature-item-uri">{r.uri}</code>
              <span className="feature-item-facts">
                {r.mimeType && <span className="muted">{r.mimeType}</span>}
                {r.size !== undefined && <span className="muted">{formatBytes(r.size)}</span>}
                {subscribed && <span className="chip chip-positive">subscribed</span>}
                {updatedAt !== undefined && <span className="chip chip-warning">updated {formatTime(updatedAt)}</span>}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** What was read, with its trace; or why the read failed. */
function ReadOutcome({ state, serverId }: { state: ReadState; serverId: string }) {
  if (state.status === 'reading') {
    return (
      <div className="loading-block">
        <Spinner label="Reading" /> Reading…
      </div>
    );
  }
  if (state.status === 'failed') return <CallErrorView error={state.error} serverId={serverId} />;
  if (state.status !== 'done') return null;
  return (
    <section className="result result-ok" aria-label="Contents">
      <header className="result-head">
        <span className="badge status-ready">
          <span className="status-dot" aria-hidden="true" />
          Read at {formatTime(state.at)}
        </span>
        <code className="result-uri">{state.view.uri}</code>
        <span className="result-head-actions">
          <TraceButton traceId={state.view.traceId} />
        </span>
      </header>
      <ResourceContents contents={state.view.contents} />
    </section>
  );
}

/** One read at a time: a newer read replaces an older one that has not answered yet. */
function useRead(): {
  state: ReadState;
  read: (request: RequestOf<'resources.read'>) => Promise<void>;
  reset: () => void;
} {
  const readResource = useAppStore((s) => s.readResource);
  const [state, setState] = useState<ReadState>({ status: 'idle' });
  const sequence = useRef(0);
  async function read(request: RequestOf<'resources.read'>): Promise<void> {
    const mine = ++sequence.current;
    setState({ status: 'reading' });
    try {
      const view = await readResource(request);
      if (mine === sequence.current) setState({ status: 'done', view, at: Date.now() });
    } catch (error) {
      if (mine === sequence.current) setState({ status: 'failed', error: errorShapeOf(error) });
    }
  }
  function reset(): void {
    sequence.current++;
    setState({ status: 'idle' });
  }
  return { state, read, reset };
}

function ResourcePanel({
  serverId,
  resource,
  canSubscribe,
  subscribed,
  state,
  read,
}: {
  serverId: string;
  resource: ResourceView;
  canSubscribe: boolean;
  subscribed: boolean;
  state: ReadState;
  read: (request: RequestOf<'resources.read'>) => Promise<void>;
}) {
  const setSubscribed = useAppStore((s) => s.setSubscribed);
  const updatedAt = useAppStore((s) => s.resourceUpdates[serverId]?.[resource.uri]);
  const [toggling, setToggling] = useState(false);
  const uri = resource.uri;

  const readAt = state.status === 'done' ? state.at : undefined;
  const changedSinceRead = updatedAt !== undefined && (readAt === undefined || updatedAt > readAt);

  return (
    <section className="feature-detail" aria-label={`Resource ${resource.name}`}>
      <header className="feature-detail-head">
        <h3 className="feature-detail-title">{resource.title ?? resource.name}</h3>
        <code className="result-uri">{uri}</code>
        {resource.description && <p className="tool-description">{resource.description}</p>}
        <div className="detail-actions">
          <button
            type="button"
            className="btn btn-small"
            onClick={() => void read({ serverId, uri })}
            disabled={state.status === 'reading'}
          >
            <Icon name="refresh" size={14} />
            Read again
          </button>
          {canSubscribe && subscribed && (
            <span className="chip chip-positive" role="status">
              <Icon name="check" size={12} /> Subscribed to updates
            </span>
          )}
          {canSubscribe && (
            <button
              type="button"
              className="btn btn-small btn-ghost"
              disabled={toggling}
              onClick={() => {
                setToggling(true);
                void setSubscribed(serverId, uri, !subscribed).finally(() => setToggling(false));
              }}
            >
              {subscribed ? 'Unsubscribe' : 'Subscribe to updates'}
            </button>
          )}
        </div>
      </header>
      {changedSinceRead && (
        <Callout
          tone="info"
          role="status"
          title="Changed on the server"
          actions={
            <button type="button" className="btn btn-small" onClick={() => void read({ serverId, uri })}>
              Read again
            </button>
          }
        >
          The server said this resource changed at {formatTime(updatedAt)}
          {readAt !== undefined ? ', after it was read here' : ''}.
        </Callout>
      )}
      <ReadOutcome state={state} serverId={serverId} />
    </section>
  );
}

function TemplatePanel({
  serverId,
  template,
  canComplete,
}: {
  serverId: string;
  template: ResourceTemplateView;
  canComplete: boolean;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const { state, read } = useRead();
  const optional = useMemo(() => optionalTemplateVariables(template.uriTemplate), [template.uriTemplate]);
  return (
    <section className="feature-detail" aria-label={`Template ${template.name}`}>
      <header className="feature-detail-head">
        <h3 className="feature-detail-title">{template.title ?? template.name}</h3>
        <code className="result-uri">{template.uriTemplate}</code>
        {template.description && <p className="tool-description">{template.description}</p>}
      </header>
      <form
        className="feature-form"
        aria-label="Template variables"
        // The form names the missing variables itself (as the prompt form does), not the browser's bubble.
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          // An empty variable would leave a hole in the URI: ask for it before anything is sent.
          const empty = template.variables.filter((name) => !optional.has(name) && (values[name] ?? '').trim() === '');
          setMissing(empty);
          if (empty.length === 0) void read({ serverId, uriTemplate: template.uriTemplate, variables: values });
        }}
      >
        {template.variables.length > 0 ? (
          <ArgumentFields
            serverId={serverId}
            target={{ type: 'resource', uriTemplate: template.uriTemplate }}
            fields={template.variables.map((name) => ({ name, required: !optional.has(name) }))}
            values={values}
            onChange={(name, value) => setValues((current) => ({ ...current, [name]: value }))}
            canComplete={canComplete}
            missing={missing}
          />
        ) : (
          <p className="muted">This template has no variables.</p>
        )}
        <div className="detail-actions">
          <button type="submit" className="btn btn-primary" disabled={state.status === 'reading'}>
            Read
          </button>
        </div>
      </form>
      <ReadOutcome state={state} serverId={serverId} />
    </section>
  );
}
