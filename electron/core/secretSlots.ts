/**
 * Secret slots: how a server configuration refers to the secrets the GUI stored for it.
 *
 * The renderer names a secret field by its slot (`auth.token`, `env.NAME`, `headers.NAME`); the
 * configuration file holds `{secret: {source: 'store', key: 'server/<id>/<slot>'}}`; the value
 * lives only in the secret store. These functions convert between the two forms and list the
 * slots a configuration uses.
 */
import type { SecretRef } from '../../shared/serverConfig.js';

/** The secret fields of an OAuth server's auth: a pre-registered client's secret, a private_key_jwt key. */
const OAUTH_SLOTS = ['clientSecret', 'privateKey'] as const;

export interface SlotRef {
  /** `auth.token`, `auth.clientSecret`, `auth.privateKey`, `env.NAME` or `headers.NAME` — also the form field's path. */
  slot: string;
  ref: SecretRef;
}

const STORE_PREFIX = 'server/';

export function storageKey(serverId: string, slot: string): string {
  return `${STORE_PREFIX}${serverId}/${slot}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function refOf(value: unknown): SecretRef | undefined {
  if (!isRecord(value) || !isRecord(value.secret)) return undefined;
  const secret = value.secret;
  if (secret.source === 'store' && typeof secret.key === 'string') return { source: 'store', key: secret.key };
  if (secret.source === 'env' && typeof secret.name === 'string') return { source: 'env', name: secret.name };
  return undefined;
}

/** Every secret reference in a (possibly unvalidated) configuration, with its slot. */
export function secretRefs(config: Record<string, unknown>): SlotRef[] {
  const out: SlotRef[] = [];
  const auth = config.auth;
  if (isRecord(auth) && auth.kind === 'bearer') {
    const token = auth.token;
    if (isRecord(token) && (token.source === 'store' || token.source === 'env')) {
      const ref = refOf({ secret: token });
      if (ref) out.push({ slot: 'auth.token', ref });
    }
  }
  if (isRecord(auth) && auth.kind === 'oauth') {
    for (const field of OAUTH_SLOTS) {
      const ref = refOf({ secret: auth[field] });
      if (ref) out.push({ slot: `auth.${field}`, ref });
    }
  }
  for (const field of ['env', 'headers'] as const) {
    const values = config[field];
    if (!isRecord(values)) continue;
    for (const [name, value] of Object.entries(values)) {
      const ref = refOf(value);
      if (ref) out.push({ slot: `${field}.${name}`, ref });
    }
  }
  return out;
}

/**
 * Rewrites every store reference's key: `toKey(slot)` gives the new key. Used to turn the
 * renderer's slot names into storage keys (on save) and back (in views).
 */
export function mapStoreKeys(
  config: Record<string, unknown>,
  toKey: (slot: string) => string,
): Record<string, unknown> {
  const copy = structuredClone(config);
  const auth = copy.auth;
  if (isRecord(auth) && auth.kind === 'bearer' && isRecord(auth.token) && auth.token.source === 'store') {
    auth.token = { source: 'store', key: toKey('auth.token') };
  }
  if (isRecord(auth) && auth.kind === 'oauth') {
    for (const field of OAUTH_SLOTS) {
      if (refOf({ secret: auth[field] })?.source === 'store')
        auth[field] = { source: 'store', key: toKey(`auth.${field}`) };
    }
  }
  for (const field of ['env', 'headers'] as const) {
    const values = copy[field];
    if (!isRecord(values)) continue;
    for (const [name, value] of Object.entries(values)) {
      if (refOf(value)?.source === 'store')
        values[name] = { secret: { source: 'store', key: toKey(`${field}.${name}`) } };
    }
  }
  return copy;
}
