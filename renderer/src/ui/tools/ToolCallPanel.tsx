/**
 * One tool, ready to call: what it is (server, description, annotations, name conflict, its
 * permission level), its arguments as a generated form or raw JSON, Run — and the last call's
 * progress, result or error. The call runs through the whole pipeline; an ASK tool opens the
 * approval dialog before anything runs.
 */
import { PoisonFlags } from '../components/PoisonFlags.js';
import { ToolChangedDiff } from '../components/ToolChangedDiff.js';
import { useEffect, useRef, useState } from 'react';
import type { ToolView } from '../../../../shared/contract.js';
import { toolKeyOf } from '../../state/slices/toolsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import type { AppStore } from '../../state/types.js';
import { Icon } from '../components/Icon.js';
import { SchemaView } from '../components/SchemaView.js';
import { Tabs } from '../components/Tabs.js';
import { LevelBadge } from '../components/LevelBadge.js';
import { annotationChips, toolTitle } from '../../lib/annotations.js';
import { ArgsJsonEditor, ArgsSchemaForm, hasParameters, parseArgs } from '../components/argsForm/ArgsForm.js';
import { CallErrorView } from '../components/CallErrorView.js';
import { ResultView } from '../components/ResultView.js';
import { RunProgress } from './RunProgress.js';
import { SandboxNote } from '../components/SandboxNote.js';
import { ToolIcon } from '../components/ToolIcon.js';
import { useServerLabel } from '../components/serverLabel.js';
import { AppFrame } from '../components/apps/AppFrame.js';
import { hasApp } from '../components/apps/toolApp.js';

type Mode = 'form' | 'json' | 'schema';

const NO_ARGS: Record<string, unknown> = {};

function PermissionLine({ tool }: { tool: ToolView }) {
  const entry = useAppStore((s) =>
    s.permissions?.tools.find((t) => t.serverId === tool.serverId && t.toolName === tool.name),
  );
  const openPermissionsFor = useAppStore((s) => s.openPermissionsFor);
  if (!entry) return null;
  return (
    <p className="tool-permission" data-reason={entry.reason.kind}>
      <LevelBadge level={entry.level} />
      <span className="tool-permission-reason">{entry.reason.detail}.</span>
      <button
        type="button"
        className="btn btn-small btn-ghost"
        onClick={() => openPermissionsFor(tool.serverId, tool.name)}
      >
        Change
      </button>
    </p>
  );
}

/** The fields main refused (the tool's input schema), beside the form; `''` is the whole object. */
function ArgumentErrors({ errors }: { errors: Record<string, string[]> }) {
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  return (
    <div role="alert">
      <ul className="plain-list arg-errors field-error" aria-label="Argument errors">
        {entries.map(([field, messages]) => (
          <li key={field} data-field={field}>
            <code>{field || 'arguments'}</code> {messages.join('; ')}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** What the tool is: name, server, description, annotations, a name conflict, its permission and flags. */
function ToolHeader({ tool }: { tool: ToolView }) {
  const serverLabel = useServerLabel(tool.serverId);
  const chips = annotationChips(tool.annotations);
  const title = toolTitle(tool);
  return (
    <header className="call-head">
      <div className="call-title-row">
        <ToolIcon icons={tool.icons} size={24} />
        <h2 className="call-title">
          <code>{tool.name}</code>
        </h2>
        {title && <span className="tool-title">{title}</span>}
        <span
          className="chip server-chip"
          title={tool.serverId === 'local' ? 'A local tool of this app' : `Server ${tool.serverId}`}
        >
          <Icon name={tool.serverId === 'local' ? 'terminal' : 'servers'} size={12} />
          {serverLabel}
        </span>
      </div>
      {tool.description && <p className="tool-description">{tool.description}</p>}
      {chips.length > 0 && (
        <ul className="chips" aria-label="Annotations">
          {chips.map((chip) => (
            <li key={chip.label} className={`chip chip-${chip.tone}`} title={chip.title}>
              {chip.label}
            </li>
          ))}
        </ul>
      )}
      {tool.shadowedBy && (
        <p className="tool-shadowed">
          <strong>Name conflict:</strong> a call by the name <code>{tool.name}</code> reaches{' '}
          <code>{tool.shadowedBy}</code>, which has a higher priority. Run here calls this server’s tool directly.
        </p>
      )}
      <PermissionLine tool={tool} />
      <SandboxNote toolName={tool.name} serverId={tool.serverId} />
      {tool.flags && <PoisonFlags flags={tool.flags} />}
      {tool.pin?.change && <ToolChangedDiff change={tool.pin.change} />}
    </header>
  );
}

function SchemaTab({ tool }: { tool: ToolView }) {
  return (
    <div className="call-schemas">
      <SchemaView schema={tool.inputSchema} label={`Input parameters of ${tool.name}`} />
      {tool.outputSchema && (
        <>
          <h3 className="card-title">Output</h3>
          <SchemaView schema={tool.outputSchema} label={`Output fields of ${tool.name}`} />
        </>
      )}
    </div>
  );
}

/** The last call's progress, result or error (scrolled into view as it changes), and the tool's app. */
function CallOutcomePane({
  tool,
  run,
  runArgs,
}: {
  tool: ToolView;
  run: AppStore['toolRuns'][string] | undefined;
  runArgs: Record<string, unknown> | undefined;
}) {
  const outcomeRef = useRef<HTMLDivElement>(null);
  const runState = run ? `${run.callId}:${run.status}` : undefined;

  // A new call's progress, then its result, come into view (the form may be long).
  useEffect(() => {
    if (runState) outcomeRef.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [runState]);
  return (
    <div className="call-outcome" aria-live="polite" ref={outcomeRef}>
      {run?.status === 'running' && <RunProgress tool={tool} run={run} />}
      {run?.status === 'done' && <ResultView outcome={run.outcome} durationMs={run.finishedAt - run.startedAt} />}
      {run?.status === 'failed' && <CallErrorView error={run.error} serverId={tool.serverId} toolName={tool.name} />}
      {run && hasApp(tool) && (
        <AppFrame
          key={toolKeyOf(tool)}
          tool={tool}
          input={runArgs}
          result={run.status === 'done' ? run.outcome.result : undefined}
          cancelledReason={run.status === 'failed' ? run.error.message : undefined}
          forCall={{ callId: run.callId }}
          testId="call-app"
        />
      )}
    </div>
  );
}

function RunBar({ tool, running, onRun }: { tool: ToolView; running: boolean; onRun: () => void }) {
  return (
    <div className="call-actions">
      <button type="button" className="btn btn-primary" onClick={onRun} disabled={running}>
        <Icon name="chevronRight" size={16} />
        Run
      </button>
      <span className="call-actions-note muted">
        {hasParameters(tool.inputSchema)
          ? 'The arguments are checked against the tool’s schema before anything runs. '
          : ''}
        Each run is a new call with its own checkpoint and trace.
      </span>
    </div>
  );
}

export function ToolCallPanel({ tool }: { tool: ToolView }) {
  const key = toolKeyOf(tool);
  const draft = useAppStore((s) => s.toolDrafts[key]) ?? NO_ARGS;
  const setDraft = useAppStore((s) => s.setToolDraft);
  const run = useAppStore((s) => s.toolRuns[key]);
  const runTool = useAppStore((s) => s.runTool);
  const [mode, setMode] = useState<Mode>('form');
  const [rawText, setRawText] = useState('');
  const [rawError, setRawError] = useState<string | undefined>();
  // The arguments of the last Run here: the tool's app (MCP Apps) gets them as the tool input.
  const [runArgs, setRunArgs] = useState<Record<string, unknown> | undefined>();

  const running = run?.status === 'running';

  function changeMode(next: Mode): void {
    if (next === mode) return;
    if (mode === 'json') {
      // Leaving the JSON tab keeps its arguments, so both tabs edit the same call.
      const parsed = parseArgs(rawText);
      if (!parsed.ok) {
        setRawError(`${parsed.message} Fix it or clear it before switching.`);
        return;
      }
      setDraft(key, parsed.value);
    }
    if (next === 'json') {
      setRawText(JSON.stringify(draft, null, 2));
      setRawError(undefined);
    }
    setMode(next);
  }

  function runNow(): void {
    if (running) return;
    let args = draft;
    if (mode === 'json') {
      const parsed = parseArgs(rawText);
      if (!parsed.ok) {
        setRawError(parsed.message);
        return;
      }
      args = parsed.value;
      setDraft(key, args);
    }
    setRunArgs(args);
    void runTool(tool, args);
  }

  return (
    <section className="call-panel" aria-label={`Call ${tool.name}`}>
      <ToolHeader tool={tool} />

      {/* Not a <form>: the generated form is one of its own (Enter in a field runs the call). */}
      <div className="call-args">
        <Tabs
          label="Arguments"
          active={mode}
          onChange={changeMode}
          tabs={[
            { key: 'form', label: 'Form' },
            { key: 'json', label: 'Raw JSON' },
            { key: 'schema', label: 'Schema' },
          ]}
        >
          {mode === 'form' && (
            <ArgsSchemaForm
              schema={tool.inputSchema}
              value={draft}
              disabled={running}
              onChange={(value) => setDraft(key, value)}
              onSubmit={runNow}
              onCannotRender={() => changeMode('json')}
            />
          )}
          {mode === 'json' && (
            <ArgsJsonEditor
              text={rawText}
              error={rawError}
              disabled={running}
              onChange={(text) => {
                setRawText(text);
                if (rawError) setRawError(undefined);
              }}
              onSubmit={runNow}
            />
          )}
          {mode === 'schema' && <SchemaTab tool={tool} />}
        </Tabs>
        {run?.status === 'failed' && run.error.code === 'invalid_arguments' && (
          <ArgumentErrors errors={run.error.details?.fieldErrors ?? {}} />
        )}
        <RunBar tool={tool} running={running} onRun={runNow} />
      </div>

      <CallOutcomePane tool={tool} run={run} runArgs={runArgs} />
    </section>
  );
}
