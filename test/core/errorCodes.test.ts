/**
 * Errors as data: every error class of the main side maps to a code of the contract's union,
 * with its typed details; the shape survives the trip through the contract's schemas; an
 * unknown code from a newer main is read leniently by the renderer's schema. The classes are
 * found by reading every `errors.ts` under electron/ (each family keeps its classes there), so a
 * new class or a new family without an instance below fails the first test.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { AppError, ValidationFailedError, toErrorShape } from '../../electron/core/errors.js';
import type { CoreErrorCode } from '../../electron/core/errors.js';
import * as checkpointErrors from '../../electron/checkpoints/errors.js';
import { traceIdOf } from '../../electron/harness/application.js';
import { NotReplayableError } from '../../electron/harness/errors.js';
import * as gatewayErrors from '../../electron/gateway/errors.js';
import { ModelError } from '../../electron/models/errors.js';
import { RunNotResumableError } from '../../electron/runs/errors.js';
import { AppsError } from '../../electron/apps/errors.js';
import { CatalogError } from '../../electron/catalog/errors.js';
import * as mcpErrors from '../../electron/mcp/errors.js';
import { MCPFeatureNotOfferedError } from '../../electron/mcp/features/errors.js';
import * as oauthErrors from '../../electron/mcp/oauth/errors.js';
import { networkFailureOf } from '../../electron/mcp/networkFailure.js';
import {
  SecretDecryptError,
  SecretNotFoundError,
  SecretStorageUnavailableError,
} from '../../electron/secrets/errors.js';
import * as securityErrors from '../../electron/security/errors.js';
import * as storageErrors from '../../electron/storage/errors.js';
import { ToolCancelledError, ToolInputError } from '../../electron/tools/errors.js';
import { ArgumentsTooLargeError, InvalidArgumentsError } from '../../electron/harness/errors.js';
import * as tracingErrors from '../../electron/tracing/errors.js';
import { HostFrameSchema } from '../../shared/bridge.js';
import { ErrorShapeSchema, ReceivedErrorShapeSchema } from '../../shared/contract.js';
import type { ErrorCode } from '../../shared/errors.js';
import { ERROR_CODES } from '../../shared/errors.js';

const exit = { exitCode: 1, signal: null, stderrTail: [] };

/** One instance of every error class the main side throws, by class name. */
const INSTANCES: Record<string, Error> = {
  AppError: new AppError('not_found', 'There is no server "x".'),
  ValidationFailedError: new ValidationFailedError('bad', { url: ['is required'] }),
  NotReplayableError: new NotReplayableError('nothing to replay'),
  ToolInputError: new ToolInputError('read_file', 'path is required'),
  ToolCancelledError: new ToolCancelledError('run_command'),
  ParentFolderMissingError: new securityErrors.ParentFolderMissingError('a/b'),
  SecretNotFoundError: new SecretNotFoundError({ source: 'env', name: 'TOKEN' }),
  SecretStorageUnavailableError: new SecretStorageUnavailableError(),
  SecretDecryptError: new SecretDecryptError('auth.token'),
  CheckpointArgumentsMismatchError: new checkpointErrors.CheckpointArgumentsMismatchError('s', 'c', ['arguments']),
  CheckpointInProgressError: new checkpointErrors.CheckpointInProgressError('s', 'c', 0),
  CheckpointFailedError: new checkpointErrors.CheckpointFailedError('s', 'c'),
  CheckpointLeaseLostError: new checkpointErrors.CheckpointLeaseLostError('s', 'c', 'complete', 'gone'),
  ResultNotRecordedError: new checkpointErrors.ResultNotRecordedError(
    's',
    'c',
    Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
  ),
  CheckpointNotFoundError: new checkpointErrors.CheckpointNotFoundError('s', 'c'),
  CheckpointNotResolvableError: new checkpointErrors.CheckpointNotResolvableError('s', 'c', 'completed'),
  CheckpointInvalidResultError: new checkpointErrors.CheckpointInvalidResultError('s', 'c', 'not JSON'),
  MCPNotInitializedError: new mcpErrors.MCPNotInitializedError('srv', 'tools/list'),
  MCPClientClosedError: new mcpErrors.MCPClientClosedError('srv', 'tools/list'),
  MCPRequestTimeout: new mcpErrors.MCPRequestTimeout('srv', 'tools/call', 100),
  MCPRequestCancelled: new mcpErrors.MCPRequestCancelled('srv', 'tools/call'),
  MCPAuthError: new mcpErrors.MCPAuthError('srv', 401),
  MCPCommandNotFoundError: new mcpErrors.MCPCommandNotFoundError('srv', 'nope'),
  MCPSandboxUnavailableError: new mcpErrors.MCPSandboxUnavailableError('srv', 'socat_missing', 'install socat'),
  MCPUnreachableError: new mcpErrors.MCPUnreachableError('srv', {
    kind: 'connection_refused',
    host: '127.0.0.1',
    port: 9,
    errno: 'ECONNREFUSED',
  }),
  MCPNotAnMCPServerError: new mcpErrors.MCPNotAnMCPServerError('srv', '/bin/cat', -32601),
  MCPServerExitedError: new mcpErrors.MCPServerExitedError('srv', exit, 'initialize'),
  MCPProtocolError: new mcpErrors.MCPProtocolError('srv', 'garbage'),
  MCPConfigError: new mcpErrors.MCPConfigError('srv', 'bad'),
  MCPRemoteError: new mcpErrors.MCPRemoteError('srv', -32602, 'Invalid params'),
  MCPUrlElicitationRequiredError: new mcpErrors.MCPUrlElicitationRequiredError('srv', 'tools/call "t"', [
    { url: 'https://example.com/consent', host: 'example.com' },
  ]),
  MCPTransportError: new mcpErrors.MCPTransportError('srv', 'HTTP 503', 503),
  MCPServerUnavailableError: new mcpErrors.MCPServerUnavailableError('srv', 'down'),
  MCPUnknownToolError: new mcpErrors.MCPUnknownToolError('t', 'srv'),
  MCPResultTooLargeError: new mcpErrors.MCPResultTooLargeError('srv', 1024),
  MCPFeatureNotOfferedError: new MCPFeatureNotOfferedError('srv', 'prompts'),
  MCPNotSupportedError: new mcpErrors.MCPNotSupportedError('srv', 'logging', 'logging/setLevel'),
  MCPSignInRequiredError: new oauthErrors.MCPSignInRequiredError('srv', 'insufficient_scope', 'mcp:write'),
  MCPOAuthError: new oauthErrors.MCPOAuthError('srv', 'token_request_failed', { oauthError: 'invalid_client' }),
  PathOutsideRootsError: new securityErrors.PathOutsideRootsError('/etc/passwd', ['/w']),
  NoAllowedRootsError: new securityErrors.NoAllowedRootsError([]),
  InvalidPathError: new securityErrors.InvalidPathError('\0', 'NUL'),
  PathNotFoundError: new securityErrors.PathNotFoundError('x'),
  PermissionDeniedError: new securityErrors.PermissionDeniedError('append', 'fx', 'ASK', 'deny', 'the user denied it'),
  ApprovalCancelledError: new securityErrors.ApprovalCancelledError('append', 'fx', 'ASK'),
  PermissionRulesCorruptError: new securityErrors.PermissionRulesCorruptError('/r.json', undefined, 'not JSON'),
  PathExcludedError: new securityErrors.PathExcludedError('.git/config'),
  PathChangedError: new securityErrors.PathChangedError('a', 'moved'),
  HardLinkedFileError: new securityErrors.HardLinkedFileError('a', 2),
  SchemaTooNewError: new storageErrors.SchemaTooNewError(9, 3),
  SchemaNotMigratedError: new storageErrors.SchemaNotMigratedError('checkpoints', 0, 1),
  MigrationListError: new storageErrors.MigrationListError('gap'),
  InvalidCursorError: new storageErrors.InvalidCursorError(),
  InvalidQueryError: new storageErrors.InvalidQueryError('bad'),
  ChangedElsewhereError: new storageErrors.ChangedElsewhereError('permission rules'),
  CatalogError: new CatalogError('registry_pagination_loop', 'The registry sent the same page twice.'),
  DatabaseUnreachableError: new storageErrors.DatabaseUnreachableError('postgres://h:5432/db', 'ECONNREFUSED'),
  DatabaseRefusedError: new storageErrors.DatabaseRefusedError('record a tool call', '25006'),
  TraceEventInvalidError: new tracingErrors.TraceEventInvalidError('x', 'bad'),
  TraceClosedError: new tracingErrors.TraceClosedError('t', 'event'),
  TraceNotFoundError: new tracingErrors.TraceNotFoundError('t'),
  GatewayLoopError: new gatewayErrors.GatewayLoopError('url'),
  AgentNameTakenError: new gatewayErrors.AgentNameTakenError('claude'),
  AgentNotFoundError: new gatewayErrors.AgentNotFoundError('a1'),
  MCPGatewayLoopError: new mcpErrors.MCPGatewayLoopError('srv'),
  RegistryClosedError: new mcpErrors.RegistryClosedError(),
  InvalidArgumentsError: new InvalidArgumentsError('t', 'srv', { path: ['is required'] }),
  ArgumentsTooLargeError: new ArgumentsTooLargeError('t', 'srv', 10, 20, 'the server takes'),
  ModelError: new ModelError('model_rate_limited', 'slow down', 1000, 429),
  RunNotResumableError: new RunNotResumableError('Run r is running: it cannot be resumed.'),
  AppsError: new AppsError('app_call_refused', 'The tool "t" of "srv" is for the model only.', { serverId: 'srv' }),
};

const ELECTRON = join(dirname(fileURLToPath(import.meta.url)), '../../electron');
/** Every `errors.ts` under electron/, loaded: where each family keeps its error classes. */
const ERROR_MODULES: Array<[string, Record<string, unknown>]> = await Promise.all(
  readdirSync(ELECTRON, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('errors.ts') && file.split(/[\\/]/).pop() === 'errors.ts')
    .sort()
    .map(async (file): Promise<[string, Record<string, unknown>]> => [
      file,
      (await import(pathToFileURL(join(ELECTRON, file)).href)) as Record<string, unknown>,
    ]),
);

type ErrorClass = abstract new (...args: never[]) => Error;
const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof Error;

describe('every main-side error maps to a code of the contract union', () => {
  it('has an instance of every error class exported by an errors.ts (a family base is checked through its subclasses)', () => {
    expect(ERROR_MODULES.map(([file]) => file)).toContain('mcp/errors.ts');
    const classes = ERROR_MODULES.flatMap(([file, exports]) =>
      Object.entries(exports).flatMap(([name, value]) => (isErrorClass(value) ? [{ file, name, value }] : [])),
    );
    // A base (MCPError, SecurityError, AppError…) is one some other exported class extends.
    const isBase = (c: ErrorClass): boolean =>
      classes.some((other) => other.value !== c && other.value.prototype instanceof c);
    const covered = new Set(Object.values(INSTANCES).map((error) => error.constructor));
    const missing = classes.filter((c) => !isBase(c.value) && !covered.has(c.value)).map((c) => `${c.file}: ${c.name}`);
    expect(missing).toEqual([]);
    // Each key names its instance's class, so a failure below names the right one.
    expect(Object.entries(INSTANCES).filter(([name, error]) => error.constructor.name !== name)).toEqual([]);
  });

  it.each(Object.entries(INSTANCES))('%s → a known code, never "internal"', (_name, error) => {
    const shape = toErrorShape(error);
    expect(ERROR_CODES).toContain(shape.code);
    expect(shape.code).not.toBe('internal');
    // And the shape is what the contract accepts.
    expect(ErrorShapeSchema.parse(shape)).toEqual(shape);
  });

  it('the core error families are typed as contract codes (compile-time)', () => {
    expectTypeOf<CoreErrorCode>().toExtend<ErrorCode>();
    expectTypeOf<AppError['code']>().toEqualTypeOf<ErrorCode>();
  });

  it('anything else is internal, with its message redacted', () => {
    const shape = toErrorShape(new Error('token sk-123 leaked'), (t) => t.replace('sk-123', '[redacted]'));
    expect(shape).toEqual({ code: 'internal', message: 'token [redacted] leaked' });
    const unknownCode = Object.assign(new Error('odd'), { code: 'EWHATEVER' });
    expect(toErrorShape(unknownCode).code).toBe('internal');
  });
});

describe('typed details', () => {
  it('a denial says who refused and why, without parsing the message', () => {
    const byPerson = toErrorShape(INSTANCES.PermissionDeniedError);
    expect(byPerson.details?.denial).toEqual({
      by: 'person',
      toolName: 'append',
      serverId: 'fx',
      level: 'ASK',
      reason: 'the user denied it',
    });
    const byRule = toErrorShape(
      new securityErrors.PermissionDeniedError(
        'append',
        'fx',
        'DENY',
        undefined,
        'Rule "no writes" denies append on fx',
        { by: 'rule', ruleId: 'r1' },
      ),
    );
    expect(byRule.details?.denial).toMatchObject({ by: 'rule', ruleId: 'r1', level: 'DENY' });
    const timedOut = toErrorShape(
      new securityErrors.PermissionDeniedError('append', 'fx', 'ASK', 'timeout', 'nobody answered', undefined, 60_000),
    );
    expect(timedOut.details?.denial).toMatchObject({ by: 'approval_timeout', timeoutMs: 60_000 });
    expect(toErrorShape(INSTANCES.ApprovalCancelledError)).toMatchObject({
      code: 'approval_cancelled',
      details: { denial: { by: 'cancelled' } },
    });
  });

  it('a network failure carries its kind, host and port; retryable', () => {
    expect(toErrorShape(INSTANCES.MCPUnreachableError).details).toEqual({
      serverId: 'srv',
      retryable: true,
      cause: { kind: 'connection_refused', host: '127.0.0.1', port: 9, errno: 'ECONNREFUSED' },
    });
    expect(toErrorShape(INSTANCES.MCPServerExitedError).details).toMatchObject({
      retryable: false,
      cause: { kind: 'exited', exitCode: 1, signal: null },
    });
    expect(toErrorShape(INSTANCES.MCPResultTooLargeError).details).toMatchObject({ limitBytes: 1024 });
    expect(toErrorShape(INSTANCES.MCPNotAnMCPServerError).details).toMatchObject({
      rpcCode: -32601,
      cause: { kind: 'protocol' },
    });
  });

  it('a server whose sandbox cannot run says why as a code; reconnecting does not fix it', () => {
    expect(toErrorShape(INSTANCES.MCPSandboxUnavailableError)).toMatchObject({
      code: 'sandbox_unavailable',
      details: { serverId: 'srv', retryable: false, sandbox: { reason: 'socat_missing' } },
    });
  });

  it('OAuth: "sign in" with what it needs, and what failed at the authorization server', () => {
    expect(toErrorShape(INSTANCES.MCPSignInRequiredError)).toMatchObject({
      code: 'sign_in_required',
      details: { serverId: 'srv', retryable: false, oauth: { reason: 'insufficient_scope', scope: 'mcp:write' } },
    });
    expect(toErrorShape(INSTANCES.MCPOAuthError)).toMatchObject({
      code: 'oauth_failed',
      details: { oauth: { reason: 'token_request_failed', oauthError: 'invalid_client' } },
    });
  });

  it('the trace id travels on the error itself', () => {
    const error = new mcpErrors.MCPRequestTimeout('srv', 'tools/call', 100);
    Object.assign(error, { traceId: 'trace-1' });
    expect(traceIdOf(error)).toBe('trace-1');
    expect(toErrorShape(error).details?.traceId).toBe('trace-1');
    expect(traceIdOf(new Error('x'))).toBeUndefined();
  });

  it('a contract size refusal becomes request_too_large with limit and size', () => {
    const schema = z.string().superRefine((v, ctx) => {
      ctx.addIssue({
        code: 'custom',
        message: 'Too big.',
        params: { tooLarge: { limitBytes: 10, sizeBytes: v.length } },
      });
    });
    const parsed = schema.safeParse('x'.repeat(20));
    expect(parsed.success).toBe(false);
    expect(toErrorShape(parsed.error)).toMatchObject({
      code: 'request_too_large',
      details: { limitBytes: 10, sizeBytes: 20 },
    });
  });
});

describe('network failures read from fetch (undici) causes', () => {
  const fetchFailed = (cause: unknown): Error => new TypeError('fetch failed', { cause });
  const errno = (code: string): Error => Object.assign(new Error(code), { code });
  it.each([
    ['ECONNREFUSED', 'connection_refused'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['EHOSTUNREACH', 'network'],
  ])('%s → %s, with the URL’s host and default port', (code, kind) => {
    expect(networkFailureOf(fetchFailed(errno(code)), 'https://mcp.example.com/mcp')).toEqual({
      kind,
      host: 'mcp.example.com',
      port: 443,
      errno: code,
    });
  });
  it('reads an AggregateError (several addresses) and a blocked port', () => {
    expect(
      networkFailureOf(fetchFailed(new AggregateError([errno('ECONNREFUSED')])), 'http://localhost:7/mcp'),
    ).toMatchObject({ kind: 'connection_refused', port: 7 });
    expect(networkFailureOf(fetchFailed(new Error('bad port')), 'http://127.0.0.1:1/mcp')).toEqual({
      kind: 'blocked_port',
      host: '127.0.0.1',
      port: 1,
    });
    expect(networkFailureOf(new Error('Unexpected content type'), 'http://127.0.0.1:1/mcp')).toBeUndefined();
  });
});

describe('the shape across the contract', () => {
  it('round-trips through JSON and the schemas, typed details included', () => {
    const shape = toErrorShape(INSTANCES.PermissionDeniedError, undefined, 'trace-9');
    const wire = JSON.parse(JSON.stringify({ t: 'result', id: 1, ok: false, error: shape })) as unknown;
    const frame = HostFrameSchema.parse(wire);
    expect(frame).toMatchObject({ ok: false, error: shape });
  });

  it('main refuses a code outside the union; the renderer reads it as unrecognized', () => {
    const fromTheFuture = { code: 'quantum_flux', message: 'New failure.', details: { traceId: 't', somethingNew: 1 } };
    expect(ErrorShapeSchema.safeParse(fromTheFuture).success).toBe(false);
    expect(ReceivedErrorShapeSchema.parse(fromTheFuture)).toEqual({
      code: 'unrecognized',
      message: 'New failure.',
      details: { traceId: 't' },
    });
    const frame = HostFrameSchema.parse({ t: 'result', id: 2, ok: false, error: fromTheFuture });
    expect(frame).toMatchObject({ error: { code: 'unrecognized' } });
  });
});

describe('free text in details is redacted like the message', () => {
  it('a denial reason and field messages that quote a secret reach the renderer without it', () => {
    const secret = 'sk-live-quoted-in-a-reason-42';
    const redact = (text: string): string => text.split(secret).join('[redacted]');
    const denied = new securityErrors.PermissionDeniedError(
      'run_command',
      'local',
      'DENY',
      undefined,
      `the command guard refused "curl -H ${secret}"`,
      { by: 'guardrail' },
    );
    const shape = toErrorShape(denied, redact);
    expect(shape.details?.denial?.reason).toBe('the command guard refused "curl -H [redacted]"');
    const invalid = toErrorShape(new ValidationFailedError('bad', { token: [`"${secret}" is too short`] }), redact);
    expect(invalid.details?.fieldErrors).toEqual({ token: ['"[redacted]" is too short'] });
    expect(JSON.stringify([shape, invalid])).not.toContain(secret);
  });
});
