import { describe, expect, it } from 'vitest';
import { planImport, slugify } from '../../electron/core/importer.js';

describe('config import planning', () => {
  it('reads a VS Code mcp.json with comments, inputs, env references and an HTTP server', () => {
    const content = `{
      // VS Code allows comments and trailing commas
      "inputs": [{ "type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true }],
      "servers": {
        "github": {
          "type": "stdio",
          "command": "npx",
          "args": ["-y", "@modelcontextprotocol/server-github"],
          "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "\${input:gh-token}", "HOME_DIR": "\${env:HOME}", "LOG": "debug" },
        },
        "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer sk-file-secret-123", "X-Team": "blue" } },
      },
    }`;
    const plan = planImport(content, '.vscode/mcp.json');
    expect(plan.format).toBe('vscode');
    expect(plan.inputs).toEqual([{ id: 'gh-token', description: 'GitHub token', password: true }]);
    const [github, remote] = plan.servers;
    expect(github?.config).toEqual({
      id: 'github',
      name: 'github',
      enabled: true,
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: {
        GITHUB_PERSONAL_ACCESS_TOKEN: { secret: { source: 'store', key: 'env.GITHUB_PERSONAL_ACCESS_TOKEN' } },
        HOME_DIR: { secret: { source: 'env', name: 'HOME' } },
        LOG: 'debug',
      },
    });
    expect(github?.inputSecrets).toEqual({ 'env.GITHUB_PERSONAL_ACCESS_TOKEN': 'gh-token' });
    expect(remote?.config).toMatchObject({
      transport: 'streamable_http',
      url: 'https://mcp.example.com/mcp',
      headers: { 'X-Team': 'blue' },
      auth: { kind: 'bearer', token: { source: 'store', key: 'auth.token' } },
    });
    expect(remote?.fileSecrets).toEqual({ 'auth.token': 'sk-file-secret-123' });
    expect(JSON.stringify(plan.servers.map((s) => s.config))).not.toContain('sk-file-secret-123');
  });

  it('reads Cursor mcp.json (mcpServers with url) and tells Claude Desktop files apart', () => {
    expect(planImport('{"mcpServers":{"a":{"url":"https://x.example/mcp"}}}', '/home/me/.cursor/mcp.json').format).toBe(
      'cursor',
    );
    expect(planImport('{"mcpServers":{"a":{"command":"x"}}}', 'claude_desktop_config.json').format).toBe('claude');
  });

  it('reports entries it cannot import, and SSE servers, without failing the file', () => {
    const plan = planImport(
      '{"mcpServers":{"empty":{},"sse":{"type":"sse","url":"https://x.example/sse"}, "x": 3}}',
      'claude_desktop_config.json',
    );
    expect(plan.servers.map((s) => [s.name, s.problems.length > 0, s.config !== undefined])).toEqual([
      ['empty', true, false],
      ['sse', true, true],
      ['x', true, false],
    ]);
  });

  it('gives unique, valid ids', () => {
    const plan = planImport(
      '{"mcpServers":{"My Server":{"command":"a"},"my server":{"command":"b"},"local":{"command":"c"}}}',
    );
    expect(plan.servers.map((s) => s.config?.id)).toEqual(['my-server', 'my-server-2', 'server-local']);
    expect(slugify('  ')).toBe('server-imported');
  });

  it('refuses malformed and foreign files with a clear error', () => {
    expect(() => planImport('{ "mcpServers": ')).toThrow(/not valid JSON/);
    expect(() => planImport('[1,2]')).toThrow(/not valid JSON/);
    expect(() => planImport('{"name":"package"}')).toThrow(/not an MCP configuration file/);
  });
});
