/**
 * The loopback redirect of a browser sign-in (RFC 8252 §7.3): an HTTP listener on 127.0.0.1
 * that receives `GET /callback?code=…&state=…` from the authorization server's redirect.
 *
 * Only the redirect that carries the `state` of the authorization in progress completes it; any
 * other request (a forged or stale redirect, a probe, a foreign Host) is answered with an error
 * page and changes nothing. The code is never logged or shown: the page says only whether the
 * sign-in went through.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const CALLBACK_PATH = '/callback';

/** What the redirect brought: a code, or the authorization server's refusal (`error=access_denied`, …). */
/** `iss`: the authorization server's issuer, when it names itself in the redirect (RFC 9207); the SDK checks it. */
export type RedirectOutcome = { code: string; iss?: string } | { error: string; description?: string };

export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port>/callback`: the redirect URI to register and send. */
  readonly redirectUrl: string;
  readonly port: number;
  /**
   * Waits for the redirect carrying `state`. A newer wait replaces an older one (which rejects).
   * Rejects on the signal (with its reason); no timeout of its own.
   */
  waitFor(state: string, signal?: AbortSignal): Promise<RedirectOutcome>;
  close(): Promise<void>;
}

interface Waiter {
  state: string;
  resolve(outcome: RedirectOutcome): void;
  reject(error: Error): void;
}

const PAGE = (title: string, text: string): string =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:system-ui;margin:3rem"><h1>${title}</h1><p>${text}</p></body>`;

function reply(res: ServerResponse, status: number, title: string, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    // The page must not leak the code in the query to anything it loads (it loads nothing).
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
  });
  res.end(PAGE(title, text));
}

/**
 * Opens the listener on `port` (0: any free port). Throws the listen error (EADDRINUSE) when the
 * port is taken, so the caller can pick another and register again.
 */
export async function openLoopbackRedirect(
  port = 0,
  note: (text: string) => void = () => undefined,
): Promise<LoopbackRedirect> {
  let waiter: Waiter | undefined;
  let boundPort = 0;
  const hosts = (): Set<string> => new Set([`127.0.0.1:${boundPort}`, `localhost:${boundPort}`]);

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${boundPort}`);
    } catch {
      reply(res, 400, 'Not found', 'This address only receives sign-in redirects for MiniHarness.'); // a request target no URL parser accepts
      return;
    }
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH || !hosts().has(req.headers.host ?? '')) {
      reply(res, 404, 'Not found', 'This address only receives sign-in redirects for MiniHarness.');
      return;
    }
    const state = url.searchParams.get('state');
    if (!waiter || state !== waiter.state) {
      note(
        'a sign-in redirect arrived that does not belong to the sign-in in progress (state mismatch); it was ignored',
      );
      reply(
        res,
        400,
        'Sign-in not recognized',
        'MiniHarness is not waiting for this sign-in. Start it again from the app.',
      );
      return;
    }
    const current = waiter;
    waiter = undefined;
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error || !code) {
      reply(
        res,
        200,
        'Sign-in refused',
        'The sign-in did not go through. You can close this tab and return to MiniHarness.',
      );
      const description = url.searchParams.get('error_description') ?? undefined;
      current.resolve({ error: error ?? 'invalid_request', ...(description ? { description } : {}) });
      return;
    }
    reply(res, 200, 'Signed in', 'You can close this tab and return to MiniHarness.');
    const iss = url.searchParams.get('iss');
    current.resolve(iss ? { code, iss } : { code });
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  boundPort = (server.address() as AddressInfo).port;
  const redirectUrl = `http://127.0.0.1:${boundPort}${CALLBACK_PATH}`;

  return {
    redirectUrl,
    port: boundPort,
    waitFor(state, signal) {
      waiter?.reject(new Error('a newer sign-in replaced this one'));
      return new Promise<RedirectOutcome>((resolve, reject) => {
        const onAbort = (): void => {
          if (waiter === mine) waiter = undefined;
          reject(signal?.reason instanceof Error ? signal.reason : new Error('the sign-in was cancelled'));
        };
        const mine: Waiter = {
          state,
          resolve: (outcome) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(outcome);
          },
          reject: (error) => {
            signal?.removeEventListener('abort', onAbort);
            reject(error);
          },
        };
        if (signal?.aborted) return onAbort();
        waiter = mine;
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    async close() {
      waiter?.reject(new Error('the sign-in listener closed'));
      waiter = undefined;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
