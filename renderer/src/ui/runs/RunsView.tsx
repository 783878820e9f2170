/**
 * Agent runs: the person's own model working with their servers. Choose a model (Settings →
 * Models), the servers it may use and its limits (tool calls, tokens), give it a task; its
 * text streams in with the limits used so far ("7 / 25 calls"), each tool call shows
 * as a card (every call goes through permissions and the approval dialog, which names the run);
 * Stop cancels it; an interrupted, stopped or failed run can be resumed from where it stopped.
 */
import { useEffect, useState } from 'react';
import type { RunDetail, RunView } from '../../../../shared/contract/runs.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { useAppStore } from '../../state/useAppStore.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { ToolCallCard } from './ToolCallCard.js';

/** The defaults main applies (runs/types.ts DEFAULT_RUN_LIMITS), shown in the fields. */
const DEFAULT_MAX_TOOL_CALLS = 25;
const DEFAULT_TOKEN_BUDGET = 200_000;
const NUMBER = new Intl.NumberFormat('en-US');

/** The limit fields as the request's numbers, or undefined when one is out of range (the contract's bounds). */
function limitsOf(
  maxToolCalls: string,
  tokenBudget: string,
): { maxToolCalls: number; tokenBudget: number } | undefined {
  const calls = Number(maxToolCalls);
  const tokens = Number(tokenBudget);
  if (!Number.isInteger(calls) || calls < 1 || calls > 1000) return undefined;
  if (!Number.isInteger(tokens) || tokens < 1000 || tokens > 100_000_000) return undefined;
  return { maxToolCalls: calls, tokenBudget: tokens };
}

const RESUMABLE = new Set<RunView['status']>(['interrupted', 'stopped', 'failed', 'needs_resolution', 'limit_reached']);
const STATUS_WORDS: Record<RunView['status'], string> = {
  running: 'Running',
  completed: 'Completed',
  stopped: 'Stopped',
  failed: 'Failed',
  interrupted: 'Interrupted',
  needs_resolution: 'Needs resolution',
  limit_reached: 'Limit reached',
};

function StartForm() {
  const models = useAppStore((s) => s.models);
  const servers = useAppStore((s) => s.servers);
  const startRun = useAppStore((s) => s.startRun);
  const [modelId, setModelId] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [prompt, setPrompt] = useState('');
  const [maxToolCalls, setMaxToolCalls] = useState(String(DEFAULT_MAX_TOOL_CALLS));
  const [tokenBudget, setTokenBudget] = useState(String(DEFAULT_TOKEN_BUDGET));
  const limits = limitsOf(maxToolCalls, tokenBudget);
  const model = modelId || models[0]?.id || '';
  if (!models.length) return <p className="muted">Add a model in Settings → Models to start a run.</p>;
  return (
    <form
      className="card run-start"
      aria-label="Start a run"
      onSubmit={(e) => {
        e.preventDefault();
        if (!limits) return;
        void startRun({
          modelId: model,
          visibility: { allServers: false, serverIds: chosen, localTools: false },
          prompt,
          ...limits,
        }).then(() => setPrompt(''));
      }}
    >
      <label className="field">
        <span className="field-label">Model</span>
        <select className="input" value={model} onChange={(e) => setModelId(e.target.value)}>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name} ({m.model})
            </option>
          ))}
        </select>
      </label>
      <fieldset className="field">
        <legend className="field-label">Servers it may use</legend>
        {servers.map((server) => {
          const id = serverIdOf(server);
          return (
            <label key={id} className="checkbox-field">
              <input
                type="checkbox"
                checked={chosen.includes(id)}
                onChange={(e) => setChosen(e.target.checked ? [...chosen, id] : chosen.filter((other) => other !== id))}
              />
              <span>{serverNameOf(server)}</span>
            </label>
          );
        })}
      </fieldset>
      <label className="field">
        <span className="field-label">Task</span>
        <textarea
          className="input"
          rows={3}
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
          aria-label="Task for the model"
        />
      </label>
      <div className="run-limits-fields">
        <label className="field">
          <span className="field-label">Max tool calls</span>
          <input
            className="input"
            type="number"
            min={1}
            max={1000}
            step={1}
            value={maxToolCalls}
            onChange={(e) => setMaxToolCalls(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Max tokens (the whole run)</span>
          <input
            className="input"
            type="number"
            min={1000}
            max={100_000_000}
            step={1000}
            value={tokenBudget}
            onChange={(e) => setTokenBudget(e.target.value)}
          />
        </label>
      </div>
      {!limits && (
        <p className="field-error" role="alert">
          Max tool calls: a whole number from 1 to 1000. Max tokens: a whole number from 1,000 to 100,000,000.
        </p>
      )}
      <button type="submit" className="btn btn-primary" disabled={!prompt.trim() || !limits}>
        Start run
      </button>
    </form>
  );
}

function Conversation({ detail, liveText }: { detail: RunDetail; liveText: string }) {
  const calls = new Map(detail.toolCalls.map((call) => [call.callId, call]));
  return (
    <div className="run-conversation" data-testid="run-conversation">
      {detail.messages.map((message, i) =>
        message.role === 'user' ? (
          <p key={i} className="run-user">
            <strong>You:</strong> {message.text}
          </p>
        ) : message.role === 'assistant' ? (
          <div key={i} className="run-assistant">
            {message.text && <p data-testid="run-assistant-text">{message.text}</p>}
            {message.callIds.map((id) => {
              const call = calls.get(id);
              return call ? <ToolCallCard key={id} call={call} /> : null;
            })}
          </div>
        ) : null,
      )}
      {liveText && (
        <p className="run-live" data-testid="run-live-text" aria-live="polite">
          {liveText}
        </p>
      )}
    </div>
  );
}

/** The run as a JSON file: its settings, counters and whole conversation with every tool call (no key is ever part of a run). */
function exportRun(detail: RunDetail): void {
  const blob = new Blob([JSON.stringify(detail, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `run-${detail.run.id}.json`;
  link.click();
  URL.revokeObjectURL(url);
}

function OpenRun() {
  const detail = useAppStore((s) => s.openRun);
  const liveText = useAppStore((s) => s.liveText);
  const stopRun = useAppStore((s) => s.stopRun);
  const resumeRun = useAppStore((s) => s.resumeRun);
  const deleteRun = useAppStore((s) => s.deleteRun);
  const serverWait = useAppStore((s) => (detail ? s.serverWaits[detail.run.id] : undefined));
  if (!detail) return null;
  const { run } = detail;
  return (
    <section className="card run-open" aria-label={`Run ${run.caller}`}>
      <header className="run-open-head">
        <h2 className="card-title">{run.title}</h2>
        <span className="badge" data-testid="run-status">
          {STATUS_WORDS[run.status]}
        </span>
        <span className="muted" data-testid="run-limits">
          {run.toolCalls} / {run.maxToolCalls} calls · {NUMBER.format(run.inputTokens + run.outputTokens)} /{' '}
          {NUMBER.format(run.tokenBudget)} tokens
        </span>
        {run.status === 'running' && (
          <button type="button" className="btn btn-small" onClick={() => void stopRun(run.id)}>
            Stop
          </button>
        )}
        {RESUMABLE.has(run.status) && (
          <button type="button" className="btn btn-small" onClick={() => void resumeRun(run.id)}>
            Resume
          </button>
        )}
        <button type="button" className="btn btn-small" onClick={() => exportRun(detail)}>
          Export JSON
        </button>
        {run.status !== 'running' && (
          <button type="button" className="btn btn-small btn-danger-ghost" onClick={() => void deleteRun(run.id)}>
            Delete
          </button>
        )}
      </header>
      {run.status === 'running' && serverWait && (
        <p className="status-line" role="status" data-testid="run-server-wait">
          Waiting for {serverWait.serverIds.length === 1 ? 'the server' : 'the servers'}{' '}
          {serverWait.serverIds.map((id) => `“${id}”`).join(', ')} to be ready
          {serverWait.timeoutMs !== undefined ? ` (up to ${Math.round(serverWait.timeoutMs / 1000)} s)` : ''}: they are
          still connecting. The model is asked once they are ready or have failed.
        </p>
      )}
      {run.outcome && <p className="muted">{run.outcome.message}</p>}
      <Conversation detail={detail} liveText={liveText} />
    </section>
  );
}

export function RunsView() {
  const runs = useAppStore((s) => s.runsList);
  const openRunId = useAppStore((s) => s.openRunId);
  const openRunById = useAppStore((s) => s.openRunById);
  const error = useAppStore((s) => s.runsError);
  const loadModels = useAppStore((s) => s.loadModels);
  // Models may have been added elsewhere (another window, the API) since the page loaded.
  useEffect(() => void loadModels(), [loadModels]);
  return (
    <section className="view" aria-labelledby="view-title">
      <ViewHeader
        title="Agent runs"
        subtitle="Your own model, using your servers — every call through permissions and approvals"
      />
      <div className="view-body view-body-narrow">
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <StartForm />
        <OpenRun />
        <section className="card" aria-label="Runs">
          <h2 className="card-title">Runs</h2>
          <ul className="run-list">
            {runs.map((run) => (
              <li key={run.id} data-testid="run-row" aria-current={run.id === openRunId}>
                <button type="button" className="btn btn-small" onClick={() => void openRunById(run.id)}>
                  {run.title}
                </button>{' '}
                <span className="badge">{STATUS_WORDS[run.status]}</span> <span className="muted">{run.modelName}</span>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </section>
  );
}
