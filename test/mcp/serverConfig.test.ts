import { describe, expect, it } from 'vitest';
import { connectionFingerprint } from '../../electron/mcp/fingerprint.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { StdioServerConfigSchema, validateServerConfig } from '../../shared/serverConfig.js';

function valid(input: unknown): ServerConfig {
  const result = validateServerConfig(input);
  if (!result.ok) throw new Error(JSON.stringify(result.fieldErrors));
  return result.value;
}

describe('server configuration schema (shared with the GUI)', () => {
  it('fills defaults for a stdio server and keeps command and args apart', () => {
    expect(
      valid({
        id: 'fs',
        name: 'Files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@scope/server', '--root', '/a b'],
      }),
    ).toEqual({
      id: 'fs',
      name: 'Files',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@scope/server', '--root', '/a b'],
      env: {},
      timeoutMs: 30_000,
      priority: 0,
      enabled: true,
      trusted: false,
      protocolEra: 'auto',
    });
  });

  it('pins a protocol era only to auto, legacy or modern', () => {
    expect(valid({ id: 'p', name: 'P', transport: 'stdio', command: 'srv', protocolEra: 'modern' }).protocolEra).toBe(
      'modern',
    );
    expect(valid({ id: 'p', name: 'P', transport: 'stdio', command: 'srv', protocolEra: 'legacy' }).protocolEra).toBe(
      'legacy',
    );
    const result = validateServerConfig({
      id: 'p',
      name: 'P',
      transport: 'stdio',
      command: 'srv',
      protocolEra: '2026',
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && Object.keys(result.fieldErrors)).toEqual(['protocolEra']);
  });

  it('accepts http as an alias of streamable_http', () => {
    expect(valid({ id: 'r', name: 'R', transport: 'http', url: 'https://example.com/mcp' }).transport).toBe(
      'streamable_http',
    );
  });

  it('gives field-level errors', () => {
    const result = validateServerConfig({
      id: 'UPPER',
      name: '  ',
      transport: 'streamable_http',
      url: 'ftp://x',
      timeoutMs: 5,
      headers: { 'bad header': 'x', Authorization: 'Bearer x' },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.fieldErrors).sort()).toEqual([
      'headers.Authorization',
      'headers.bad header',
      'id',
      'name',
      'timeoutMs',
      'url',
    ]);
    expect(result.fieldErrors.url).toEqual(['must start with http:// or https://']);
    expect(result.fieldErrors.timeoutMs).toEqual(['at least 100 ms']);
  });

  it('reserves the id of the local tools', () => {
    const result = validateServerConfig({ id: 'local', name: 'Impostor', transport: 'stdio', command: 'x' });
    expect(result).toEqual({ ok: false, fieldErrors: { id: ['"local" is reserved for the app\'s own tools'] } });
  });

  it('names an unknown transport clearly', () => {
    const result = validateServerConfig({ id: 'x', name: 'X', transport: 'sse' });
    expect(result).toEqual({
      ok: false,
      fieldErrors: { transport: ['unknown transport "sse": use "stdio", "streamable_http" or "http"'] },
    });
  });

  it('holds secret references, never values, and refuses credentials in URLs', () => {
    const config = valid({
      id: 'gh',
      name: 'GitHub',
      transport: 'stdio',
      command: 'gh-mcp',
      env: { GITHUB_TOKEN: { secret: { source: 'store', key: 'gh-token' } }, LOG_LEVEL: 'info' },
    });
    expect(config.transport === 'stdio' && config.env.GITHUB_TOKEN).toEqual({
      secret: { source: 'store', key: 'gh-token' },
    });
    const withCreds = validateServerConfig({
      id: 'x',
      name: 'X',
      transport: 'http',
      url: 'https://user:pass@example.com/mcp',
    });
    expect(withCreds.ok).toBe(false);
  });

  it('fingerprints only what decides which server is reached', () => {
    const base = StdioServerConfigSchema.parse({
      id: 'a',
      name: 'A',
      transport: 'stdio',
      command: 'srv',
      args: ['--x'],
    });
    expect(connectionFingerprint({ ...base, name: 'Renamed', priority: 7, enabled: false })).toBe(
      connectionFingerprint(base),
    );
    expect(connectionFingerprint({ ...base, args: ['--y'] })).not.toBe(connectionFingerprint(base));
    expect(connectionFingerprint({ ...base, env: { K: 'v' } })).not.toBe(connectionFingerprint(base));
  });
});
