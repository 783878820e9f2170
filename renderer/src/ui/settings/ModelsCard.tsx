/**
 * Settings → Models: the person's own models for agent runs — Anthropic, OpenAI (Chat Completions
 * or the Responses API), or any OpenAI-compatible server by its base URL (Ollama, LM Studio,
 * llama.cpp, vLLM: no key). The key field is write-only: it is sent once, kept in the secret
 * store, and never shown again.
 *
 * Each field's problem is said at the field as a sentence (the shared checks main applies too)
 * and cleared when that field changes. Saving under a name in use asks "Replace the model named
 * …?" with both configurations side by side; nothing is replaced without that answer.
 */
import { useState } from 'react';
import type { RequestOf } from '../../../../shared/contract.js';
import type { ModelView } from '../../../../shared/contract/runs.js';
import { baseUrlProblem, modelNameProblem } from '../../../../shared/contract/runs.js';
import { BridgeError } from '../../bridge/errors.js';
import { messageOf } from '../../bridge/index.js';
import { useAppStore } from '../../state/useAppStore.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { Field, controlProps } from '../components/Field.js';

const KIND_WORDS: Record<ModelView['kind'], string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI-compatible',
  openai_responses: 'OpenAI Responses',
};
const KINDS = new Set<string>(Object.keys(KIND_WORDS));
type SaveModelRequest = RequestOf<'models.save'>;

type FieldName = 'name' | 'baseUrl' | 'model' | 'apiKey';
type Errors = Partial<Record<FieldName, string[]>>;

/** The id a name is saved under (what "the same model" means to main). */
export function modelIdOf(name: string): string {
  return (
    name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'model'
  );
}

/** The model a save would replace: the same id, or the same name in other letters' case. */
export function modelReplacedBy(models: ModelView[], name: string): ModelView | undefined {
  const id = modelIdOf(name);
  const wanted = name.trim().toLowerCase();
  return models.find((m) => m.id === id || m.name.trim().toLowerCase() === wanted);
}

function ModelSummary({
  kind,
  model,
  baseUrl,
  keyWords,
}: {
  kind: ModelView['kind'];
  model: string;
  baseUrl?: string | undefined;
  keyWords: string;
}) {
  return (
    <dl className="props">
      <dt>Provider</dt>
      <dd>{KIND_WORDS[kind]}</dd>
      <dt>Base URL</dt>
      <dd>{baseUrl ? <code>{baseUrl}</code> : 'the provider’s API'}</dd>
      <dt>Model</dt>
      <dd>
        <code>{model}</code>
      </dd>
      <dt>API key</dt>
      <dd>{keyWords}</dd>
    </dl>
  );
}

/** Each field's problem by the shared checks main applies too. */
function fieldProblems(name: string, kind: ModelView['kind'], baseUrl: string, model: string): Errors {
  const found: Errors = {};
  const nameProblem = modelNameProblem(name);
  if (nameProblem) found.name = [nameProblem];
  const urlProblem = baseUrlProblem(baseUrl, kind);
  if (urlProblem) found.baseUrl = [urlProblem];
  if (!model.trim()) found.model = ['must not be empty'];
  else if (model.trim().length > 200)
    found.model = [`must be at most 200 characters (this one has ${model.trim().length})`];
  return found;
}

/** Main's refusal: the fields' messages at their fields, the rest (or the message) as one general sentence. */
function splitFailure(failure: unknown): { known: Errors; other: string | undefined } {
  const fields = failure instanceof BridgeError ? failure.fieldErrors : {};
  const known: Errors = {};
  const rest: string[] = [];
  for (const [field, messages] of Object.entries(fields)) {
    if (field === 'name' || field === 'baseUrl' || field === 'model' || field === 'apiKey') known[field] = messages;
    else rest.push(...messages);
  }
  return {
    known,
    other: Object.keys(known).length > 0 && rest.length === 0 ? undefined : rest.join(' ') || messageOf(failure),
  };
}

/** The saved models, each with Test connection (its last answer below it) and Remove. */
function ModelList() {
  const models = useAppStore((s) => s.models);
  const tests = useAppStore((s) => s.modelTests);
  const testModel = useAppStore((s) => s.testModel);
  const removeModel = useAppStore((s) => s.removeModel);
  return (
    <ul className="model-list">
      {models.map((m) => (
        <li key={m.id} data-testid="model-row">
          <strong>{m.name}</strong>{' '}
          <span className="muted">
            {KIND_WORDS[m.kind]} · {m.model}
            {m.baseUrl ? ` · ${m.baseUrl}` : ''} · key {m.key === 'set' ? 'set' : 'not set'}
          </span>{' '}
          <button type="button" className="btn btn-small" onClick={() => void testModel(m.id)}>
            Test connection
          </button>{' '}
          <button type="button" className="btn btn-small btn-danger-ghost" onClick={() => void removeModel(m.id)}>
            Remove
          </button>
          {tests[m.id] && (
            <p className={tests[m.id]?.ok ? 'field-hint' : 'field-error'} role="status" data-testid="model-test-result">
              {tests[m.id]?.text}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

type Replacing = { request: SaveModelRequest; current: ModelView };

/** "Replace the model named …?", with both configurations side by side. */
function ReplaceModelDialog({
  replacing,
  onCancel,
  onConfirm,
}: {
  replacing: Replacing;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Replace the model named “${replacing.current.name}”?`}
      confirmLabel="Replace"
      danger
      onCancel={onCancel}
      onConfirm={onConfirm}
    >
      <p>One model keeps this name: the saved configuration is replaced by the new one.</p>
      <div className="model-compare">
        <section aria-label="Saved now">
          <h3 className="model-compare-title">Saved now</h3>
          <ModelSummary
            kind={replacing.current.kind}
            model={replacing.current.model}
            baseUrl={replacing.current.baseUrl}
            keyWords={replacing.current.key === 'set' ? 'set' : 'not set'}
          />
        </section>
        <section aria-label="Replace with">
          <h3 className="model-compare-title">Replace with</h3>
          <ModelSummary
            kind={replacing.request.kind}
            model={replacing.request.model}
            baseUrl={replacing.request.baseUrl}
            keyWords={
              replacing.request.apiKey
                ? 'the one you typed'
                : replacing.current.key === 'set'
                  ? 'kept (set)'
                  : 'not set'
            }
          />
        </section>
      </div>
    </ConfirmDialog>
  );
}

/** The add form's values, their errors, and the save (asking first when it would replace a model). */
function useModelForm() {
  const models = useAppStore((s) => s.models);
  const saveModel = useAppStore((s) => s.saveModel);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ModelView['kind']>('openai');
  const [baseUrl, setBaseUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [other, setOther] = useState<string | undefined>();
  /** The save waiting for "Replace the model named …?". */
  const [replacing, setReplacing] = useState<Replacing | undefined>();

  /** A field's value changed: its message (and a general one) no longer applies. */
  const edited = (field: FieldName) => {
    setErrors((all) => ({ ...all, [field]: [] }));
    setOther(undefined);
  };

  async function send(request: SaveModelRequest): Promise<void> {
    const failure = await saveModel(request);
    setReplacing(undefined);
    if (!failure) {
      setName('');
      setModel('');
      setBaseUrl('');
      setApiKey('');
      setErrors({});
      setOther(undefined);
      return;
    }
    const { known, other: rest } = splitFailure(failure);
    setErrors(known);
    setOther(rest);
  }

  function submit(): void {
    const found = fieldProblems(name, kind, baseUrl, model);
    setErrors(found);
    setOther(undefined);
    if (Object.keys(found).length > 0) return;
    const request: SaveModelRequest = {
      id: modelIdOf(name),
      name: name.trim(),
      kind,
      model: model.trim(),
      ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
      ...(apiKey ? { apiKey } : {}),
    };
    const current = modelReplacedBy(models, name);
    if (current) {
      if (current.id !== request.id) {
        setErrors({ name: [`a model named “${current.name}” exists already: choose another name`] });
        return;
      }
      setReplacing({ request: { ...request, replace: true }, current });
      return;
    }
    void send(request);
  }

  const err = (field: FieldName) => errors[field] ?? [];
  return {
    values: { name, kind, baseUrl, model, apiKey },
    set: { setName, setKind, setBaseUrl, setModel, setApiKey },
    err,
    edited,
    other,
    submit,
    send,
    replacing,
    setReplacing,
  };
}

function AddModelForm({ form }: { form: ReturnType<typeof useModelForm> }) {
  const { name, kind, baseUrl, model, apiKey } = form.values;
  const { setName, setKind, setBaseUrl, setModel, setApiKey } = form.set;
  const { err, edited, other, submit } = form;
  return (
    <form
      aria-label="Add a model"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Field id="model-name" label="Name" errors={err('name')}>
        <input
          className="input"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            edited('name');
          }}
          {...controlProps('model-name', err('name'))}
        />
      </Field>
      <label className="field">
        <span className="field-label">Provider</span>
        <select
          className="input"
          value={kind}
          onChange={(e) => {
            setKind(KINDS.has(e.target.value) ? (e.target.value as ModelView['kind']) : 'openai');
            edited('baseUrl');
          }}
        >
          <option value="openai">OpenAI or compatible (Ollama, LM Studio, vLLM…)</option>
          <option value="openai_responses">OpenAI Responses API</option>
          <option value="anthropic">Anthropic</option>
        </select>
      </label>
      <Field id="model-base-url" label="Base URL" errors={err('baseUrl')}>
        <input
          className="input"
          value={baseUrl}
          placeholder="empty = the provider's API; Ollama: http://127.0.0.1:11434/v1"
          onChange={(e) => {
            setBaseUrl(e.target.value);
            edited('baseUrl');
          }}
          {...controlProps('model-base-url', err('baseUrl'))}
        />
      </Field>
      <Field id="model-model" label="Model name" errors={err('model')}>
        <input
          className="input"
          value={model}
          placeholder="llama3.2, gpt-…, claude-…"
          onChange={(e) => {
            setModel(e.target.value);
            edited('model');
          }}
          {...controlProps('model-model', err('model'))}
        />
      </Field>
      <Field id="model-api-key" label="API key" errors={err('apiKey')}>
        <input
          className="input"
          type="password"
          autoComplete="off"
          value={apiKey}
          placeholder="not needed for a local model"
          onChange={(e) => {
            setApiKey(e.target.value);
            edited('apiKey');
          }}
          {...controlProps('model-api-key', err('apiKey'))}
        />
      </Field>
      {other && (
        <p className="field-error" role="alert">
          {other}
        </p>
      )}
      <button type="submit" className="btn btn-primary" disabled={!name.trim() || !model.trim()}>
        Save model
      </button>
    </form>
  );
}

export function ModelsCard() {
  const form = useModelForm();
  const { replacing, setReplacing, send } = form;
  return (
    <section className="card" aria-labelledby="settings-models">
      <h2 id="settings-models" className="card-title">
        Models
      </h2>
      <ModelList />
      <AddModelForm form={form} />
      {replacing && (
        <ReplaceModelDialog
          replacing={replacing}
          onCancel={() => setReplacing(undefined)}
          onConfirm={() => void send(replacing.request)}
        />
      )}
    </section>
  );
}
