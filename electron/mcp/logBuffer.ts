/**
 * A bounded buffer of a server's log lines (its stderr, its MCP log messages —
 * `notifications/message`, with level and logger —, and notes from the client), kept for the
 * GUI's log view. Old lines fall off the front; an over-long line is cut. Secrets are redacted
 * on the way in, so nothing that reads the buffer can see one.
 */
import type { LogLevel as LoggingLevel } from './retiredFeatures.js';
import type { SecretValue } from '../secrets/secretValue.js';
import { redactString } from '../secrets/redaction.js';

/** The syslog severities of MCP logging (`debug` … `emergency`). */
export type LogLevel = LoggingLevel;

export interface LogLine {
  at: number;
  /** `message`: an MCP log message the server sent (`notifications/message`). */
  stream: 'stderr' | 'client' | 'message';
  text: string;
  /** For `message`: its severity and, when it named one, its logger. */
  level?: LogLevel;
  logger?: string;
}

/** The parameters of a `notifications/message`, as the SDK validated them. */
export interface LogMessage {
  level: LogLevel;
  logger?: string | undefined;
  data?: unknown;
}

/** A logger name is a label: cut much shorter than a line. */
const MAX_LOGGER_LENGTH = 200;

export class LogBuffer {
  /** The kept lines are the last `maxLines` of these: old ones are dropped in one cut per `maxLines` lines, not one per line. */
  private readonly lines: LogLine[] = [];
  private partial = '';
  private secrets: SecretValue[] = [];
  private readonly listeners = new Set<(line: LogLine) => void>();

  constructor(
    private readonly maxLines = 500,
    private readonly maxLineLength = 2_000,
  ) {}

  /** Secrets to redact from every line appended from now on. */
  redact(secrets: SecretValue[]): void {
    this.secrets = secrets;
  }

  /** Appends a raw chunk of a stream; complete lines are stored, a trailing partial line waits. */
  appendChunk(chunk: string): void {
    const text = this.partial + chunk;
    const parts = text.split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    if (this.partial.length > this.maxLineLength) {
      this.push('stderr', this.partial);
      this.partial = '';
    }
    for (const part of parts) this.push('stderr', part);
  }

  /** A note from the client itself (connect, exit, errors), shown in the same view. */
  note(text: string): void {
    this.push('client', text);
  }

  /** A log message the server sent over MCP; its data (any JSON) is shown as text, cut and redacted like stderr. */
  message(message: LogMessage): void {
    const text = typeof message.data === 'string' ? message.data : (JSON.stringify(message.data) ?? '');
    const logger = message.logger ? this.clean(message.logger.slice(0, MAX_LOGGER_LENGTH)) : undefined;
    this.push('message', text, { level: message.level, ...(logger ? { logger } : {}) });
  }

  /** Flushes a pending partial line (the stream ended). */
  flush(): void {
    if (this.partial) this.push('stderr', this.partial);
    this.partial = '';
  }

  all(): LogLine[] {
    return this.lines.slice(-this.maxLines);
  }

  /** The last `n` stderr lines as text, for error messages. */
  tail(n: number): string[] {
    const pending = this.partial ? [this.clean(this.partial)] : [];
    return [
      ...this.all()
        .filter((l) => l.stream === 'stderr')
        .map((l) => l.text),
      ...pending,
    ].slice(-n);
  }

  subscribe(listener: (line: LogLine) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private push(stream: LogLine['stream'], raw: string, extra: Pick<LogLine, 'level' | 'logger'> = {}): void {
    const line: LogLine = { at: Date.now(), stream, text: this.clean(raw), ...extra };
    this.lines.push(line);
    if (this.lines.length >= 2 * this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
    for (const listener of this.listeners) listener(line);
  }

  private clean(raw: string): string {
    const cut = raw.length > this.maxLineLength ? `${raw.slice(0, this.maxLineLength)}… [cut]` : raw;
    return this.secrets.length === 0
      ? cut
      : redactString(
          cut,
          this.secrets.map((s) => s.reveal()),
        );
  }
}
