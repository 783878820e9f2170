/**
 * The stdio client transport, built on the v2 SDK's public `Transport` interface (no subclass,
 * no private field): the SDK's `StdioClientTransport` keeps its child process and its read buffer
 * private, and its reader copies the whole buffer at every chunk (quadratic: a 15 MB result took
 * seconds) and skips a line that is not JSON without a word. This one
 *
 * - spawns without a shell, from the SDK's allow-listed `getDefaultEnvironment()` plus the
 *   server's own configured variables, nothing else;
 * - reads stdout line by line keeping only the chunks of the pending line (joined once), refuses
 *   a line over the limit with a typed error and skips the rest of that line;
 * - reports a line that is not JSON-RPC through `onerror` (a `SyntaxError` or a `ZodError`), so the
 *   client can name the protocol violation;
 * - keeps the child's exit code and signal;
 * - exposes `stderr` and `pid`, which is how the SDK's era negotiation recognises a stdio-shaped
 *   transport: a `server/discover` probe that times out or is closed then means a legacy server.
 *   Being a custom transport, it is probed in place (no sibling process is spawned: a server with
 *   side effects starts once).
 *
 * Close ends stdin, waits for the child, then SIGTERM, then SIGKILL. Idempotent.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { serializeMessage, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { toJsonRpcMessage } from './plainResponse.js';

const LF = 0x0a;
const CR = 0x0d;
/** How long close() waits at each step (stdin ended, then SIGTERM) before the next one. */
const CLOSE_STEP_MS = 2_000;

export interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** The longest line (one message) the server may write, in bytes. */
  maxLineBytes: number;
  /** Builds (and reports) the error for an oversized line. */
  tooLarge: () => Error;
  /** Told of every line that is not JSON-RPC, whoever holds `onerror` at the time (the SDK's probe does, briefly). */
  onViolation?: (error: Error) => void;
  /** Called once when the process has ended (closed) or could not be spawned: frees what its start took (a sandbox wrap). */
  onEnded?: () => void;
}

/** Splits a byte stream into lines, bounded; the chunks of a pending line are joined once. */
export class BoundedLineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly tooLarge: () => Error,
  ) {}

  /** Feeds a chunk; returns the complete lines it ended. Throws the oversize error once per oversized line. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    if (this.skipping) {
      const end = chunk.indexOf(LF);
      if (end === -1) return lines;
      this.skipping = false;
      start = end + 1;
    }
    while (start < chunk.length) {
      const lf = chunk.indexOf(LF, start);
      const end = lf === -1 ? chunk.length : lf;
      if (this.pendingBytes + (end - start) > this.maxLineBytes) {
        this.clear();
        this.skipping = lf === -1;
        throw this.tooLarge();
      }
      if (lf !== -1 && this.pendingBytes === 0) {
        // The whole line is in this chunk (the usual case): decoded in place, no copy, no regex.
        lines.push(chunk.toString('utf8', start, end > start && chunk[end - 1] === CR ? end - 1 : end));
        start = lf + 1;
        continue;
      }
      this.pending.push(chunk.subarray(start, end));
      this.pendingBytes += end - start;
      if (lf === -1) break;
      lines.push(Buffer.concat(this.pending, this.pendingBytes).toString('utf8').replace(/\r$/, ''));
      this.pending = [];
      this.pendingBytes = 0;
      start = lf + 1;
    }
    return lines;
  }

  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}

export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private child: ChildProcess | undefined;
  private readonly stderrStream = new PassThrough();
  private readonly reader: BoundedLineReader;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** How the process ended, once it has. */
  exit: { exitCode: number | null; signal: string | null } | undefined;
  /** The process ended before anyone asked this transport to close (it exited on its own). */
  exitedUnasked = false;
  /** The protocol version handed over by `Client.connect()`. */
  negotiatedVersion: string | undefined;

  constructor(private readonly params: StdioParams) {
    this.reader = new BoundedLineReader(params.maxLineBytes, params.tooLarge);
  }

  /** The child's stderr (a stream that exists before start, so no early line is lost). */
  get stderr(): PassThrough {
    return this.stderrStream;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('ProcessStdioTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: process.platform === 'win32',
        ...(this.params.cwd ? { cwd: this.params.cwd } : {}),
      });
      this.child = child;
      child.on('error', (error) => {
        if (child.pid === undefined) this.ended();
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.once('exit', (exitCode, signal) => {
        this.exit = { exitCode, signal };
        this.exitedUnasked = this.closing === undefined;
      });
      child.on('close', () => {
        this.closed = true;
        this.reader.clear();
        this.ended();
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr?.pipe(this.stderrStream);
    });
  }

  private endedOnce = false;
  private ended(): void {
    if (this.endedOnce) return;
    this.endedOnce = true;
    this.params.onEnded?.();
  }

  private read(chunk: Buffer): void {
    let lines: string[];
    try {
      lines = this.reader.push(chunk);
    } catch (error) {
      // An oversized line: the stream cannot go on from the middle of a message.
      this.onerror?.(error as Error);
      this.close().catch(() => undefined);
      return;
    }
    for (const line of lines) {
      if (line.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        // As the SDK's deserializeMessage, a plain result response without zod (plainResponse.ts).
        message = toJsonRpcMessage(JSON.parse(line));
      } catch (error) {
        // Not JSON, or JSON that is not JSON-RPC.
        this.params.onViolation?.(error as Error);
        this.onerror?.(error as Error);
        continue;
      }
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || stdin.destroyed) {
        reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  setProtocolVersion(version: string): void {
    this.negotiatedVersion = version;
  }

  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const child = this.child;
    if (!child || this.closed || child.exitCode !== null || child.signalCode !== null) {
      this.reader.clear();
      return;
    }
    const ended = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (ms: number): Promise<void> =>
      Promise.race([ended, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already gone
    }
    await within(CLOSE_STEP_MS);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await within(CLOSE_STEP_MS);
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    this.reader.clear();
  }
}
