/**
 * Keeps an agent informed while its call waits for the person's approval, where the protocol
 * allows: when the agent's request carried a progress token, a `notifications/progress` goes out
 * as soon as the approval is asked and then every `everyMs` ("Waiting for the person to approve
 * … N s left"), until it is answered. SDK clients that reset their request timeout on progress
 * (the official TypeScript SDKs' `resetTimeoutOnProgress`, opencode, VS Code's progress UI) keep
 * waiting instead of giving up at their default 60 s, and a client that shows progress messages
 * tells its user why nothing happens yet. A request without a token gets nothing: the protocol
 * has no other message that a client would tie to the request.
 *
 * The progress value must increase with every notification of a request (MCP progress): the
 * waiting pings count up in small steps, and the server's own progress that follows is forwarded
 * as is unless it would go backwards, then nudged just past the last value sent.
 */
import type { ProgressUpdate } from '../mcp/types.js';

/**
 * Every 10 s: well inside the 60 s the MCP SDKs wait by default (DEFAULT_REQUEST_TIMEOUT_MSEC),
 * so even a client that resets on progress with a shorter timeout of its own keeps waiting, and
 * rare enough to cost nothing.
 */
const WAITING_PROGRESS_MS = 10_000;

/** The waiting pings' progress step: small, so that the server's own progress stays near its own values. */
const PING_STEP = 0.001;

export class ApprovalWaitProgress {
  private last = -Infinity;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (update: ProgressUpdate) => void,
    private readonly tool: string,
    private readonly everyMs: number = WAITING_PROGRESS_MS,
  ) {}

  /** The server's own progress, forwarded with a value that never goes backwards. */
  readonly forward = (update: ProgressUpdate): void => {
    const progress = update.progress > this.last ? update.progress : this.last + PING_STEP;
    this.last = progress;
    this.send({ ...update, progress });
  };

  /** The call started waiting for approval (until `expiresAt`), or stopped (`undefined`). */
  readonly onApprovalWait = (waiting: { expiresAt: number } | undefined): void => {
    clearInterval(this.timer);
    this.timer = undefined;
    if (!waiting) return;
    const ping = (): void => {
      const left = Math.max(0, Math.round((waiting.expiresAt - Date.now()) / 1000));
      this.last = this.last === -Infinity ? 0 : this.last + PING_STEP;
      this.send({
        progress: this.last,
        message: `Waiting for the person to approve ${this.tool} in MiniHarness (${left} s left before it is denied); nothing has run yet.`,
      });
    };
    ping();
    this.timer = setInterval(ping, this.everyMs);
    this.timer.unref();
  };

  /** The call is over: no more pings. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
