/**
 * `jsonrpc.request.id` on a call's client span: the SDK picks the id as it sends the request, so
 * the id is read off the wire. A call span waiting for its id registers the `traceparent` it gave
 * the server in `_meta` (callSpans.ts); each MCP client transport is watched (mcp/client.ts), and
 * an outgoing `tools/call` carrying a registered `traceparent` tells its span the id. With export
 * off nothing is registered, and a send pays one `Map.size` check.
 */
const waiting = new Map<string, (id: string) => void>();

/** Tells `note` the id of each request sent with this `traceparent` in `_meta` until the returned function is called. */
export function expectRequestId(traceparent: string, note: (id: string) => void): () => void {
  waiting.set(traceparent, note);
  return () => void waiting.delete(traceparent);
}

interface Sending {
  send(message: never, ...rest: never[]): Promise<void>;
}

/** Watches a transport's outgoing requests for the ids of the registered call spans. */
export function watchRequestIds(transport: Sending): void {
  const target = transport as unknown as { send: (message: unknown, ...rest: unknown[]) => Promise<void> };
  const send = target.send.bind(transport);
  target.send = (message, ...rest) => {
    if (waiting.size > 0) noteId(message);
    return send(message, ...rest);
  };
}

function noteId(message: unknown): void {
  const request = message as { id?: unknown; params?: { _meta?: { traceparent?: unknown } } } | null;
  const traceparent = request?.params?._meta?.traceparent;
  if (typeof traceparent !== 'string') return;
  const id = request?.id;
  if (typeof id === 'string' || typeof id === 'number') waiting.get(traceparent)?.(String(id));
}
