/**
 * Settings → Observability: the OpenTelemetry export of every call's trace (off by default). The
 * collector's OTLP/HTTP endpoint (protobuf or JSON; empty: the OTEL_EXPORTER_OTLP_* variables),
 * headers whose values are kept in the secret store (never shown again; empty keeps the saved one),
 * service name, sampling, opt-in payloads and a trace viewer's URL. "Send a test span" says what
 * the collector answered; the counters say what was exported, failed and dropped.
 */
import { useEffect, useState } from 'react';
import type { ObservabilityView } from '../../../../shared/contract.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Field, controlProps } from '../components/Field.js';

type HeaderRow = { name: string; value: string; saved: boolean };

/** The form as edited (the saved view until changed). */
interface Draft {
  enabled: boolean;
  protocol: ObservabilityView['protocol'];
  endpoint: string;
  serviceName: string;
  /** Percent, as typed. */
  sampling: string;
  payloads: boolean;
  metrics: boolean;
  viewerUrl: string;
  headers: HeaderRow[];
}
type SetDraft = (patch: Partial<Draft>) => void;
type FieldErrors = Record<string, string[]>;

function draftOf(saved: ObservabilityView): Draft {
  return {
    enabled: saved.enabled,
    protocol: saved.protocol,
    endpoint: saved.endpoint,
    serviceName: saved.serviceName,
    sampling: String(Math.round(saved.sampleRatio * 100)),
    payloads: saved.exportPayloads,
    metrics: saved.exportMetrics,
    viewerUrl: saved.viewerUrl,
    headers: saved.headers.map((name) => ({ name, value: '', saved: true })),
  };
}

export function ObservabilityCard() {
  const view = useAppStore((s) => s.observability);
  const load = useAppStore((s) => s.loadObservability);
  useEffect(() => {
    void load().catch(() => undefined);
  }, [load]);
  return (
    <section className="card" aria-labelledby="settings-observability">
      <h2 id="settings-observability" className="card-title">
        Observability
      </h2>
      {view ? <ObservabilityForm key={JSON.stringify({ ...view, stats: 0 })} saved={view} /> : null}
      {view ? <ExportCounters stats={view.stats} /> : null}
    </section>
  );
}

function ExportCounters({ stats }: { stats: ObservabilityView['stats'] }) {
  return (
    <dl className="props" aria-label="Export since the app started">
      <dt>Spans exported</dt>
      <dd>{stats.exported}</dd>
      <dt>Failed (collector refused, hung or away)</dt>
      <dd>{stats.failed}</dd>
      <dt>Dropped (queue full)</dt>
      <dd>{stats.dropped}</dd>
      {stats.lastError ? (
        <>
          <dt>Last failure</dt>
          <dd>{stats.lastError}</dd>
        </>
      ) : null}
    </dl>
  );
}

function ObservabilityForm({ saved }: { saved: ObservabilityView }) {
  const save = useAppStore((s) => s.saveObservability);
  const notify = useAppStore((s) => s.notify);
  const [draft, setDraftState] = useState<Draft>(() => draftOf(saved));
  const set: SetDraft = (patch) => setDraftState((before) => ({ ...before, ...patch }));
  const [errors, setErrors] = useState<FieldErrors>({});

  async function submit(): Promise<void> {
    const percent = Number(draft.sampling);
    if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
      setErrors({ sampleRatio: ['must be a number from 0 to 100'] });
      return;
    }
    const refused = await save({
      enabled: draft.enabled,
      protocol: draft.protocol,
      endpoint: draft.endpoint.trim(),
      serviceName: draft.serviceName.trim(),
      sampleRatio: percent / 100,
      headers: draft.headers
        .filter((h) => h.name.trim() !== '')
        .map((h) => ({ name: h.name.trim(), ...(h.value !== '' || !h.saved ? { value: h.value } : {}) })),
      exportPayloads: draft.payloads,
      exportMetrics: draft.metrics,
      viewerUrl: draft.viewerUrl.trim(),
    });
    if (refused) {
      setErrors(refused.details?.fieldErrors ?? { form: [refused.message] });
      return;
    }
    notify('success', draft.enabled ? 'Traces are exported to your collector.' : 'Export is off.');
  }

  return (
    <form
      className="settings-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <ExportSwitch draft={draft} set={set} />
      <CollectorFields draft={draft} set={set} errors={errors} environmentEndpoint={saved.environmentEndpoint} />
      <HeadersFieldset headers={draft.headers} setHeaders={(headers) => set({ headers })} />
      <SpanFields draft={draft} set={set} errors={errors} />
      {errors.form ? <p className="field-error">{errors.form.join(' · ')}</p> : null}
      <FormActions />
    </form>
  );
}

function ExportSwitch({ draft, set }: { draft: Draft; set: SetDraft }) {
  return (
    <>
      <label className="checkbox-field">
        <input
          type="checkbox"
          role="switch"
          checked={draft.enabled}
          onChange={(e) => set({ enabled: e.target.checked })}
        />
        <span>
          <span className="checkbox-label">Export traces with OpenTelemetry</span>
          <span className="field-hint">
            Each call, agent request and agent run goes to your collector (Jaeger, Tempo, Honeycomb, …) as spans in the
            MCP semantic conventions, with the permission decision on them. Arguments and results stay here unless you
            turn them on below.
          </span>
        </span>
      </label>
      <label className="checkbox-field">
        <input type="checkbox" checked={draft.metrics} onChange={(e) => set({ metrics: e.target.checked })} />
        <span>
          <span className="checkbox-label">Export the MCP duration metrics too</span>
          <span className="field-hint">
            mcp.client.operation.duration and mcp.server.operation.duration, to the same collector (/v1/metrics), each
            minute. Leave off for a backend that takes traces only (Jaeger).
          </span>
        </span>
      </label>
    </>
  );
}

/** Where the spans go: the endpoint and the protocol. */
function CollectorFields({
  draft,
  set,
  errors,
  environmentEndpoint,
}: {
  draft: Draft;
  set: SetDraft;
  errors: FieldErrors;
  environmentEndpoint: string | undefined;
}) {
  return (
    <>
      <Field
        id="otel-endpoint"
        label="OTLP endpoint"
        hint={`e.g. http://localhost:4318 (/v1/traces and /v1/metrics are added). Empty: ${environmentEndpoint ?? 'the OTEL_EXPORTER_OTLP_ENDPOINT variable, else http://localhost:4318'}.`}
        errors={errors.endpoint ?? []}
      >
        <input
          className="input"
          value={draft.endpoint}
          onChange={(e) => set({ endpoint: e.target.value })}
          {...controlProps('otel-endpoint', errors.endpoint ?? [], true)}
        />
      </Field>
      <Field id="otel-protocol" label="Protocol" hint="What your collector takes on its OTLP/HTTP port." errors={[]}>
        <select
          className="input input-narrow"
          value={draft.protocol}
          onChange={(e) => set({ protocol: e.target.value as ObservabilityView['protocol'] })}
          {...controlProps('otel-protocol', [], true)}
        >
          <option value="http/protobuf">HTTP/protobuf</option>
          <option value="http/json">HTTP/JSON</option>
        </select>
      </Field>
    </>
  );
}

/** Headers sent to the collector: a saved value is never shown again (empty keeps it). */
function HeadersFieldset({ headers, setHeaders }: { headers: HeaderRow[]; setHeaders: (rows: HeaderRow[]) => void }) {
  return (
    <fieldset className="settings-fieldset">
      <legend>Headers (values are kept in the secret store)</legend>
      {headers.map((header, i) => (
        <div key={i} className="settings-row">
          <input
            className="input input-narrow"
            aria-label={`Header ${i + 1} name`}
            value={header.name}
            onChange={(e) =>
              setHeaders(headers.map((h, j) => (j === i ? { ...h, name: e.target.value, saved: false } : h)))
            }
          />
          <input
            className="input"
            type="password"
            aria-label={`Header ${i + 1} value`}
            placeholder={header.saved ? 'saved — type to replace' : 'value'}
            value={header.value}
            onChange={(e) => setHeaders(headers.map((h, j) => (j === i ? { ...h, value: e.target.value } : h)))}
          />
          <button type="button" className="link-button" onClick={() => setHeaders(headers.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="link-button"
        onClick={() => setHeaders([...headers, { name: '', value: '', saved: false }])}
      >
        Add a header
      </button>
    </fieldset>
  );
}

/** What the spans say: service name, sampling, payloads, and where the Traces view links to. */
function SpanFields({ draft, set, errors }: { draft: Draft; set: SetDraft; errors: FieldErrors }) {
  return (
    <>
      <Field
        id="otel-service"
        label="Service name"
        hint="service.name on every span."
        errors={errors.serviceName ?? []}
      >
        <input
          className="input input-narrow"
          value={draft.serviceName}
          onChange={(e) => set({ serviceName: e.target.value })}
          {...controlProps('otel-service', errors.serviceName ?? [], true)}
        />
      </Field>
      <Field
        id="otel-sampling"
        label="Sampling (%)"
        hint="The share of traces MiniHarness starts that are kept. An agent's own trace keeps the agent's choice."
        errors={errors.sampleRatio ?? []}
      >
        <input
          className="input input-narrow"
          inputMode="decimal"
          value={draft.sampling}
          onChange={(e) => set({ sampling: e.target.value })}
          {...controlProps('otel-sampling', errors.sampleRatio ?? [], true)}
        />
      </Field>
      <label className="checkbox-field">
        <input type="checkbox" checked={draft.payloads} onChange={(e) => set({ payloads: e.target.checked })} />
        <span>
          <span className="checkbox-label">Include tool arguments and results</span>
          <span className="field-hint">Redacted like the Traces view, and cut at 4 KB each.</span>
        </span>
      </label>
      <Field
        id="otel-viewer"
        label="Trace viewer URL"
        hint="With {traceId} where the id goes, e.g. http://localhost:16686/trace/{traceId} (Jaeger). The Traces view links to it."
        errors={errors.viewerUrl ?? []}
      >
        <input
          className="input"
          value={draft.viewerUrl}
          onChange={(e) => set({ viewerUrl: e.target.value })}
          {...controlProps('otel-viewer', errors.viewerUrl ?? [], true)}
        />
      </Field>
    </>
  );
}

/** Save, and "Send a test span" with the collector's answer (the counters are read again after it). */
function FormActions() {
  const test = useAppStore((s) => s.testObservability);
  const load = useAppStore((s) => s.loadObservability);
  const [answer, setAnswer] = useState<{ ok: boolean; message: string } | undefined>(undefined);
  return (
    <>
      <div className="settings-row">
        <button type="submit" className="btn">
          Save
        </button>
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() =>
            void test()
              .then(setAnswer, (error: unknown) =>
                setAnswer({ ok: false, message: error instanceof Error ? error.message : String(error) }),
              )
              .then(() => load())
              .catch(() => undefined)
          }
        >
          Send a test span
        </button>
      </div>
      {answer ? (
        <p role="status" className={answer.ok ? 'field-hint' : 'field-error'}>
          {answer.message}
        </p>
      ) : null}
    </>
  );
}
