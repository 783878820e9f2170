/**
 * The browser-mode session token: taken from the link's `#token=…`, kept in sessionStorage (so a
 * reload of this tab keeps working, while other tabs and a closed browser forget it) and removed
 * from the visible URL at once so it does not linger in the address bar or get shared by copy.
 */
const STORAGE_KEY = 'miniharness.token';

export function takeSessionToken(): string | undefined {
  const hash = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const fromLink = hash.get('token');
  if (fromLink) {
    try {
      sessionStorage.setItem(STORAGE_KEY, fromLink);
    } catch {
      // Storage may be disabled; the token then lives only in memory for this page.
    }
    hash.delete('token');
    const rest = hash.toString();
    history.replaceState(
      history.state,
      '',
      window.location.pathname + window.location.search + (rest ? `#${rest}` : ''),
    );
    return fromLink;
  }
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function forgetSessionToken(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing stored
  }
}

export type SessionCheck = 'ok' | 'unauthorized' | 'unreachable';

/** Asks the host whether the token is valid before a WebSocket is opened (`origin`: the page's, by default). */
export async function checkSession(token: string, origin = ''): Promise<SessionCheck> {
  try {
    const response = await fetch(`${origin}/session`, {
      headers: { Authorization: `Bearer ${token}` },
      cache: 'no-store',
    });
    if (response.status === 401 || response.status === 403) return 'unauthorized';
    return response.ok ? 'ok' : 'unreachable';
  } catch {
    return 'unreachable';
  }
}
