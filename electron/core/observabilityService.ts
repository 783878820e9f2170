/**
 * Settings → Observability: the OpenTelemetry export's settings (configuration store; header
 * values in the secret store under `telemetry/header/<name>`), applied to the app's Telemetry
 * (electron/telemetry/) at once. Off by default. The standard `OTEL_EXPORTER_OTLP_*` variables
 * fill in what is left empty (the endpoint, headers) — the exporters read them themselves — and
 * `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` overrides the protocol when set. Header values from the
 * settings and from those variables join the app's redactor, and a collector's answer is redacted
 * before it is cut to the length the window shows.
 */
import { z } from 'zod';
import type { ObservabilitySet, ObservabilityView } from '../../shared/contract/observability.js';
import type { SecretRedactor } from '../secrets/secretRedactor.js';
import type { SecretStore } from '../secrets/types.js';
import { SecretValue } from '../secrets/secretValue.js';
import type { ConfigStore } from '../storage/configFile.js';
import type { Telemetry, TestSpanAnswer } from '../telemetry/telemetry.js';
import type { ExportConfig, OtlpProtocol } from '../telemetry/exportPipeline.js';

const SETTINGS_KEY = 'telemetry.export';
const headerKey = (name: string): string => `telemetry/header/${name.toLowerCase()}`;
/** How much of a collector's answer the window shows. */
const ANSWER_MAX_CHARS = 300;
/** The variables whose `name=value,…` pairs the OTLP exporters send as headers (OpenTelemetry's spec). */
const HEADER_VARIABLES = [
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
] as const;

const SavedSchema = z.object({
  enabled: z.boolean(),
  protocol: z.enum(['http/protobuf', 'http/json']),
  endpoint: z.string(),
  serviceName: z.string().min(1),
  sampleRatio: z.number().min(0).max(1),
  headers: z.array(z.string()),
  exportPayloads: z.boolean(),
  // Added with the metrics: settings saved before it parse as off.
  exportMetrics: z.boolean().default(false),
  viewerUrl: z.string(),
});
type Saved = z.infer<typeof SavedSchema>;

const DEFAULTS: Saved = {
  enabled: false,
  protocol: 'http/protobuf',
  endpoint: '',
  serviceName: 'miniharness-desktop',
  sampleRatio: 1,
  headers: [],
  exportPayloads: false,
  exportMetrics: false,
  viewerUrl: '',
};

export class ObservabilityService {
  #saved: Saved;

  constructor(
    private readonly config: ConfigStore,
    private readonly secrets: Pick<SecretStore, 'get' | 'set' | 'delete'>,
    private readonly telemetry: Telemetry,
    private readonly version: string,
    /** The app's redactor: header values join its known secrets, so a collector echoing one never shows it. */
    private readonly redaction: Pick<SecretRedactor, 'add' | 'redactText'>,
    warn: (message: string) => void,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    const stored = config.get(SETTINGS_KEY);
    const parsed = stored === undefined ? undefined : SavedSchema.safeParse(stored);
    if (parsed && !parsed.success)
      warn('The saved Observability settings are not valid; export stays off until they are saved again.');
    this.#saved = parsed?.success ? parsed.data : DEFAULTS;
    // Headers the exporters take from the environment are secrets too (API keys, usually).
    for (const variable of HEADER_VARIABLES)
      for (const value of headerValuesOf(env[variable])) this.redaction.add(value);
  }

  /** Applies the saved settings (at start). */
  async start(): Promise<void> {
    await this.#apply();
  }

  view(): ObservabilityView {
    const envEndpoint = this.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? this.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    const stats = this.telemetry.stats();
    return {
      ...this.#saved,
      ...(envEndpoint ? { environmentEndpoint: envEndpoint } : {}),
      stats: {
        exported: stats.exported,
        dropped: stats.dropped,
        failed: stats.failed,
        ...(stats.lastError ? { lastError: this.#quote(stats.lastError) } : {}),
      },
    };
  }

  async set(request: ObservabilitySet): Promise<ObservabilityView> {
    const names = request.headers.map((h) => h.name);
    // Names are kept case-insensitively (headerKey): `Authorization` renamed `authorization` is not gone.
    const kept = new Set(names.map((name) => headerKey(name)));
    for (const gone of this.#saved.headers.filter((name) => !kept.has(headerKey(name))))
      await this.secrets.delete(headerKey(gone));
    for (const header of request.headers)
      if (header.value !== undefined) await this.secrets.set(headerKey(header.name), new SecretValue(header.value));
    const next: Saved = {
      enabled: request.enabled,
      protocol: request.protocol,
      endpoint: request.endpoint,
      serviceName: request.serviceName,
      sampleRatio: request.sampleRatio,
      headers: names,
      exportPayloads: request.exportPayloads,
      exportMetrics: request.exportMetrics ?? this.#saved.exportMetrics,
      viewerUrl: request.viewerUrl,
    };
    this.config.set(SETTINGS_KEY, next);
    this.#saved = next;
    await this.#apply();
    return this.view();
  }

  /** Sends one span to the saved collector (even while export is off) and says what it answered. */
  async test(): Promise<TestSpanAnswer> {
    const answer = await this.telemetry.testSpan(await this.#exportConfig());
    // The collector's answer is quoted: an error body that echoes the request's headers stays redacted.
    return { ...answer, message: this.#quote(answer.message) };
  }

  /** A collector's words for the window: redacted first, then cut (a cut first could split a secret). */
  #quote(text: string): string {
    const redacted = this.redaction.redactText(text);
    return redacted.length > ANSWER_MAX_CHARS ? `${redacted.slice(0, ANSWER_MAX_CHARS)}…` : redacted;
  }

  /** The exported trace id of a MiniHarness trace and, with a viewer URL set, the link to it. */
  traceLink(traceId: string): { externalTraceId?: string; url?: string } {
    const external = this.telemetry.externalTraceId(traceId);
    if (!external) return {};
    const viewer = this.#saved.viewerUrl;
    return {
      externalTraceId: external,
      ...(viewer
        ? { url: viewer.includes('{traceId}') ? viewer.replace('{traceId}', external) : `${viewer}${external}` }
        : {}),
    };
  }

  async #apply(): Promise<void> {
    if (!this.#saved.enabled) return this.telemetry.configure(undefined);
    const config = await this.#exportConfig();
    await this.telemetry.configure({
      ...config,
      exportPayloads: this.#saved.exportPayloads,
      exportMetrics: this.#saved.exportMetrics,
    });
  }

  async #exportConfig(): Promise<ExportConfig> {
    const headers: Record<string, string> = {};
    for (const name of this.#saved.headers) {
      const value = await this.secrets.get(headerKey(name));
      if (!value) continue;
      headers[name] = value.reveal();
      this.redaction.add(headers[name]);
    }
    const envProtocol = this.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? this.env.OTEL_EXPORTER_OTLP_PROTOCOL;
    const protocol: OtlpProtocol =
      envProtocol === 'http/json' || envProtocol === 'http/protobuf' ? envProtocol : this.#saved.protocol;
    return {
      protocol,
      url: signalUrl(this.#saved.endpoint, 'traces'),
      metricsUrl: signalUrl(this.#saved.endpoint, 'metrics'),
      headers,
      serviceName: this.#saved.serviceName,
      serviceVersion: this.version,
      sampleRatio: this.#saved.sampleRatio,
    };
  }
}

/**
 * A signal's URL from an endpoint as people write it: a base (…:4318) gets `/v1/traces` or
 * `/v1/metrics`; a traces URL is kept for traces, its metrics sibling used for metrics.
 */
/** The values of an `OTEL_EXPORTER_OTLP_*_HEADERS` variable (`name=value,…`, values percent-encoded). */
function headerValuesOf(variable: string | undefined): string[] {
  if (!variable) return [];
  return variable.split(',').flatMap((pair) => {
    const at = pair.indexOf('=');
    if (at < 0) return [];
    const raw = pair.slice(at + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded as the spec asks: the exporter sends it as written.
    }
    return raw === value ? [raw] : [raw, value];
  });
}

function signalUrl(endpoint: string, signal: 'traces' | 'metrics'): string | undefined {
  if (!endpoint) return undefined;
  const base = endpoint.replace(/\/+$/, '').replace(/\/v1\/(traces|metrics)$/, '');
  return `${base}/v1/${signal}`;
}
