/**
 * The stdio entry (`miniharness-gateway`): for agents that can only spawn a process (Claude
 * Desktop), it relays JSON-RPC messages between its stdin/stdout and the running app's gateway
 * over Streamable HTTP — both sides through the SDK's own (v2) transports, messages passed as
 * they are, so it serves agents of both eras: a 2025 agent's `initialize` opens a session at the
 * gateway, and a 2026-07-28 agent's requests carry their `_meta` envelope, from which the HTTP
 * transport derives the standard headers the gateway checks. A modern request is cancelled by
 * closing its HTTP response stream (the revision has no session to send `notifications/cancelled`
 * to): the agent's `notifications/cancelled` for it does exactly that. It holds no state of its
 * own beyond the modern requests in flight: the app does the work, the checks and the records.
 *
 * When the app cannot be reached, the agent's request fails with a JSON-RPC error and stderr gets
 * one sentence saying what to do, in the words of the way the app was installed ("MiniHarness is
 * not running: open MiniHarness Desktop", or "…: start it with npm start" from a checkout); an
 * `initialize` that fails also ends the process, since the agent cannot use it.
 */
import type { Readable, Writable } from 'node:stream';
import { SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { PROTOCOL_VERSION_META_KEY, isJSONRPCNotification, isJSONRPCRequest } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { networkFailureOf } from '../mcp/networkFailure.js';

interface StdioProxyOptions {
  url: URL;
  token: string;
  /** The agent's name (`--client`), for the messages. */
  client: string;
  stdin: Readable;
  stdout: Writable;
  /** One line per problem. */
  log: (line: string) => void;
  /** Called once, when the proxy is done (stdin closed, or initialize failed). */
  onExit: (code: number) => void;
  /** How a person starts the app, for "not running" (default: a checkout's `npm start`). */
  startHint?: string;
}

/** The start hints of the two launchers: a checkout's bin, and an installed app's own binary. */
const START_FROM_CHECKOUT = 'start it with npm start';
export const START_INSTALLED_APP = 'open MiniHarness Desktop';

/** The sentence for a failed relay, and whether the agent can go on. */
export function describeRelayFailure(
  error: unknown,
  client: string,
  url: URL,
  startHint = START_FROM_CHECKOUT,
): string {
  if (error instanceof SdkHttpError) {
    const status = error.status;
    if (status === 401)
      return `MiniHarness refused the token of agent "${client}": create the agent (or a new token) in MiniHarness → Agents and set MINIHARNESS_GATEWAY_TOKEN.`;
    if (status === 403)
      return `MiniHarness refused the request (403): the gateway only accepts 127.0.0.1 and localhost at ${url.origin}.`;
    if (status === 404)
      return `MiniHarness answered 404 at ${url.href}: check the --url (the gateway is at /mcp); a 2025 agent's session may have ended — restart the agent.`;
    if (status === 405)
      return `MiniHarness answered 405 at ${url.href}: without a 2025 session the gateway takes POST only — restart the agent.`;
    return `MiniHarness's gateway answered HTTP ${status}: ${error.message}`;
  }
  const failure = networkFailureOf(error, url.href);
  if (failure?.kind === 'connection_refused') return `MiniHarness is not running: ${startHint}.`;
  return `MiniHarness's gateway at ${url.href} could not be reached: ${error instanceof Error ? error.message : String(error)}`;
}

async function runStdioProxy(options: StdioProxyOptions): Promise<void> {
  const stdio = new StdioServerTransport(options.stdin, options.stdout);
  const http = new StreamableHTTPClientTransport(options.url, {
    requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
  });
  let exited = false;
  // The SDK reports a failed send both to onerror and to the caller: say each problem once.
  let lastLine: string | undefined;
  const log = (line: string): void => {
    if (line !== lastLine) options.log(line);
    lastLine = line;
  };
  const exit = (code: number): void => {
    if (exited) return;
    exited = true;
    // End the app-side session (DELETE) when there is one; then let go of both sides.
    void (http.sessionId ? http.terminateSession().catch(() => undefined) : Promise.resolve())
      .then(() => Promise.allSettled([http.close(), stdio.close()]))
      .then(() => options.onExit(code));
  };

  /** Modern requests in flight: aborting one closes its response stream, which cancels it at the gateway. */
  const modernInFlight = new Map<RequestId, AbortController>();
  const settled = (message: JSONRPCMessage): void => {
    if ('id' in message && !('method' in message) && message.id !== undefined) modernInFlight.delete(message.id);
  };

  http.onmessage = (message) => {
    settled(message);
    void stdio.send(message).catch(() => exit(1));
  };
  // Background failures (the notification stream dropped) are said, not fatal: the next request retries.
  http.onerror = (error) => log(describeRelayFailure(error, options.client, options.url, options.startHint));
  stdio.onclose = () => exit(0);
  stdio.onerror = (error) => log(`MiniHarness's stdio entry could not read a message from the agent: ${error.message}`);
  stdio.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const inFlight = requestId === undefined ? undefined : modernInFlight.get(requestId);
      if (inFlight) {
        modernInFlight.delete(requestId as RequestId);
        inFlight.abort();
        return;
      }
    }
    let requestSignal: AbortSignal | undefined;
    if (isJSONRPCRequest(message) && message.params?._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined) {
      const controller = new AbortController();
      modernInFlight.set(message.id, controller);
      requestSignal = controller.signal;
    }
    http.send(message, requestSignal ? { requestSignal } : undefined).catch((error: unknown) => {
      if (isJSONRPCRequest(message)) modernInFlight.delete(message.id);
      // The agent cancelled it: its stream was closed on purpose.
      if (requestSignal?.aborted) return;
      const sentence = describeRelayFailure(error, options.client, options.url, options.startHint);
      log(sentence);
      if (!isJSONRPCRequest(message)) return;
      void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: sentence } }).finally(() => {
        if (message.method === 'initialize') exit(1);
      });
    });
  };

  await http.start();
  await stdio.start();
  // The SDK's stdio transport does not watch for the end of its input: the agent closing stdin
  // is how it ends this server, and the app-side session must end with it (not linger until evicted).
  options.stdin.once('end', () => exit(0));
}

/** The relay on this process's stdin/stdout, its sentences on stderr (both launchers: stdioCli.ts, the app's --gateway-stdio). */
export function relayProcessStdio(
  args: { url: URL; token: string; client: string },
  onExit: (code: number) => void,
  startHint = START_FROM_CHECKOUT,
): Promise<void> {
  return runStdioProxy({
    ...args,
    startHint,
    stdin: process.stdin,
    stdout: process.stdout,
    // Each line is a whole sentence naming MiniHarness: agents show a server's stderr as it is.
    log: (line) => process.stderr.write(`${line}\n`),
    onExit,
  });
}
