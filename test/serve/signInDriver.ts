/**
 * Signs a person in to `miniharness serve` without a browser: follows the OpenID Connect
 * redirects by hand (a cookie jar per origin), fills the team provider's form, and returns the
 * session's cookie and the bridge token from the final link's fragment — what a browser would hold.
 */
export interface SignedIn {
  cookie: string;
  token: string;
}

type Jar = Map<string, Map<string, string>>;

function remember(jar: Jar, url: URL, response: Response): void {
  const cookies = jar.get(url.origin) ?? new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = (pair ?? '').indexOf('=');
    if (eq > 0) cookies.set((pair as string).slice(0, eq).trim(), (pair as string).slice(eq + 1).trim());
  }
  jar.set(url.origin, cookies);
}

function cookieHeader(jar: Jar, url: URL): string {
  return [...(jar.get(url.origin) ?? new Map<string, string>())]
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
}

/** The last response of the redirect chain that starts at `start`, and the URL it came from. */
async function follow(jar: Jar, start: URL, init: RequestInit = {}): Promise<{ url: URL; response: Response }> {
  let url = start;
  let request = init;
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      ...request,
      redirect: 'manual',
      headers: { ...(request.headers as Record<string, string>), cookie: cookieHeader(jar, url) },
    });
    remember(jar, url, response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return { url, response };
    url = new URL(location, url);
    if (url.hash) return { url, response };
    request = {};
  }
  throw new Error('too many redirects');
}

export async function signInAs(serveUrl: string, user: string, bootstrap?: string): Promise<SignedIn> {
  const jar: Jar = new Map();
  const login = new URL(`/auth/login${bootstrap ? `?bootstrap=${bootstrap}` : ''}`, serveUrl);
  const form = await follow(jar, login);
  if (form.response.status !== 200)
    throw new Error(`sign-in page: ${form.response.status} ${await form.response.text()}`);
  await form.response.text();
  const done = await follow(jar, form.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ user }).toString(),
  });
  const token = new URLSearchParams(done.url.hash.slice(1)).get('token');
  if (!token) throw new SignInRefused(done.response.status, await done.response.text());
  const origin = new URL(serveUrl).origin;
  const session = [...(jar.get(origin) ?? [])].find(
    ([name]) => name.startsWith('miniharness') && !name.includes('signin'),
  );
  if (!session) throw new Error('no session cookie');
  return { cookie: `${session[0]}=${session[1]}`, token };
}

export class SignInRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`sign-in refused (${status}): ${body}`);
  }
}
