/**
 * Importing the MCP server configurations people already have:
 * - Claude Desktop `claude_desktop_config.json`: `{ "mcpServers": { name: { command, args, env } } }`
 * - Cursor `mcp.json`: `mcpServers` too, with `url`/`headers` for remote servers
 * - VS Code `.vscode/mcp.json`: `{ "servers": { name: { type, command, args, env, url, headers } }, "inputs": [...] }`
 *   where `${input:id}` asks the person for a value and `${env:NAME}` reads the environment.
 *
 * Files may hold comments and trailing commas (JSONC). Secret-looking values (keys named like a
 * token, key, secret or password; Authorization headers) become secret slots whose values go to
 * the secret store on import — never into the configuration file.
 */
import { parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import type { ImportPreview } from '../../shared/contract.js';
import { AppError } from './errors.js';

type ImportFormat = ImportPreview['format'];

export interface PlannedServer {
  name: string;
  /** The configuration to save (secret fields as `{secret: {source: 'store', key: slot}}`). */
  config: Record<string, unknown> | undefined;
  /** Slot → the value found in the file. */
  fileSecrets: Record<string, string>;
  /** Slot → the VS Code input id whose answer is its value. */
  inputSecrets: Record<string, string>;
  problems: string[];
}

export interface ImportPlan {
  format: ImportFormat;
  servers: PlannedServer[];
  inputs: Array<{ id: string; description: string; password: boolean }>;
}

const SECRET_NAME =
  /token|secret|password|passwd|api[-_]?key|apikey|auth|credential|private[-_]?key|(^|_)pat($|_)|(^|_)key$/i;
const INPUT_REF = /^\$\{input:([^}]+)\}$/;
const ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** A server id from a display name: lowercase letters, digits, - and _. */
export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 64);
  return slug === '' || slug === 'local' ? `server-${slug || 'imported'}`.slice(0, 64) : slug;
}

function detectFormat(json: Record<string, unknown>, fileName: string | undefined): ImportFormat {
  if (isRecord(json.servers)) return 'vscode';
  if (!isRecord(json.mcpServers)) {
    throw new AppError(
      'import_unrecognized',
      'This file has neither "mcpServers" (Claude Desktop, Cursor) nor "servers" (VS Code): it is not an MCP configuration file. Nothing was imported.',
    );
  }
  const name = (fileName ?? '').toLowerCase();
  return name.endsWith('mcp.json') && !name.includes('claude') ? 'cursor' : 'claude';
}

interface ValueContext {
  slot: string;
  secretName: boolean;
  planned: PlannedServer;
  knownInputs: Set<string>;
}

/** Turns one env/header value into a plain value or a secret reference. */
function convertValue(value: unknown, ctx: ValueContext): unknown {
  if (typeof value !== 'string') {
    ctx.planned.problems.push(`${ctx.slot} is not text; it was left out`);
    return undefined;
  }
  const input = INPUT_REF.exec(value);
  if (input?.[1]) {
    if (!ctx.knownInputs.has(input[1]))
      ctx.planned.problems.push(`${ctx.slot} asks for the input "${input[1]}", which the file does not define`);
    ctx.planned.inputSecrets[ctx.slot] = input[1];
    return { secret: { source: 'store', key: ctx.slot } };
  }
  const env = ENV_REF.exec(value);
  if (env?.[1]) return { secret: { source: 'env', name: env[1] } };
  if (ctx.secretName && value !== '') {
    ctx.planned.fileSecrets[ctx.slot] = value;
    return { secret: { source: 'store', key: ctx.slot } };
  }
  return value;
}

function planServer(name: string, entry: unknown, knownInputs: Set<string>): PlannedServer {
  const planned: PlannedServer = { name, config: undefined, fileSecrets: {}, inputSecrets: {}, problems: [] };
  if (!isRecord(entry)) {
    planned.problems.push('the entry is not an object');
    return planned;
  }
  const type = typeof entry.type === 'string' ? entry.type : undefined;
  const base = { id: slugify(name), name: name.slice(0, 100) || 'Imported server', enabled: entry.disabled !== true };
  if (entry.envFile !== undefined) planned.problems.push('envFile is not imported; add its variables by hand');

  if (typeof entry.command === 'string' && type !== 'http' && type !== 'sse') {
    const args = Array.isArray(entry.args) ? entry.args : [];
    if (!args.every((a) => typeof a === 'string')) planned.problems.push('some arguments are not text');
    for (const arg of args)
      if (typeof arg === 'string' && /\$\{input:/.test(arg))
        planned.problems.push(
          `the argument "${arg}" uses an input; arguments cannot hold secrets, edit it after import`,
        );
    const env: Record<string, unknown> = {};
    if (isRecord(entry.env)) {
      for (const [key, value] of Object.entries(entry.env)) {
        const converted = convertValue(value, {
          slot: `env.${key}`,
          secretName: SECRET_NAME.test(key),
          planned,
          knownInputs,
        });
        if (converted !== undefined) env[key] = converted;
      }
    }
    planned.config = {
      ...base,
      transport: 'stdio',
      command: entry.command,
      args: args.filter((a): a is string => typeof a === 'string'),
      env,
      ...(typeof entry.cwd === 'string' ? { cwd: entry.cwd } : {}),
    };
    return planned;
  }

  if (typeof entry.url === 'string') {
    if (type === 'sse') {
      planned.problems.push(
        'this is an SSE server; MiniHarness speaks Streamable HTTP — check that the server offers it at this URL',
      );
    }
    const headers: Record<string, unknown> = {};
    let auth: Record<string, unknown> = { kind: 'none' };
    if (isRecord(entry.headers)) {
      for (const [key, value] of Object.entries(entry.headers)) {
        if (key.toLowerCase() === 'authorization' && typeof value === 'string') {
          const bearer = /^Bearer\s+(.+)$/i.exec(value);
          if (bearer?.[1]) {
            const token = convertValue(bearer[1], { slot: 'auth.token', secretName: true, planned, knownInputs }) as
              { secret?: unknown } | undefined;
            if (token && typeof token === 'object' && token.secret) auth = { kind: 'bearer', token: token.secret };
            continue;
          }
          planned.problems.push('the Authorization header is not a bearer token; it was left out');
          continue;
        }
        const converted = convertValue(value, {
          slot: `headers.${key}`,
          secretName: SECRET_NAME.test(key),
          planned,
          knownInputs,
        });
        if (converted !== undefined) headers[key] = converted;
      }
    }
    planned.config = { ...base, transport: 'streamable_http', url: entry.url, headers, auth };
    return planned;
  }

  planned.problems.push('it has neither a command nor a url');
  return planned;
}

/** Parses a config file's text into what would be imported. Throws a clear error on a bad file. */
export function planImport(content: string, fileName?: string): ImportPlan {
  const errors: ParseError[] = [];
  const json: unknown = parseJsonc(content, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !isRecord(json)) {
    const first = errors[0];
    const where = first ? ` (${printParseErrorCode(first.error)} at character ${first.offset})` : '';
    throw new AppError('import_malformed', `The file is not valid JSON${where}. Nothing was imported.`);
  }
  const format = detectFormat(json, fileName);
  const inputs: ImportPlan['inputs'] = [];
  if (format === 'vscode' && Array.isArray(json.inputs)) {
    for (const input of json.inputs) {
      if (isRecord(input) && typeof input.id === 'string') {
        inputs.push({
          id: input.id,
          description: typeof input.description === 'string' ? input.description : input.id,
          password: input.password === true,
        });
      }
    }
  }
  const known = new Set(inputs.map((i) => i.id));
  const entries = (format === 'vscode' ? json.servers : json.mcpServers) as Record<string, unknown>;
  const servers = Object.entries(entries).map(([name, entry]) => planServer(name, entry, known));

  // Ids must be unique within the file too.
  const used = new Set<string>();
  for (const server of servers) {
    if (!server.config) continue;
    let id = server.config.id as string;
    for (let n = 2; used.has(id); n++) id = `${(server.config.id as string).slice(0, 60)}-${n}`;
    used.add(id);
    server.config.id = id;
  }
  return { format, servers, inputs };
}
