/**
 * The server form's state, kept as strings and rows the way the person edits them, and its
 * conversion from a saved server (edit). Turning it into a save request is in buildRequest.ts.
 */
import type { ServerView } from '../../../../../shared/contract.js';
import type { ProtocolEraSetting, ServerConfig, ValueOrSecret } from '../../../../../shared/serverConfig.js';
import { sandboxEnabled } from '../../../../../shared/serverConfig.js';
import { configOf, serverIdOf, serverNameOf } from '../../../lib/serverView.js';

export type TransportKind = 'stdio' | 'streamable_http';
/** Where a secret comes from: the app's secret store (typed here, write-only) or an environment variable of main. */
type SecretSource = 'store' | 'env';

export interface SecretValueState {
  secret: boolean;
  source: SecretSource;
  /** A new value typed for the store slot; empty keeps what is stored. */
  value: string;
  /** For source `env`: the variable main reads. */
  envName: string;
  /** The person chose to replace a stored value. */
  replacing: boolean;
}

/** One env variable or header: a name and a plain or secret value. */
export interface ValueRow extends SecretValueState {
  key: string;
  name: string;
}

export interface ArgRow {
  key: string;
  value: string;
}

/** OAuth sign-in settings, as the person edits them. */
export interface OAuthFormState {
  grant: 'authorization_code' | 'client_credentials';
  /** A pre-registered client's id; empty: the app registers itself (or uses its metadata document). */
  clientId: string;
  secretEnabled: boolean;
  secret: SecretValueState;
  /** client_credentials with private_key_jwt: a PEM private key. */
  keyEnabled: boolean;
  privateKey: SecretValueState;
  signingAlgorithm: string;
  scope: string;
  clientMetadataUrl: string;
  redirectPort: string;
}

/** A stdio server's Sandbox section (issue 29), as the person edits it. */
export interface SandboxFormState {
  /** The saved configuration has a section, or the person edited it: it is sent (else the app's default applies). */
  present: boolean;
  enabled: boolean;
  read: ArgRow[];
  write: ArgRow[];
  hosts: ArgRow[];
  /** Kept as saved (not edited here). */
  denyRead: string[];
}

export interface ServerFormState {
  mode: 'create' | 'edit';
  name: string;
  id: string;
  /** Once the person edits the id, it no longer follows the name. */
  idEdited: boolean;
  transport: TransportKind;
  command: string;
  args: ArgRow[];
  env: ValueRow[];
  cwd: string;
  url: string;
  headers: ValueRow[];
  bearerEnabled: boolean;
  bearer: SecretValueState;
  oauthEnabled: boolean;
  oauth: OAuthFormState;
  timeoutMs: string;
  /** Empty: the default maximum (10 minutes). */
  maxTotalTimeoutMs: string;
  priority: string;
  enabled: boolean;
  trusted: boolean;
  /** The protocol era: negotiated (`auto`) or pinned. */
  protocolEra: ProtocolEraSetting;
  /** Folders offered as the server's roots, one per row. */
  roots: ArgRow[];
  sandbox: SandboxFormState;
}

let nextRowKey = 1;
function rowKey(): string {
  return `row-${nextRowKey++}`;
}

export function emptySecretValue(secret = false): SecretValueState {
  return { secret, source: 'store', value: '', envName: '', replacing: false };
}

export function emptyValueRow(): ValueRow {
  return { key: rowKey(), name: '', ...emptySecretValue() };
}

export function emptyArgRow(value = ''): ArgRow {
  return { key: rowKey(), value };
}

export function emptyOAuthForm(): OAuthFormState {
  return {
    grant: 'authorization_code',
    clientId: '',
    secretEnabled: false,
    secret: emptySecretValue(true),
    keyEnabled: false,
    privateKey: emptySecretValue(true),
    signingAlgorithm: '',
    scope: '',
    clientMetadataUrl: '',
    redirectPort: '',
  };
}

export function emptyForm(): ServerFormState {
  return {
    mode: 'create',
    name: '',
    id: '',
    idEdited: false,
    transport: 'stdio',
    command: '',
    args: [],
    env: [],
    cwd: '',
    url: '',
    headers: [],
    bearerEnabled: false,
    bearer: emptySecretValue(true),
    oauthEnabled: false,
    oauth: emptyOAuthForm(),
    timeoutMs: '30000',
    maxTotalTimeoutMs: '',
    priority: '0',
    enabled: true,
    trusted: false,
    protocolEra: 'auto',
    roots: [],
    sandbox: { present: false, enabled: sandboxEnabled({}), read: [], write: [], hosts: [], denyRead: [] },
  };
}

/** A server id derived from its name: lowercase letters, digits and dashes. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/g, '');
}

function valueState(value: ValueOrSecret): SecretValueState {
  if (typeof value === 'string') return { ...emptySecretValue(), value };
  return value.secret.source === 'env'
    ? { ...emptySecretValue(true), source: 'env', envName: value.secret.name }
    : emptySecretValue(true);
}

function rowsOf(record: Record<string, ValueOrSecret>): ValueRow[] {
  return Object.entries(record).map(([name, value]) => ({ key: rowKey(), name, ...valueState(value) }));
}

export function formFromServer(view: ServerView, focusSlot?: string): ServerFormState {
  const config: ServerConfig | undefined = configOf(view);
  const base = {
    ...emptyForm(),
    mode: 'edit' as const,
    name: serverNameOf(view),
    id: serverIdOf(view),
    idEdited: true,
  };
  if (!config) return base;
  const form: ServerFormState = {
    ...base,
    transport: config.transport,
    timeoutMs: String(config.timeoutMs),
    maxTotalTimeoutMs: config.maxTotalTimeoutMs === undefined ? '' : String(config.maxTotalTimeoutMs),
    priority: String(config.priority),
    enabled: config.enabled,
    trusted: config.trusted,
    protocolEra: config.protocolEra,
    roots: (config.roots ?? []).map((root) => emptyArgRow(root)),
  };
  if (config.transport === 'stdio') {
    form.command = config.command;
    form.args = config.args.map((a) => emptyArgRow(a));
    form.env = rowsOf(config.env);
    form.cwd = config.cwd ?? '';
    const sandbox = config.sandbox;
    form.sandbox = {
      present: sandbox !== undefined,
      enabled: sandboxEnabled(config),
      read: (sandbox?.read ?? []).map((p) => emptyArgRow(p)),
      write: (sandbox?.write ?? []).map((p) => emptyArgRow(p)),
      hosts: (sandbox?.hosts ?? []).map((h) => emptyArgRow(h)),
      denyRead: [...(sandbox?.denyRead ?? [])],
    };
  } else {
    form.url = config.url;
    form.headers = rowsOf(config.headers);
    if (config.auth.kind === 'bearer') {
      form.bearerEnabled = true;
      form.bearer =
        config.auth.token.source === 'env'
          ? { ...emptySecretValue(true), source: 'env', envName: config.auth.token.name }
          : emptySecretValue(true);
    }
    if (config.auth.kind === 'oauth') {
      const { auth } = config;
      const secretState = (ref: typeof auth.clientSecret): SecretValueState =>
        ref?.source === 'env'
          ? { ...emptySecretValue(true), source: 'env', envName: ref.name }
          : emptySecretValue(true);
      form.oauthEnabled = true;
      form.oauth = {
        grant: auth.grant,
        clientId: auth.clientId ?? '',
        secretEnabled: auth.clientSecret !== undefined,
        secret: { ...secretState(auth.clientSecret), replacing: focusSlot === OAUTH_SECRET_SLOT },
        keyEnabled: auth.privateKey !== undefined,
        privateKey: { ...secretState(auth.privateKey), replacing: focusSlot === OAUTH_KEY_SLOT },
        signingAlgorithm: auth.signingAlgorithm ?? '',
        scope: auth.scope ?? '',
        clientMetadataUrl: auth.clientMetadataUrl ?? '',
        redirectPort: auth.redirectPort !== undefined ? String(auth.redirectPort) : '',
      };
    }
  }
  // Opened from "Replace token" (or a similar shortcut): that slot starts in replace mode.
  if (focusSlot === 'auth.token') form.bearer = { ...form.bearer, replacing: true };
  const focusRow = (rows: ValueRow[], prefix: string) =>
    rows.map((row) => (focusSlot === `${prefix}.${row.name}` ? { ...row, replacing: true } : row));
  form.env = focusRow(form.env, 'env');
  form.headers = focusRow(form.headers, 'headers');
  return form;
}

/** The secret slot a row's value is stored under. */
export function slotOf(kind: 'env' | 'headers', name: string): string {
  return `${kind}.${name}`;
}
export const BEARER_SLOT = 'auth.token';
export const OAUTH_SECRET_SLOT = 'auth.clientSecret';
export const OAUTH_KEY_SLOT = 'auth.privateKey';

/** The field-error key for one row regardless of its name (unnamed or duplicate rows). */
export function rowErrorKey(row: { key: string }): string {
  return `@row:${row.key}`;
}
