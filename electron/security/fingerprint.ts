/**
 * A tool's schema fingerprint: a hash of what the user saw when they said "allow always"
 * (name, description, input schema, annotations). If a server later changes any of it, the
 * fingerprint changes and the standing permission no longer applies — it asks again.
 */
import { stableHash } from '../util/stableHash.js';

export interface FingerprintableTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  annotations?: unknown;
}

export function toolSchemaFingerprint(tool: FingerprintableTool): string {
  // Key order must not matter: servers may serialize the same schema differently (stableHash sorts keys).
  return `sha256:${stableHash({
    name: tool.name,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    annotations: tool.annotations ?? null,
  })}`;
}
