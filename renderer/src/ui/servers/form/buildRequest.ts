/**
 * Form state → `servers.save` request. Secret values never enter the configuration: each secret
 * field becomes a reference `{secret: {source: 'store', key: slot}}` and the value typed for it
 * goes into `secrets` — only for slots the person typed into. (Main deletes stored secrets the
 * configuration no longer references, and refuses values for slots that are not secret fields.)
 *
 * The same shared schema main uses validates the result; nothing is sent while it is invalid.
 */
import type { RequestOf, ServerView } from '../../../../../shared/contract.js';
import type { FieldErrors } from '../../../../../shared/serverConfig.js';
import { validateServerConfig } from '../../../../../shared/serverConfig.js';
import type { OAuthFormState, SecretValueState, ServerFormState, ValueRow } from './formModel.js';
import { BEARER_SLOT, OAUTH_KEY_SLOT, OAUTH_SECRET_SLOT, rowErrorKey, slotOf } from './formModel.js';

export type SecretStates = ServerView['secrets'];

export type BuildResult = { ok: true; request: RequestOf<'servers.save'> } | { ok: false; fieldErrors: FieldErrors };

function addError(errors: FieldErrors, key: string, message: string): void {
  (errors[key] ??= []).push(message);
}

function parseInteger(text: string): number | undefined {
  const trimmed = text.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}

interface SecretContext {
  errors: FieldErrors;
  secrets: Record<string, string>;
  states: SecretStates;
}

/** The secret reference for one secret field, recording its slot and the value typed for it. */
function secretRef(
  state: SecretValueState,
  slot: string,
  errorKey: string,
  ctx: SecretContext,
): Record<string, string> {
  if (state.source === 'env') return { source: 'env', name: state.envName.trim() };
  if (state.value !== '') ctx.secrets[slot] = state.value;
  else if (ctx.states[slot] !== 'set') addError(ctx.errors, errorKey, 'enter a value (it is stored as a secret)');
  return { source: 'store', key: slot };
}

function rowsToRecord(rows: ValueRow[], kind: 'env' | 'headers', ctx: SecretContext): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    const blank = name === '' && row.value === '' && row.envName === '';
    if (blank) continue; // an untouched new row
    if (name === '') {
      addError(ctx.errors, rowErrorKey(row), 'enter a name');
      continue;
    }
    const lower = kind === 'headers' ? name.toLowerCase() : name;
    if (seen.has(lower)) {
      addError(ctx.errors, rowErrorKey(row), `"${name}" appears twice`);
      continue;
    }
    seen.add(lower);
    record[name] = row.secret ? { secret: secretRef(row, slotOf(kind, name), `${kind}.${name}`, ctx) } : row.value;
  }
  return record;
}

/** OAuth settings: empty optional fields are left out; secrets become references like the bearer token. */
function oauthAuth(oauth: OAuthFormState, ctx: SecretContext): Record<string, unknown> {
  const auth: Record<string, unknown> = { kind: 'oauth', grant: oauth.grant };
  const text = (field: string, value: string): void => {
    if (value.trim() !== '') auth[field] = value.trim();
  };
  text('clientId', oauth.clientId);
  text('scope', oauth.scope);
  text('clientMetadataUrl', oauth.clientMetadataUrl);
  if (oauth.secretEnabled) auth.clientSecret = secretRef(oauth.secret, OAUTH_SECRET_SLOT, OAUTH_SECRET_SLOT, ctx);
  if (oauth.keyEnabled && oauth.grant === 'client_credentials') {
    auth.privateKey = secretRef(oauth.privateKey, OAUTH_KEY_SLOT, OAUTH_KEY_SLOT, ctx);
    auth.tokenEndpointAuthMethod = 'private_key_jwt';
    text('signingAlgorithm', oauth.signingAlgorithm);
  }
  if (oauth.redirectPort.trim() !== '') {
    const port = parseInteger(oauth.redirectPort);
    if (port === undefined) addError(ctx.errors, 'auth.redirectPort', 'must be a port number');
    else auth.redirectPort = port;
  }
  return auth;
}

export function buildSaveRequest(form: ServerFormState, states: SecretStates = {}): BuildResult {
  const ctx: SecretContext = { errors: {}, secrets: {}, states };
  const { errors } = ctx;

  const config: Record<string, unknown> = {
    id: form.id.trim(),
    name: form.name,
    transport: form.transport,
    enabled: form.enabled,
    trusted: form.trusted,
    protocolEra: form.protocolEra,
  };
  const timeout = parseInteger(form.timeoutMs);
  if (form.timeoutMs.trim() === '') {
    // left empty: the schema's default applies
  } else if (timeout === undefined) addError(errors, 'timeoutMs', 'must be a whole number of milliseconds');
  else config.timeoutMs = timeout;
  const maxTotal = parseInteger(form.maxTotalTimeoutMs);
  if (form.maxTotalTimeoutMs.trim() === '') {
    // left empty: the default maximum applies
  } else if (maxTotal === undefined) addError(errors, 'maxTotalTimeoutMs', 'must be a whole number of milliseconds');
  else config.maxTotalTimeoutMs = maxTotal;
  const priority = parseInteger(form.priority);
  if (form.priority.trim() === '') {
    // default
  } else if (priority === undefined) addError(errors, 'priority', 'must be a whole number');
  else config.priority = priority;

  if (form.transport === 'stdio') {
    config.command = form.command;
    // Each row is one argv entry, passed as-is (no shell); empty rows are left out.
    config.args = form.args.map((a) => a.value).filter((a) => a !== '');
    config.env = rowsToRecord(form.env, 'env', ctx);
    if (form.cwd.trim() !== '') config.cwd = form.cwd.trim();
    // No section saved and none edited: the app's default applies (nothing is written).
    if (form.sandbox.present) {
      const words = (rows: { value: string }[]) => rows.map((r) => r.value).filter((v) => v !== '');
      config.sandbox = {
        enabled: form.sandbox.enabled,
        read: words(form.sandbox.read),
        denyRead: form.sandbox.denyRead,
        write: words(form.sandbox.write),
        hosts: words(form.sandbox.hosts),
      };
    }
  } else {
    config.url = form.url;
    config.headers = rowsToRecord(form.headers, 'headers', ctx);
    config.auth = form.oauthEnabled
      ? oauthAuth(form.oauth, ctx)
      : form.bearerEnabled
        ? { kind: 'bearer', token: secretRef(form.bearer, BEARER_SLOT, BEARER_SLOT, ctx) }
        : { kind: 'none' };
  }

  // Empty rows are left out; no folder at all leaves `roots` out (none shared).
  const roots = form.roots.map((r) => r.value).filter((r) => r !== '');
  if (roots.length > 0) config.roots = roots;

  const validation = validateServerConfig(config);
  if (!validation.ok) {
    for (const [key, messages] of Object.entries(validation.fieldErrors))
      for (const m of messages) addError(errors, key, m);
  }
  if (Object.keys(errors).length > 0) return { ok: false, fieldErrors: errors };
  return { ok: true, request: { mode: form.mode === 'edit' ? 'update' : 'create', config, secrets: ctx.secrets } };
}
