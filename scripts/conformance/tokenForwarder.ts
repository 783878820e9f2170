/**
 * TEST ONLY — the conformance suite's server leg sends no Authorization header, and the agent
 * gateway answers 401 to anything without an agent's token. This forwarder, on its own loopback
 * port, passes every request to the gateway adding `Authorization: Bearer <token>` when the
 * request has none, and streams the answer back as it comes (SSE included; a request the suite
 * abandons is abandoned upstream too).
 *
 * It is transparent, never lenient: the gateway must judge each request as if it had been sent to
 * it directly. So a Host or Origin that names the forwarder's own address (127.0.0.1 or localhost
 * at its port) is rewritten to the same name at the gateway's port — what the suite would have
 * sent to the gateway itself — and every other header, a foreign Host or Origin included, passes
 * unchanged, so the gateway's DNS-rebinding checks see what the suite sent. Never part of the
 * product: agents talk to the gateway with their own token.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenForwarder {
  /** The forwarder's address, with the gateway's path (e.g. http://127.0.0.1:<port>/mcp). */
  url: URL;
  close(): Promise<void>;
}

/** `value` names `host:port` or `scheme://host:port` at `from` for a loopback name: the same at `to`. */
function retarget(value: string, from: number, to: number): string {
  return value.replace(/^((?:https?:\/\/)?(?:127\.0\.0\.1|localhost)):(\d+)$/i, (whole, name: string, port: string) =>
    Number(port) === from ? `${name}:${to}` : whole,
  );
}

export async function startTokenForwarder(gateway: URL, token: string): Promise<TokenForwarder> {
  const upstreamPort = Number(gateway.port);
  let ownPort = 0;
  const server = createServer((req, res) => {
    // The raw header lines, in order and as sent (duplicates kept), not Node's merged view.
    const headers: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] as string;
      const value = req.rawHeaders[i + 1] as string;
      const lower = name.toLowerCase();
      headers.push(name, lower === 'host' || lower === 'origin' ? retarget(value, ownPort, upstreamPort) : value);
    }
    if (req.headers.authorization === undefined) headers.push('Authorization', `Bearer ${token}`);
    const upstream = request(
      { host: gateway.hostname, port: upstreamPort, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent)
        res.writeHead(502, { 'Content-Type': 'text/plain' }).end('forwarder: the gateway did not answer');
      else res.destroy();
    });
    // The suite gave up on the answer (closed the stream): so does the gateway's caller.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  ownPort = (server.address() as AddressInfo).port;
  return {
    url: new URL(`${gateway.pathname}${gateway.search}`, `http://127.0.0.1:${ownPort}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
