/**
 * Settings → Models: the person's own models for agent runs — Anthropic, OpenAI (Chat Completions
 * or the Responses API), or any OpenAI-compatible server by its base URL (Ollama, LM Studio,
 * llama.cpp, vLLM: no key). The key field is write-only: it is sent once, kept in the secret
 * store, and never shown again.
 */
import { useState } from 'react';
import type { ModelView } from '../../../../shared/runs.js';
import { useAppStore } from '../../state/useAppStore.js';

const KIND_WORDS: Record<ModelView['kind'], string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI-compatible',
  openai_responses: 'OpenAI Responses',
};
const KINDS = new Set<string>(Object.keys(KIND_WORDS));

export function ModelsCard() {
  const models = useAppStore((s) => s.models);
  const tests = useAppStore((s) => s.modelTests);
  const saveModel = useAppStore((s) => s.saveModel);
  const testModel = useAppStore((s) => s.testModel);
  const removeModel = useAppStore((s) => s.removeModel);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ModelView['kind']>('openai');
  const [baseUrl, setBaseUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<string | undefined>();

  const id =
    name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'model';
  return (
    <section className="card" aria-labelledby="settings-models">
      <h2 id="settings-models" className="card-title">
        Models
      </h2>
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
              <p
                className={tests[m.id]?.ok ? 'field-hint' : 'field-error'}
                role="status"
                data-testid="model-test-result"
              >
                {tests[m.id]?.text}
              </p>
            )}
          </li>
        ))}
      </ul>
      <form
        aria-label="Add a model"
        onSubmit={(e) => {
          e.preventDefault();
          void saveModel({
            id,
            name,
            kind,
            model,
            ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
            ...(apiKey ? { apiKey } : {}),
          }).then((failure) => {
            setError(failure);
            if (!failure) {
              setName('');
              setModel('');
              setBaseUrl('');
              setApiKey('');
            }
          });
        }}
      >
        <label className="field">
          <span className="field-label">Name</span>
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Provider</span>
          <select
            className="input"
            value={kind}
            onChange={(e) => setKind(KINDS.has(e.target.value) ? (e.target.value as ModelView['kind']) : 'openai')}
          >
            <option value="openai">OpenAI or compatible (Ollama, LM Studio, vLLM…)</option>
            <option value="openai_responses">OpenAI Responses API</option>
            <option value="anthropic">Anthropic</option>
          </select>
        </label>
        <label className="field">
          <span className="field-label">Base URL</span>
          <input
            className="input"
            value={baseUrl}
            placeholder="empty = the provider's API; Ollama: http://127.0.0.1:11434/v1"
            onChange={(e) => setBaseUrl(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Model name</span>
          <input
            className="input"
            value={model}
            placeholder="llama3.2, gpt-…, claude-…"
            onChange={(e) => setModel(e.target.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">API key</span>
          <input
            className="input"
            type="password"
            autoComplete="off"
            value={apiKey}
            placeholder="not needed for a local model"
            onChange={(e) => setApiKey(e.target.value)}
          />
        </label>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={!name.trim() || !model.trim()}>
          Save model
        </button>
      </form>
    </section>
  );
}
