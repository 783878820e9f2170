/**
 * The three persisted hashes (checkpoint argument hashes, permission-rule tool fingerprints,
 * schema-cache connection fingerprints) now share electron/util/stableHash.ts. The digests below
 * were printed by the three separate implementations before they were unified; a stored hash
 * that changed would break replay, "always allow" rules and the schema cache.
 */
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { hashArguments } from '../../electron/checkpoints/hash.js';
import { connectionFingerprint } from '../../electron/mcp/fingerprint.js';
import { toolSchemaFingerprint } from '../../electron/security/fingerprint.js';
import { stableHash } from '../../electron/util/stableHash.js';

const readFileTool = {
  name: 'read_file',
  description: 'Reads a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  annotations: { readOnlyHint: true },
};

describe('stable hashes are byte-identical to the values persisted before unification', () => {
  it('checkpoint argument hashes', () => {
    expect(hashArguments({ b: [1, 'two', { z: null, a: true }], a: 'é', u: undefined })).toBe(
      '752482743f61de0b440d920421d3f38399a178d1479936ef6ea24b4a90c9de97',
    );
    expect(hashArguments({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('permission-rule tool fingerprints', () => {
    expect(toolSchemaFingerprint(readFileTool)).toBe(
      'sha256:c2c72e7368bffd9031e930679f7700c6f0d850d8377f204136ba5544cfac1e02',
    );
    expect(toolSchemaFingerprint({ name: 'echo', inputSchema: { type: 'object' } })).toBe(
      'sha256:5cea4ffeb632f8e79e4324a41f46f4effb91e3e5634bccc40979cda59c14c437',
    );
  });

  it('connection fingerprints (schema cache keys)', () => {
    const stdio = {
      id: 'fs',
      name: 'fs',
      transport: 'stdio',
      command: 'node',
      args: ['server.js'],
      env: { A: '1' },
      enabled: true,
    } as unknown as ServerConfig;
    const http = {
      id: 'web',
      name: 'web',
      transport: 'http',
      url: 'http://127.0.0.1:3000/mcp',
      headers: { 'X-Key': { secret: 'k' } },
      enabled: true,
    } as unknown as ServerConfig;
    expect(connectionFingerprint(stdio)).toBe('d266df289c920a127aa1732c9862f3fa1f56d2c98d41fee4e746566108d4bc06');
    expect(connectionFingerprint(http)).toBe('501c36c539c33bad902df3cb5a89180958eafa9112f31ba7f946ecc76ec83b07');
  });
});

describe('stableHash', () => {
  it('ignores key order at every depth and drops undefined properties', () => {
    expect(stableHash({ a: 1, b: { c: [1, { d: 2, e: 3 }] } })).toBe(
      stableHash({ b: { c: [1, { e: 3, d: 2 }] }, a: 1, x: undefined }),
    );
    expect(stableHash({ a: 1 })).not.toBe(stableHash({ a: '1' }));
  });

  it('refuses values JSON cannot represent instead of hashing a guess', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => stableHash(undefined)).toThrow(TypeError);
    expect(() => stableHash({ f: () => 1 })).toThrow();
    expect(() => stableHash({ n: Number.NaN })).toThrow();
    expect(() => stableHash({ n: 1n })).toThrow();
    expect(() => stableHash(cyclic)).toThrow();
  });
});
