/**
 * The sandbox profile of a stdio server (issue 29), per platform, and what the app hands
 * sandbox-runtime for it — checked against the library's own configuration schema and host
 * grammar, so a profile the library would refuse fails here, on any machine.
 */
import { SandboxRuntimeConfigSchema } from '@anthropic-ai/sandbox-runtime';
import { describe, expect, it } from 'vitest';
import { checkPrograms, ownFolderOf, ServerSandboxes } from '../../electron/sandbox/serverSandbox.js';
import { sandboxProfileView } from '../../electron/sandbox/profileView.js';
import { runtimeConfigOf } from '../../electron/sandbox/runtimeConfig.js';
import type { ProfileInput } from '../../electron/sandbox/serverProfile.js';
import {
  buildServerProfile,
  installFolderOf,
  launcherOf,
  NPM_REGISTRY_HOSTS,
  PYPI_HOSTS,
} from '../../electron/sandbox/serverProfile.js';
import { StdioServerConfigSchema, validateServerConfig } from '../../shared/serverConfig.js';

const none = { read: [], denyRead: [], write: [], hosts: [] };

function linux(overrides: Partial<ProfileInput> = {}): ProfileInput {
  return {
    platform: 'linux',
    home: '/home/ann',
    dataDir: '/home/ann/.config/MiniHarness',
    ownDir: '/home/ann/.config/MiniHarness/sandbox/files',
    runtimeDir: '/run/user/1000',
    command: { given: '/usr/bin/mcp-files', path: '/usr/bin/mcp-files', real: '/usr/bin/mcp-files' },
    args: [],
    roots: [],
    settings: none,
    ...overrides,
  };
}

/** What the library's schema makes of the whole configuration a wrap runs under. */
function acceptedByLibrary(input: ProfileInput): void {
  const config = runtimeConfigOf(buildServerProfile(input), input.platform);
  if (!config.ok) throw new Error(config.code);
  const parsed = SandboxRuntimeConfigSchema.safeParse({
    network: { allowedDomains: config.hosts, deniedDomains: [] },
    filesystem: config.customConfig.filesystem,
  });
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
}

describe('the default profile', () => {
  it('Linux: hides every home, the data folder and the runtime folder; writes only its own folder; no host', () => {
    const profile = buildServerProfile(linux());
    expect(profile.read.deny).toEqual(['/home/ann', '/home', '/home/ann/.config/MiniHarness', '/run/user/1000']);
    expect(profile.read.allow).toEqual(['/home/ann/.config/MiniHarness/sandbox/files']);
    expect(profile.write).toEqual(['/home/ann/.config/MiniHarness/sandbox/files']);
    expect(profile.hosts).toEqual([]);
    expect(profile.env).toEqual({ TMPDIR: '/home/ann/.config/MiniHarness/sandbox/files/tmp' });
    // A program under /usr is readable anyway: nothing is added for it.
    expect(profile.additions.map((a) => a.reason)).toEqual(['own_folder']);
    acceptedByLibrary(linux());
  });

  it('macOS: /Users instead of /home', () => {
    const input = linux({
      platform: 'darwin',
      home: '/Users/ann',
      dataDir: '/Users/ann/Library/Application Support/MiniHarness',
      ownDir: '/Users/ann/Library/Application Support/MiniHarness/sandbox/files',
      runtimeDir: undefined,
    });
    const profile = buildServerProfile(input);
    expect(profile.read.deny).toEqual(['/Users/ann', '/Users', '/Users/ann/Library/Application Support/MiniHarness']);
    expect(profile.write).toEqual(['/Users/ann/Library/Application Support/MiniHarness/sandbox/files']);
    acceptedByLibrary(input);
  });

  it('Windows and other platforms are refused with a code, never run unconfined', () => {
    const profile = buildServerProfile(linux({ platform: 'win32', home: 'C:\\Users\\ann' }));
    expect(runtimeConfigOf(profile, 'win32')).toEqual({ ok: false, code: 'windows_per_server_grants' });
    expect(runtimeConfigOf(profile, 'freebsd')).toEqual({ ok: false, code: 'platform_unsupported' });
  });

  it('roots and listed entries are added with their reason; a write is readable too', () => {
    const profile = buildServerProfile(
      linux({
        roots: ['/home/ann/project'],
        settings: {
          read: ['/home/ann/.config/foo'],
          denyRead: ['/etc/secret'],
          write: ['/srv/out'],
          hosts: ['api.example.com:443'],
        },
      }),
    );
    expect(profile.read.deny).toContain('/etc/secret');
    expect(profile.read.allow).toEqual(
      expect.arrayContaining(['/home/ann/project', '/home/ann/.config/foo', '/srv/out']),
    );
    expect(profile.write).toEqual(['/home/ann/.config/MiniHarness/sandbox/files', '/home/ann/project', '/srv/out']);
    expect(profile.hosts).toEqual(['api.example.com:443']);
    expect(profile.additions.find((a) => a.reason === 'roots')).toEqual({
      reason: 'roots',
      read: ['/home/ann/project'],
      write: ['/home/ann/project'],
    });
  });

  it('hands the library literal paths (a folder named with glob characters is that folder)', () => {
    const config = runtimeConfigOf(buildServerProfile(linux({ roots: ['/srv/[WIP] *'] })), 'linux');
    expect(config.ok && config.customConfig.filesystem?.allowWrite).toContainEqual({
      path: '/srv/[WIP] *',
      literal: true,
    });
  });
});

describe('a command installed under the home folder', () => {
  it('nvm node: the link folder and the install prefix are readable, nothing else of home', () => {
    const input = linux({
      command: {
        given: 'node',
        path: '/home/ann/.nvm/versions/node/v24.1.0/bin/node',
        real: '/home/ann/.nvm/versions/node/v24.1.0/bin/node',
      },
      args: ['/home/ann/servers/notes/dist/index.js'],
      scripts: [{ path: '/home/ann/servers/notes/dist/index.js', packageRoot: '/home/ann/servers/notes' }],
    });
    const profile = buildServerProfile(input);
    expect(profile.additions).toEqual([
      expect.objectContaining({ reason: 'own_folder' }),
      {
        reason: 'command_install',
        read: ['/home/ann/.nvm/versions/node/v24.1.0/bin', '/home/ann/.nvm/versions/node/v24.1.0'],
      },
      { reason: 'launcher_script', launcher: 'node', read: ['/home/ann/servers/notes'] },
    ]);
    acceptedByLibrary(input);
  });

  it('~/.local/bin/tool linked into a venv: both folders, never the home folder itself', () => {
    const profile = buildServerProfile(
      linux({
        command: {
          given: 'mcp-tool',
          path: '/home/ann/.local/bin/mcp-tool',
          real: '/home/ann/.local/share/pipx/venvs/mcp-tool/bin/mcp-tool',
        },
      }),
    );
    expect(profile.additions.find((a) => a.reason === 'command_install')?.read).toEqual([
      '/home/ann/.local/bin',
      '/home/ann/.local/share/pipx/venvs/mcp-tool',
    ]);
  });

  it('~/bin/tool: its prefix would be the home folder, so only ~/bin; a script right in home: only the file', () => {
    const profile = buildServerProfile(
      linux({
        command: { given: 'python3', path: '/home/ann/bin/python3', real: '/home/ann/bin/python3' },
        scripts: [{ path: '/home/ann/server.py', packageRoot: '/home/ann' }],
      }),
    );
    const read = profile.additions.flatMap((a) => a.read ?? []);
    expect(read).not.toContain('/home/ann');
    expect(read).toEqual(expect.arrayContaining(['/home/ann/bin', '/home/ann/server.py']));
  });

  it('a working folder under home is readable; the home folder itself as working folder is not opened', () => {
    expect(buildServerProfile(linux({ cwd: '/home/ann/work' })).read.allow).toContain('/home/ann/work');
    expect(buildServerProfile(linux({ cwd: '/home/ann' })).read.allow).not.toContain('/home/ann');
  });
});

describe('launchers get what they need, said as data', () => {
  it('npx: the npm cache (read and write) and the registry', () => {
    const input = linux({
      command: {
        given: 'npx',
        path: '/usr/local/bin/npx',
        real: '/usr/local/lib/node_modules/npm/bin/npx-cli.js',
      },
      args: ['-y', '@modelcontextprotocol/server-memory'],
    });
    const profile = buildServerProfile(input);
    expect(profile.additions.filter((a) => a.launcher === 'npx')).toEqual([
      { reason: 'launcher_npm_cache', launcher: 'npx', read: ['/home/ann/.npm'], write: ['/home/ann/.npm'] },
      { reason: 'launcher_npm_registry', launcher: 'npx', hosts: NPM_REGISTRY_HOSTS },
    ]);
    expect(profile.hosts).toEqual(NPM_REGISTRY_HOSTS);
    // Node reaches its hosts through the sandbox's proxy only when told to honour HTTP(S)_PROXY.
    expect(profile.env.NODE_USE_ENV_PROXY).toBe('1');
    acceptedByLibrary(input);
  });

  it('node is told to use the proxy too; another program is not', () => {
    const node = buildServerProfile(
      linux({ command: { given: 'node', path: '/usr/bin/node', real: '/usr/bin/node' } }),
    );
    expect(node.env.NODE_USE_ENV_PROXY).toBe('1');
    const other = buildServerProfile(linux({ command: { given: 'mcp-go', path: '/usr/bin/mcp-go' } }));
    expect(other.env).toEqual({ TMPDIR: expect.stringMatching(/tmp$/) as string });
  });

  it('uvx: uv cache and its Pythons, per platform, and the package index', () => {
    const onLinux = buildServerProfile(linux({ command: { given: 'uvx' } }));
    expect(onLinux.write).toEqual(expect.arrayContaining(['/home/ann/.cache/uv', '/home/ann/.local/share/uv']));
    expect(onLinux.hosts).toEqual(PYPI_HOSTS);
    const onMac = buildServerProfile(
      linux({ platform: 'darwin', home: '/Users/ann', command: { given: 'uvx' }, runtimeDir: undefined }),
    );
    expect(onMac.write).toContain('/Users/ann/Library/Caches/uv');
  });

  it('docker is recognised and given nothing: not its socket, no registry', () => {
    const docker = buildServerProfile(
      linux({
        command: { given: 'docker', path: '/usr/bin/docker', real: '/usr/bin/docker' },
        args: ['run', '-i', '--rm', 'mcp/fetch'],
      }),
    );
    const plain = buildServerProfile(linux());
    expect(docker.launcher).toBe('docker');
    expect(docker.additions).toEqual(plain.additions);
    expect(docker.read).toEqual(plain.read);
    expect(docker.write).toEqual(plain.write);
    expect(docker.hosts).toEqual([]);
    expect(JSON.stringify(docker)).not.toContain('docker.sock');
  });

  it('the server’s details carry what its launcher added and why, for the GUI', () => {
    const sandboxes = new ServerSandboxes({ dataDir: '/home/ann/.config/MiniHarness', home: '/home/ann' });
    const npx = StdioServerConfigSchema.parse({
      id: 'mem',
      name: 'mem',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { PATH: process.env.PATH ?? '' },
    });
    const view = sandboxProfileView(sandboxes, npx);
    expect(view?.launcher).toBe('npx');
    expect(view?.hidden).toContain('/home/ann');
    expect(view?.additions).toEqual(
      expect.arrayContaining([
        {
          reason: 'own_folder',
          read: [ownFolderOf('/home/ann/.config/MiniHarness', 'mem')],
          write: [ownFolderOf('/home/ann/.config/MiniHarness', 'mem')],
        },
        { reason: 'launcher_npm_registry', launcher: 'npx', hosts: NPM_REGISTRY_HOSTS },
      ]),
    );
    // Off, or an HTTP server: no profile.
    expect(sandboxProfileView(sandboxes, { ...npx, sandbox: { ...none, enabled: false } })).toBeUndefined();
  });

  it('recognises launchers by name on every platform', () => {
    expect(launcherOf('/usr/bin/python3.12', 'linux')).toBe('python');
    expect(launcherOf('C:\\Program Files\\nodejs\\npx.cmd', 'win32')).toBe('npx');
    expect(launcherOf('node.exe', 'win32')).toBe('node');
    expect(launcherOf('/usr/bin/pythonista', 'linux')).toBeUndefined();
    expect(launcherOf('/usr/local/bin/docker', 'linux')).toBe('docker');
    expect(installFolderOf('/opt/node/bin/node', 'linux')).toBe('/opt/node');
    expect(installFolderOf('/opt/tool/tool', 'linux')).toBe('/opt/tool');
  });
});

describe('the platform check names what is missing', () => {
  const only =
    (...present: string[]) =>
    (name: string): string | undefined =>
      present.includes(name) ? `/usr/bin/${name}` : undefined;
  it('Linux needs bubblewrap, socat and ripgrep, each with its own code', () => {
    expect(checkPrograms('linux', '', only())).toMatchObject({ ok: false, reason: 'bubblewrap_missing' });
    expect(checkPrograms('linux', '', only('bwrap'))).toMatchObject({ ok: false, reason: 'socat_missing' });
    expect(checkPrograms('linux', '', only('bwrap', 'socat'))).toMatchObject({ ok: false, reason: 'ripgrep_missing' });
    expect(checkPrograms('linux', '', only('bwrap', 'socat', 'rg'))).toEqual({
      ok: true,
      programs: { bwrap: '/usr/bin/bwrap', socat: '/usr/bin/socat', rg: '/usr/bin/rg' },
    });
  });
  it('macOS needs ripgrep; Windows and others are refused', () => {
    expect(checkPrograms('darwin', '', only())).toMatchObject({ ok: false, reason: 'ripgrep_missing' });
    expect(checkPrograms('darwin', '', only('rg'))).toMatchObject({ ok: true });
    expect(checkPrograms('win32', '', only('rg'))).toMatchObject({ ok: false, reason: 'windows_per_server_grants' });
    expect(checkPrograms('aix', '', only('rg'))).toMatchObject({ ok: false, reason: 'platform_unsupported' });
  });
  it('this machine has all three (CI installs them)', () => {
    if (process.platform === 'linux') expect(checkPrograms()).toMatchObject({ ok: true });
  });
});

describe('the sandbox section of a stdio server config', () => {
  const base = { id: 's', name: 'S', transport: 'stdio', command: 'node' };
  it('is optional (the app default decides) and fills its lists', () => {
    expect(StdioServerConfigSchema.parse(base).sandbox).toBeUndefined();
    expect(StdioServerConfigSchema.parse({ ...base, sandbox: { enabled: true } }).sandbox).toEqual({
      enabled: true,
      ...none,
    });
  });
  it('accepts host[:port] as sandbox-runtime spells them and refuses the rest', () => {
    const hosts = ['example.com', '*.example.com:8443', '127.0.0.1:3000', '[::1]:443', 'localhost'];
    expect(validateServerConfig({ ...base, sandbox: { enabled: true, hosts } }).ok).toBe(true);
    for (const bad of ['*', 'http://example.com', 'example.com:0', 'example.com:70000', 'a b', '::1', 'ex*ample.com'])
      expect(validateServerConfig({ ...base, sandbox: { enabled: true, hosts: [bad] } })).toMatchObject({
        ok: false,
        fieldErrors: { 'sandbox.hosts.0': [expect.any(String)] },
      });
  });
  it('takes absolute paths only, each once', () => {
    expect(validateServerConfig({ ...base, sandbox: { enabled: true, read: ['relative/x'] } })).toMatchObject({
      ok: false,
      fieldErrors: { 'sandbox.read.0': [expect.any(String)] },
    });
    expect(validateServerConfig({ ...base, sandbox: { enabled: true, write: ['/a', '/a'] } })).toMatchObject({
      ok: false,
      fieldErrors: { 'sandbox.write.1': ['appears twice'] },
    });
  });
});
