/**
 * Finding the messages for one form field among field errors keyed by dotted path (`url`,
 * `env.API_KEY`, `headers.X-Key`, `auth.token.key`): a field takes its own path and, for fields
 * that stand for a nested value, everything below it. What no field takes is shown at the top.
 */
import type { FieldErrors } from '../../../../../shared/serverConfig.js';

export interface ErrorLookup {
  /** Messages for exactly this path. */
  at(path: string): string[];
  /** Messages for this path and anything below it (`env.X` takes `env.X.secret.name`). */
  under(path: string): string[];
}

function isUnder(key: string, path: string): boolean {
  return key === path || key.startsWith(`${path}.`);
}

export function errorLookup(errors: FieldErrors): ErrorLookup {
  return {
    at: (path) => errors[path] ?? [],
    under: (path) =>
      Object.entries(errors)
        .filter(([key]) => isUnder(key, path))
        .flatMap(([, messages]) => messages),
  };
}

export interface Claims {
  exact: string[];
  nested: string[];
}

/** Errors no field shows, as "field: message" lines (the whole-config key `''` reads "Settings"). */
export function unclaimedErrors(errors: FieldErrors, claims: Claims): string[] {
  return Object.entries(errors)
    .filter(([key]) => !claims.exact.includes(key) && !claims.nested.some((path) => isUnder(key, path)))
    .flatMap(([key, messages]) => messages.map((m) => (key ? `${key}: ${m}` : m)));
}

/** Drops the errors a field showed once the person edits that field. */
export function withoutErrorsFor(errors: FieldErrors, paths: string[]): FieldErrors {
  const next: FieldErrors = {};
  let changed = false;
  for (const [key, messages] of Object.entries(errors)) {
    if (paths.some((path) => isUnder(key, path))) changed = true;
    else next[key] = messages;
  }
  return changed ? next : errors;
}

export function mergeErrors(...sources: FieldErrors[]): FieldErrors {
  const out: FieldErrors = {};
  for (const source of sources) {
    for (const [key, messages] of Object.entries(source)) {
      const list = (out[key] ??= []);
      for (const m of messages) if (!list.includes(m)) list.push(m);
    }
  }
  return out;
}
