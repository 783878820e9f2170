/**
 * One-step install from the registry's published server.json examples (served by the registry
 * double): the form each needs (required first, secrets as secret fields), the configuration
 * built (pinned, secrets as store references and never in the file, sandbox on with the
 * remotes' hosts, untrusted, the origin recorded), a launcher missing here shown before install,
 * an mcpb bundle with its hash checked (right and wrong), and an update's changes.
 *
 * Run: npx vitest run test/catalog/install.test.ts
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogService } from '../../electron/catalog/catalogService.js';
import { buildConfig, checkAnswers, fieldsOf } from '../../electron/catalog/installPlan.js';
import { mapStoreKeys } from '../../electron/core/secretSlots.js';
import type { ServerView } from '../../shared/contract.js';
import { ServerDetailSchema } from '../../shared/registryServer.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { ServerConfigSchema } from '../../shared/serverConfig.js';
import type { RegistryDouble } from '../doubles/registry/registryDouble.js';
import { fixtureDocuments, startRegistryDouble } from '../doubles/registry/registryDouble.js';

const docs = fixtureDocuments();
const entry = (name: string) => ServerDetailSchema.parse(docs[name]);

describe('the install form and configuration', () => {
  it('npm with a secret env var: npx -y pinned, the secret as a store slot, sandbox on, untrusted', () => {
    const server = entry('brave-search');
    const fields = fieldsOf(server, { kind: 'package', index: 0 });
    expect(fields).toEqual([
      {
        key: 'env.BRAVE_API_KEY',
        label: 'BRAVE_API_KEY',
        description: 'Brave Search API Key',
        required: true,
        secret: true,
      },
    ]);
    expect(checkAnswers(fields, {})).toEqual({ 'env.BRAVE_API_KEY': ['is required'] });
    const built = buildConfig({
      id: 'brave',
      registry: 'https://r.example',
      server,
      option: { kind: 'package', index: 0 },
      answers: { 'env.BRAVE_API_KEY': 'sk-brave-123' },
    });
    expect(built.config).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-brave-search@1.0.2'],
      env: { BRAVE_API_KEY: { secret: { source: 'store', key: 'env.BRAVE_API_KEY' } } },
      sandbox: { enabled: true, hosts: [] },
      trusted: false,
      catalog: { registry: 'https://r.example', name: server.name, version: '1.0.2', inputs: {} },
    });
    expect(built.secrets).toEqual({ 'env.BRAVE_API_KEY': 'sk-brave-123' });
    expect(JSON.stringify(built.config)).not.toContain('sk-brave-123');
    // The configuration is one the app accepts (store keys as ServerService makes them).
    expect(ServerConfigSchema.safeParse(mapStoreKeys(built.config, (slot) => `server/brave/${slot}`)).success).toBe(
      true,
    );
  });

  it('oci with named runtime arguments and variables, positional and named package arguments, choices', () => {
    const server = entry('database-manager-oci');
    const fields = fieldsOf(server, { kind: 'package', index: 0 });
    // Required first, in the entry's order; fixed values (--network host) are not asked.
    expect(fields.map((f) => [f.key, f.required, f.secret])).toEqual([
      ['args.runtime.1.db_type', true, false],
      ['args.package.0', true, false],
      ['args.package.2', true, false],
      ['env.DB_USERNAME', true, false],
      ['env.DB_PASSWORD', true, true],
      ['args.package.1', false, false],
      ['env.SSL_MODE', false, false],
    ]);
    expect(checkAnswers(fields, { 'args.runtime.1.db_type': 'oracle', 'args.package.1': 'x' })).toMatchObject({
      'args.runtime.1.db_type': ['must be one of postgres, mysql, mongodb, redis'],
      'args.package.1': ['must be a number'],
      'args.package.2': ['is required'],
    });
    const built = buildConfig({
      id: 'db',
      registry: 'https://r.example',
      server,
      option: { kind: 'package', index: 0 },
      answers: {
        'args.runtime.1.db_type': 'postgres',
        'args.package.2': 'sales',
        'env.DB_USERNAME': 'me',
        'env.DB_PASSWORD': 'hunter2',
      },
    });
    expect(built.config).toMatchObject({
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'DB_USERNAME',
        '-e',
        'DB_PASSWORD',
        '-e',
        'SSL_MODE',
        '--network',
        'host',
        '-e',
        'DB_TYPE=postgres',
        'docker.io/example/database-manager-mcp:3.1.0',
        '--host',
        'localhost',
        'sales',
      ],
      env: {
        DB_USERNAME: 'me',
        SSL_MODE: 'prefer',
        DB_PASSWORD: { secret: { source: 'store', key: 'env.DB_PASSWORD' } },
      },
    });
    expect(built.secrets).toEqual({ 'env.DB_PASSWORD': 'hunter2' });
  });

  it('a remote with a secret header and a header with choices; the package sandbox names the remote hosts only', () => {
    const server = entry('hybrid-remote');
    const fields = fieldsOf(server, { kind: 'remote', index: 0 });
    expect(fields.map((f) => [f.key, f.secret, f.choices])).toEqual([
      ['headers.X-API-Key', true, undefined],
      ['headers.X-Region', false, ['us-east-1', 'eu-west-1', 'ap-southeast-1']],
    ]);
    const remote = buildConfig({
      id: 'hybrid',
      registry: 'https://r.example',
      server,
      option: { kind: 'remote', index: 0 },
      answers: { 'headers.X-API-Key': 'key-1' },
    });
    expect(remote.config).toMatchObject({
      transport: 'streamable_http',
      url: 'https://mcp.anonymous.modelcontextprotocol.io/http',
      headers: { 'X-API-Key': { secret: { source: 'store', key: 'headers.X-API-Key' } }, 'X-Region': 'us-east-1' },
    });
    expect(remote.secrets).toEqual({ 'headers.X-API-Key': 'key-1' });
    const pkg = buildConfig({ id: 'h', registry: 'r', server, option: { kind: 'package', index: 0 }, answers: {} });
    expect(pkg.config).toMatchObject({
      args: ['-y', '@example/hybrid-mcp-server@1.5.0', '--mode', 'local'],
      sandbox: { enabled: true, hosts: ['mcp.anonymous.modelcontextprotocol.io'] },
    });
  });

  it('a remote with URL variables and a bearer Authorization header: the token goes to auth, in the store', () => {
    const server = ServerDetailSchema.parse({
      name: 'com.example/tenant',
      description: 'x',
      version: '1.0.0',
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://{tenant}.example.com/mcp',
          variables: { tenant: { description: 'Your tenant', isRequired: true } },
          headers: [
            {
              name: 'Authorization',
              value: 'Bearer {token}',
              variables: { token: { isRequired: true, isSecret: true } },
            },
          ],
        },
      ],
    });
    const fields = fieldsOf(server, { kind: 'remote', index: 0 });
    expect(fields.map((f) => [f.key, f.secret])).toEqual([
      ['url.tenant', false],
      ['headers.Authorization.token', true],
    ]);
    const built = buildConfig({
      id: 't',
      registry: 'r',
      server,
      option: { kind: 'remote', index: 0 },
      answers: { 'url.tenant': 'acme', 'headers.Authorization.token': 'tok-9' },
    });
    expect(built.config).toMatchObject({
      url: 'https://acme.example.com/mcp',
      headers: {},
      auth: { kind: 'bearer', token: { source: 'store', key: 'auth.token' } },
    });
    expect(built.secrets).toEqual({ 'auth.token': 'tok-9' });
  });
});

describe('CatalogService install and update', () => {
  let registry: RegistryDouble;
  let dataDir: string;
  let saved: Array<{ mode: string; config: Record<string, unknown>; secrets: Record<string, string> }>;
  let servers: ServerConfig[];

  beforeEach(async () => {
    registry = await startRegistryDouble(Object.values(docs).map((doc) => ({ doc })));
    dataDir = mkdtempSync(join(tmpdir(), 'mh-catalog-install-'));
    saved = [];
    servers = [];
  });
  afterEach(async () => {
    await registry.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function catalog(programs = ['npx', 'docker', 'node']) {
    return new CatalogService({
      dataDir,
      config: { get: (k) => (k === 'catalog.registries' ? [registry.url] : undefined), set: () => undefined },
      servers: () => servers,
      save: async (request) => {
        saved.push(request);
        const config = ServerConfigSchema.parse(
          mapStoreKeys(request.config, (slot) => `server/${String(request.config.id)}/${slot}`),
        );
        servers = [...servers.filter((s) => s.id !== config.id), config];
        return { config: request.config, status: { state: 'idle' }, secrets: {}, toolCount: 0 } as ServerView;
      },
      hasProgram: (c) => programs.includes(c),
    });
  }

  it('shows a launcher missing here before install, with what to install, and refuses the install', async () => {
    const ref = {
      registry: registry.url,
      name: 'io.github.example/weather-mcp',
      option: { kind: 'package' as const, index: 0 },
    };
    const plan = await catalog().plan(ref);
    expect(plan.blocker).toMatch(/uvx is not installed on this machine\. Install uv/);
    await expect(catalog().install({ ...ref, id: 'weather', values: {} })).rejects.toMatchObject({
      code: 'runtime_missing',
    });
    const nuget = await catalog().plan({ ...ref, name: 'io.github.joelverhagen/knapcode-samplemcpserver' });
    expect(nuget.blocker).toMatch(/dnx is not installed.*\.NET 10 SDK/);
    expect(saved).toHaveLength(0);
  });

  it('saves nothing until the form validates; then records who, when and which version', async () => {
    const ref = {
      registry: registry.url,
      name: 'io.github.modelcontextprotocol/everything',
      version: '2026.8.18',
      option: { kind: 'package' as const, index: 0 },
    };
    await expect(catalog().install({ ...ref, id: 'everything', values: {} })).rejects.toMatchObject({
      code: 'validation',
      details: { fieldErrors: { 'env.EVERYTHING_TOKEN': ['is required'] } },
    });
    expect(saved).toHaveLength(0);
    await catalog().install({ ...ref, id: 'everything', values: { 'env.EVERYTHING_TOKEN': 's3cret' } });
    expect(saved[0]).toMatchObject({
      mode: 'create',
      config: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything@2026.8.18', 'stdio'],
        catalog: {
          version: '2026.8.18',
          history: [{ action: 'installed', version: '2026.8.18', by: expect.any(String) }],
        },
      },
      secrets: { 'env.EVERYTHING_TOKEN': 's3cret' },
    });

    // The registry has 2026.8.31: an update is offered, and its changes shown before it is applied.
    expect(await catalog().updates()).toEqual([
      { serverId: 'everything', name: ref.name, installed: '2026.8.18', latest: '2026.8.31' },
    ]);
    const preview = await catalog().previewUpdate('everything');
    expect(preview).toMatchObject({ from: '2026.8.18', to: '2026.8.31', fields: [] });
    expect(preview.changes).toEqual([
      { what: 'version', before: '2026.8.18', after: '2026.8.31' },
      {
        what: 'arguments',
        before: '-y @modelcontextprotocol/server-everything@2026.8.18 stdio',
        after: '-y @modelcontextprotocol/server-everything@2026.8.31 stdio',
      },
      { what: 'environment', before: 'EVERYTHING_TOKEN', after: 'EVERYTHING_LOG, EVERYTHING_TOKEN' },
    ]);
    expect(saved).toHaveLength(1);
    await catalog().applyUpdate('everything', '2026.8.31', {});
    // The secret is kept in the store (referenced, not sent again); the history grows.
    expect(saved[1]).toMatchObject({
      mode: 'update',
      secrets: {},
      config: {
        args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio'],
        env: { EVERYTHING_TOKEN: { secret: { source: 'store', key: 'env.EVERYTHING_TOKEN' } }, EVERYTHING_LOG: 'info' },
        catalog: {
          version: '2026.8.31',
          history: [{ action: 'installed' }, { action: 'updated', from: '2026.8.18', version: '2026.8.31' }],
        },
      },
    });
  });

  async function bundle(): Promise<Buffer> {
    const zip = new JSZip();
    zip.file(
      'manifest.json',
      JSON.stringify({
        name: 'text-editor',
        server: {
          type: 'node',
          entry_point: 'server/index.js',
          mcp_config: { command: 'node', args: ['${__dirname}/server/index.js'] },
        },
      }),
    );
    zip.file('server/index.js', 'console.log("hello")\n');
    return zip.generateAsync({ type: 'nodebuffer' });
  }

  it('mcpb: a wrong hash refuses with both hashes and unpacks nothing; the right one unpacks into the server folder', async () => {
    const bytes = await bundle();
    registry.files.set('text-editor.mcpb', bytes);
    const wrong = structuredClone(docs['text-editor-mcpb']!) as { packages: Array<Record<string, unknown>> };
    wrong.packages[0]!.identifier = `${registry.url}/files/text-editor.mcpb`;
    const right = structuredClone(wrong) as typeof wrong & { name: string };
    right.name = 'io.modelcontextprotocol/text-editor-ok';
    const actual = createHash('sha256').update(bytes).digest('hex');
    right.packages[0]!.fileSha256 = actual;
    registry.setDocuments([{ doc: wrong }, { doc: right }]);
    const ref = { registry: registry.url, option: { kind: 'package' as const, index: 0 }, values: {} };

    await expect(
      catalog().install({ ...ref, name: 'io.modelcontextprotocol/text-editor', id: 'editor' }),
    ).rejects.toMatchObject({
      code: 'package_hash_mismatch',
      message: expect.stringContaining(
        `${actual}, but the registry entry says fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce`,
      ),
    });
    expect(existsSync(join(dataDir, 'sandbox', 'editor'))).toBe(false);
    expect(saved).toHaveLength(0);

    await catalog().install({ ...ref, name: 'io.modelcontextprotocol/text-editor-ok', id: 'editor' });
    const folder = join(dataDir, 'sandbox', 'editor', 'bundle');
    expect(readFileSync(join(folder, 'server', 'index.js'), 'utf8')).toContain('hello');
    expect(saved[0]!.config).toMatchObject({
      command: 'node',
      args: [join(folder, 'server', 'index.js')],
      sandbox: { enabled: true },
    });
  });

  it('mcpb: a bundle naming a file outside its folder is refused', async () => {
    const zip = new JSZip();
    zip.file('manifest.json', JSON.stringify({ server: { type: 'node', entry_point: 'index.js' } }));
    zip.file('../../escape.js', 'x');
    const bytes = await zip.generateAsync({ type: 'nodebuffer' });
    registry.files.set('evil.mcpb', bytes);
    const doc = structuredClone(docs['text-editor-mcpb']!) as { packages: Array<Record<string, unknown>> };
    doc.packages[0]!.identifier = `${registry.url}/files/evil.mcpb`;
    doc.packages[0]!.fileSha256 = createHash('sha256').update(bytes).digest('hex');
    registry.setDocuments([{ doc }]);
    await expect(
      catalog().install({
        registry: registry.url,
        name: 'io.modelcontextprotocol/text-editor',
        option: { kind: 'package', index: 0 },
        id: 'evil',
        values: {},
      }),
    ).rejects.toMatchObject({ code: 'bad_response', message: /outside its folder/ });
    expect(existsSync(join(dataDir, 'sandbox', 'escape.js'))).toBe(false);
    expect(existsSync(join(dataDir, 'sandbox', 'evil', 'bundle', 'manifest.json'))).toBe(false);
    expect(saved).toHaveLength(0);
  });
});
