/**
 * How long an agent's client will itself wait for a call's answer, when that can be known — shown
 * in the approval dialog so that the person knows whether the agent is still listening.
 *
 * What is known: the official MCP SDKs (TypeScript v1 and v2: DEFAULT_REQUEST_TIMEOUT_MSEC,
 * 60 000 ms in their protocol layer; the Python SDK's clients likewise default to a fixed request
 * timeout) give up on a request after 60 s unless the caller set another timeout, and only a
 * client that sent a progress token can have that timeout extended by progress
 * (`resetTimeoutOnProgress`). Clients built on them inherit it: Claude Desktop's tool calls were
 * reported to end at about 60 s (anthropics/claude-code#22542; later builds about 4 min,
 * anthropics/claude-code#65643), opencode's too until it passed a progress handler
 * (anomalyco/opencode#14499). Others wait longer, each its own way: VS Code's Copilot cancels at
 * 5 min, progress or not (microsoft/vscode#261734); Claude Code reads MCP_TOOL_TIMEOUT, its HTTP
 * calls were reported cut at 5 min (anthropic's claude-agent-sdk-typescript#118); nothing was found
 * for Cursor. None of them says which it is in `clientInfo` reliably enough to claim more. So a call that carries no progress token is
 * shown as "may stop waiting about 60 s after it was sent, if its client keeps the SDKs'
 * default"; a call that carries one may be kept waiting by the gateway's progress
 * (approvalWaitProgress.ts), and how long its client waits then is not known — nothing is shown.
 */
import type { CallerWait } from '../security/approvals.js';

/** The MCP SDKs' default request timeout (DEFAULT_REQUEST_TIMEOUT_MSEC). */
const SDK_DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** `sentAt`: when the gateway received the call; `progressToken`: the request asked for progress. */
export function callerWaitOf(sentAt: number, progressToken: boolean): CallerWait | undefined {
  if (progressToken) return undefined;
  return {
    until: sentAt + SDK_DEFAULT_REQUEST_TIMEOUT_MS,
    basis:
      'if its client keeps the MCP SDKs’ default request timeout (60 s); it asked for no progress updates, which could have kept it waiting',
  };
}
