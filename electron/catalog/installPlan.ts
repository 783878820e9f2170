/**
 * From a `server.json` entry to a server configuration (issue 30), without touching the disk:
 * the form an entry's package or remote needs (required first, secrets as secret fields), and the
 * configuration built from the person's answers — its command pinned to the entry's version,
 * its secrets as store references (the values go to the secret store, never into the file), its
 * sandbox on with the hosts of the entry's declared remotes only, untrusted.
 *
 * npm packages run as `npx -y pkg@version`: pinned exactly, the sandbox already knows what npx
 * needs (its cache, the npm registry: sandbox/serverProfile.ts), and npm checks each tarball
 * against the registry's integrity hash. Installing into a folder first would run npm unsandboxed.
 */
import type { InstallField, InstallOption, OptionView } from '../../shared/contract/catalog.js';
import type {
  RegistryArgument,
  RegistryInput,
  RegistryKeyValue,
  RegistryPackage,
  RegistryRemote,
  ServerDetail,
} from '../../shared/registryServer.js';
import type { CatalogOrigin, FieldErrors } from '../../shared/serverConfig.js';

/** What a launcher is, and what to install when it is missing. */
const RUNTIMES: Record<string, { command: string; install: string }> = {
  npx: { command: 'npx', install: 'Install Node.js (it brings npx): https://nodejs.org' },
  uvx: { command: 'uvx', install: 'Install uv (it brings uvx): https://docs.astral.sh/uv/' },
  docker: { command: 'docker', install: 'Install Docker: https://docs.docker.com/get-docker/' },
  dnx: { command: 'dnx', install: 'Install the .NET 10 SDK (it brings dnx): https://dotnet.microsoft.com/download' },
};
const DEFAULT_RUNTIME: Record<string, string> = { npm: 'npx', pypi: 'uvx', oci: 'docker', nuget: 'dnx' };

/** The deadline of a package's start and requests: its first start downloads it. */
const FIRST_START_MS = 180_000;

/** Whether a program is on this machine's PATH (injected: tests decide). */
export type HasProgram = (command: string) => boolean;

/** The launcher a package runs with: its runtimeHint, else its registry type's; `mcpb` has none (it is unpacked). */
function runtimeOf(pkg: RegistryPackage): string | undefined {
  if (pkg.registryType === 'mcpb') return undefined;
  return pkg.runtimeHint ?? DEFAULT_RUNTIME[pkg.registryType];
}

/** Each package and remote of an entry, and whether it can be installed here (and if not, why). */
export function optionsOf(server: ServerDetail, hasProgram: HasProgram): OptionView[] {
  const out: OptionView[] = [];
  (server.packages ?? []).forEach((pkg, index) => {
    const label = `${pkg.registryType} · ${pkg.transport.type}`;
    out.push({ option: { kind: 'package', index }, label, ...blockerOf(pkg, hasProgram) });
  });
  (server.remotes ?? []).forEach((remote, index) => {
    const label = `${remote.type} ${remote.url}`;
    const blocker =
      remote.type === 'sse'
        ? 'This remote uses the older SSE transport, which the app does not connect to; use another option.'
        : secretInUrl(remote)
          ? 'This remote puts a secret in its URL, which would land in the configuration file; it is not installed.'
          : undefined;
    out.push({ option: { kind: 'remote', index }, label, installable: !blocker, ...(blocker ? { blocker } : {}) });
  });
  return out;
}

function blockerOf(pkg: RegistryPackage, hasProgram: HasProgram): { installable: boolean; blocker?: string } {
  const no = (blocker: string) => ({ installable: false, blocker });
  if (pkg.transport.type !== 'stdio')
    return no(`This package serves ${pkg.transport.type} from a local process; only stdio packages are installed.`);
  if (!['npm', 'pypi', 'oci', 'nuget', 'mcpb'].includes(pkg.registryType))
    return no(`Packages from "${pkg.registryType}" are not known to the app.`);
  if ([...(pkg.runtimeArguments ?? []), ...(pkg.packageArguments ?? [])].some(isSecretArgument))
    return no('This package takes a secret on its command line, which would land in the configuration file.');
  if (pkg.registryType === 'mcpb') return { installable: true };
  const runtime = runtimeOf(pkg);
  const known = runtime ? RUNTIMES[runtime] : undefined;
  if (!known) return no(`The launcher "${runtime ?? '?'}" is not known to the app.`);
  if (!hasProgram(known.command)) return no(`${known.command} is not installed on this machine. ${known.install}`);
  return { installable: true };
}

function isSecretArgument(arg: RegistryArgument): boolean {
  return !!arg.isSecret || Object.values(arg.variables ?? {}).some((v) => v.isSecret);
}

function secretInUrl(remote: RegistryRemote): boolean {
  return Object.values(remote.variables ?? {}).some((v) => v.isSecret);
}

// ── the form ──────────────────────────────────────────────────────────────────────────────────

function field(key: string, label: string, input: RegistryInput, secret = !!input.isSecret): InstallField {
  return {
    key,
    label,
    required: !!input.isRequired,
    secret,
    ...(input.description ? { description: input.description } : {}),
    ...(input.default !== undefined ? { default: input.default } : {}),
    ...(input.placeholder ? { placeholder: input.placeholder } : {}),
    ...(input.choices?.length ? { choices: input.choices } : {}),
    ...(input.format ? { format: input.format } : {}),
  };
}

/** The fields of a value: the value itself when the publisher did not fix it, else its `{variables}`. */
function fieldsOfValue(
  key: string,
  label: string,
  input: RegistryInput & { variables?: Record<string, RegistryInput> },
): InstallField[] {
  if (input.value === undefined) return [field(key, label, input)];
  return Object.entries(input.variables ?? {})
    .filter(([name]) => input.value!.includes(`{${name}}`))
    .map(([name, variable]) =>
      field(`${key}.${name}`, `${label} · ${name}`, variable, !!input.isSecret || !!variable.isSecret),
    );
}

function argumentFields(kind: 'runtime' | 'package', args: RegistryArgument[]): InstallField[] {
  return args.flatMap((arg, i) => {
    const label = arg.type === 'named' ? arg.name : (arg.valueHint ?? `argument ${i + 1}`);
    return fieldsOfValue(`args.${kind}.${i}`, label, arg);
  });
}

function keyValueFields(prefix: 'env' | 'headers', items: RegistryKeyValue[]): InstallField[] {
  return items.flatMap((item) => fieldsOfValue(`${prefix}.${item.name}`, item.name, item));
}

/** The form for one option: required fields first, each group in the entry's order. */
export function fieldsOf(server: ServerDetail, option: InstallOption): InstallField[] {
  const all: InstallField[] = [];
  if (option.kind === 'package') {
    const pkg = server.packages?.[option.index];
    if (!pkg) return [];
    all.push(
      ...argumentFields('runtime', pkg.runtimeArguments ?? []),
      ...argumentFields('package', pkg.packageArguments ?? []),
      ...keyValueFields('env', pkg.environmentVariables ?? []),
    );
  } else {
    const remote = server.remotes?.[option.index];
    if (!remote) return [];
    for (const [name, variable] of Object.entries(remote.variables ?? {}))
      if (remote.url.includes(`{${name}}`)) all.push(field(`url.${name}`, name, variable));
    all.push(...keyValueFields('headers', remote.headers ?? []));
  }
  return [...all.filter((f) => f.required), ...all.filter((f) => !f.required)];
}

// ── the configuration ─────────────────────────────────────────────────────────────────────────

/** What the form answered, by field key. */
export type Answers = Record<string, string>;

/** A value with its `{variables}` filled from the answers (unknown ones stay, as the spec says). */
function valueOf(
  key: string,
  input: RegistryInput & { variables?: Record<string, RegistryInput> },
  answers: Answers,
): string | undefined {
  if (input.value === undefined) return pick(answers[key], input.default);
  return input.value.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = input.variables?.[name];
    return variable ? (pick(answers[`${key}.${name}`], variable.default) ?? '') : whole;
  });
}

function pick(answer: string | undefined, fallback: string | undefined): string | undefined {
  return answer !== undefined && answer !== '' ? answer : fallback;
}

function argv(kind: 'runtime' | 'package', args: RegistryArgument[], answers: Answers): string[] {
  return args.flatMap((arg, i) => {
    const value = valueOf(`args.${kind}.${i}`, arg, answers);
    if (arg.type === 'positional') return value === undefined ? [] : [value];
    if (value === undefined) return [];
    return arg.format === 'boolean' ? (value === 'true' ? [arg.name] : []) : [arg.name, value];
  });
}

/** The checks the form's answers must pass; nothing is saved unless this is empty. */
export function checkAnswers(fields: InstallField[], answers: Answers): FieldErrors {
  const errors: FieldErrors = {};
  const add = (key: string, message: string) => void (errors[key] ??= []).push(message);
  for (const f of fields) {
    const value = pick(answers[f.key], f.default);
    if (value === undefined) {
      if (f.required) add(f.key, 'is required');
      continue;
    }
    if (f.choices && !f.choices.includes(value)) add(f.key, `must be one of ${f.choices.join(', ')}`);
    if (f.format === 'number' && !/^-?\d+(\.\d+)?$/.test(value)) add(f.key, 'must be a number');
    if (f.format === 'boolean' && value !== 'true' && value !== 'false') add(f.key, 'must be true or false');
  }
  const known = new Set(fields.map((f) => f.key));
  for (const key of Object.keys(answers)) if (!known.has(key)) add(key, 'is not a field of this entry');
  return errors;
}

export interface BuiltConfig {
  /** A configuration for `servers.save`: secret fields as store slots (`env.NAME`, `headers.NAME`, `auth.token`). */
  config: Record<string, unknown>;
  /** Secret values by slot: for the secret store only. */
  secrets: Record<string, string>;
  /** What will run, for the person to read. */
  summary: string;
}

interface BuildInput {
  id: string;
  registry: string;
  server: ServerDetail;
  option: InstallOption;
  answers: Answers;
  /** For mcpb: the command the unpacked bundle's manifest names. */
  bundle?: { command: string; args: string[]; env: Record<string, string> };
  origin?: Pick<CatalogOrigin, 'history'>;
  /** Secret slots already in the store (an update): referenced even though no value is sent. */
  storedSlots?: ReadonlySet<string>;
}

/** The hosts of the entry's declared remotes (those whose host is not a template). */
function remoteHosts(server: ServerDetail): string[] {
  const hosts = new Set<string>();
  for (const remote of server.remotes ?? []) {
    try {
      const url = new URL(remote.url);
      if (!url.host.includes('{') && !url.host.includes('%7B')) hosts.add(url.host.toLowerCase());
    } catch {
      // A template in the host: no host can be named for it.
    }
  }
  return [...hosts];
}

/** Builds the configuration from the answers (checked first with `checkAnswers`). */
export function buildConfig(input: BuildInput): BuiltConfig {
  const { server, option, answers } = input;
  const fields = fieldsOf(server, option);
  const secretValues: Record<string, string> = {};
  const inputs: Answers = {};
  for (const f of fields) if (!f.secret && answers[f.key] !== undefined) inputs[f.key] = answers[f.key]!;
  const origin: CatalogOrigin = {
    registry: input.registry,
    name: server.name,
    version: server.version,
    option,
    inputs,
    history: input.origin?.history ?? [],
  };
  const common = { id: input.id, name: server.title ?? server.name, trusted: false, enabled: true, catalog: origin };
  if (option.kind === 'remote') {
    const remote = server.remotes![option.index]!;
    const url = valueOf(
      'url',
      { value: remote.url, ...(remote.variables ? { variables: remote.variables } : {}) },
      answers,
    )!;
    const { headers, auth } = keyValues('headers', remote.headers ?? [], answers, secretValues, input.storedSlots);
    return {
      config: { ...common, transport: 'streamable_http', url, headers, ...(auth ? { auth } : {}) },
      secrets: secretValues,
      summary: url,
    };
  }
  const pkg = server.packages![option.index]!;
  const { headers: env } = keyValues('env', pkg.environmentVariables ?? [], answers, secretValues, input.storedSlots);
  const { command, args } = input.bundle ?? commandOf(pkg, server.version, answers, Object.keys(env));
  const sandbox = { enabled: true, read: [], denyRead: [], write: [], hosts: remoteHosts(server) };
  // A launcher downloads the package on the first start (npx, uvx, docker, dnx): more than the default 30 s.
  const timeoutMs = input.bundle ? {} : { timeoutMs: FIRST_START_MS };
  return {
    config: {
      ...common,
      ...timeoutMs,
      transport: 'stdio',
      command,
      args,
      env: { ...(input.bundle?.env ?? {}), ...env },
      sandbox,
    },
    secrets: secretValues,
    summary: [command, ...args].join(' '),
  };
}

/** Headers or environment variables: plain values, or store references whose values go to `secrets`. */
function keyValues(
  prefix: 'env' | 'headers',
  items: RegistryKeyValue[],
  answers: Answers,
  secrets: Record<string, string>,
  stored: ReadonlySet<string> = new Set(),
): { headers: Record<string, unknown>; auth?: Record<string, unknown> } {
  const out: Record<string, unknown> = {};
  let auth: Record<string, unknown> | undefined;
  const bearer = { kind: 'bearer', token: { source: 'store', key: 'auth.token' } };
  for (const item of items) {
    const key = `${prefix}.${item.name}`;
    const secret = !!item.isSecret || Object.values(item.variables ?? {}).some((v) => v.isSecret);
    const isAuthorization = prefix === 'headers' && item.name.toLowerCase() === 'authorization';
    let value = valueOf(key, item, answers);
    // A secret sent nowhere now but kept in the store (an update): its reference stays.
    if (secret && !answeredAny(key, answers)) {
      if (isAuthorization && stored.has('auth.token')) auth = bearer;
      else if (stored.has(key)) out[item.name] = { secret: { source: 'store', key } };
      if (isAuthorization || stored.has(key)) continue;
    }
    if (value === undefined || value === '') continue;
    // The app sets Authorization itself from a bearer token (serverConfig.ts): the token goes there.
    if (isAuthorization) {
      value = value.replace(/^Bearer\s+/i, '');
      secrets['auth.token'] = value;
      auth = bearer;
      continue;
    }
    if (secret) {
      secrets[key] = value;
      out[item.name] = { secret: { source: 'store', key } };
    } else out[item.name] = value;
  }
  return auth ? { headers: out, auth } : { headers: out };
}

function answeredAny(key: string, answers: Answers): boolean {
  return Object.entries(answers).some(([k, v]) => (k === key || k.startsWith(`${key}.`)) && v !== '');
}

/** The launcher's command line, the package pinned to its version. */
function commandOf(
  pkg: RegistryPackage,
  entryVersion: string,
  answers: Answers,
  envNames: string[],
): { command: string; args: string[] } {
  const runtime = runtimeOf(pkg) ?? '';
  const version = pkg.version ?? entryVersion;
  const runtimeArgs = argv('runtime', pkg.runtimeArguments ?? [], answers);
  const packageArgs = argv('package', pkg.packageArguments ?? [], answers);
  switch (runtime) {
    case 'npx':
      return {
        command: 'npx',
        args: [
          ...runtimeArgs,
          ...(runtimeArgs.includes('-y') ? [] : ['-y']),
          `${pkg.identifier}@${version}`,
          ...packageArgs,
        ],
      };
    case 'uvx':
      return { command: 'uvx', args: [...runtimeArgs, `${pkg.identifier}==${version}`, ...packageArgs] };
    case 'docker':
      // The container sees only the variables passed by name (their values come from the server's environment).
      return {
        command: 'docker',
        args: [
          'run',
          '-i',
          '--rm',
          ...envNames.flatMap((n) => ['-e', n]),
          ...runtimeArgs,
          pkg.identifier,
          ...packageArgs,
        ],
      };
    case 'dnx':
      return {
        command: 'dnx',
        args: [
          ...runtimeArgs,
          `${pkg.identifier}@${version}`,
          '--yes',
          ...(packageArgs.length ? ['--', ...packageArgs] : []),
        ],
      };
    default:
      return { command: runtime, args: [...runtimeArgs, pkg.identifier, ...packageArgs] };
  }
}

/** A free server id from the entry's name (`io.github.x/weather-mcp` → `weather-mcp`, then `-2`, …). */
export function suggestId(name: string, taken: (id: string) => boolean): string {
  const base =
    (name.split('/').pop() ?? name)
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[-_]+/, '')
      .slice(0, 56) || 'server';
  const id = base === 'local' ? 'local-server' : base;
  if (!taken(id)) return id;
  for (let n = 2; ; n++) if (!taken(`${id}-${n}`)) return `${id}-${n}`;
}
