/**
 * The pages the person sees in their browser when an agent signs in: the consent page (which
 * client asks, where it will be sent back, what it may see — the choices the Agents view offers
 * when adding an agent — and Allow / Deny) and the error page. Plain server-rendered HTML: no
 * script, no external resource, one inline style allowed by its hash. Everything a client says
 * about itself is escaped and shown as its own claim. The security headers go with every page.
 */
import { createHash } from 'node:crypto';

const STYLE = [
  'body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}',
  'main{max-width:34rem;margin:2.5rem auto;background:#fff;border-radius:10px;padding:1.5rem 2rem;box-shadow:0 1px 4px rgba(0,0,0,.12)}',
  'h1{font-size:1.3rem;margin:0 0 1rem}',
  '.claim{background:#f7f7fa;border-left:3px solid #8a93a6;padding:.5rem .8rem;margin:.8rem 0}',
  '.claim p{margin:.3rem 0}',
  '.warn{border-left-color:#c77700}',
  '.muted{color:#5b6475;font-size:.9rem}',
  'fieldset{border:1px solid #d7dbe3;border-radius:8px;margin:1rem 0;padding:.6rem 1rem}',
  'label{display:block;margin:.35rem 0}',
  '.servers{margin-left:1.6rem}',
  '.actions{display:flex;gap:.8rem;margin-top:1.2rem}',
  'button{font:inherit;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #8a93a6;background:#fff;cursor:pointer}',
  'button[value=allow]{background:#2f5fd0;border-color:#2f5fd0;color:#fff}',
  'code{font-size:.85rem}',
].join('');

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Headers for every page and answer of the sign-in endpoints: nothing may frame them, load
 * anything into them or run script; forms post only to this origin and to the client's own
 * redirect (`formTargets`: Chromium applies form-action to the redirect that follows a POST).
 */
export function pageSecurityHeaders(formTargets: readonly string[] = []): Record<string, string> {
  const formAction = formTargets.length === 0 ? "'none'" : ["'self'", ...formTargets].join(' ');
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}; img-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action ${formAction}`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    // Not no-referrer: with it, a browser sends `Origin: null` on the consent POST, and the Origin check needs the real one.
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · MiniHarness</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

export function errorPage(title: string, detail: string): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p><p class="muted">You can close this page. The agent that sent you here can start its sign-in again.</p>`,
  );
}

export interface ConsentPageInput {
  /** The form posts here (the interaction's own path). */
  action: string;
  csrf: string;
  /** The client's `client_name`, if it gave one (its own words). */
  clientName: string | undefined;
  clientId: string;
  /** Whether the client id is a metadata document URL (its host vouches for it) rather than a registration here. */
  clientIdIsUrl: boolean;
  /** Where the browser goes back after the answer: the host (or scheme) of the redirect URI. */
  redirectTarget: string;
  /** The name the new agent will have in the Agents view. */
  agentName: string;
  servers: ReadonlyArray<{ id: string; name: string }>;
}

/** A redirect to this computer (a client's loopback listener), as `http(s)://<loopback>:<port>`. */
function isLoopbackTarget(target: string): boolean {
  const url = URL.parse(target);
  return url !== null && /^https?:$/.test(url.protocol) && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

export function consentPage(input: ConsentPageInput): string {
  const name = input.clientName
    ? `<strong>${escapeHtml(input.clientName)}</strong>`
    : '<strong>An unnamed client</strong>';
  const idLine = input.clientIdIsUrl
    ? `Its identity is published at <code>${escapeHtml(input.clientId)}</code>.`
    : `It registered itself here a moment ago (client id <code>${escapeHtml(input.clientId)}</code>).`;
  const local = isLoopbackTarget(input.redirectTarget);
  const servers =
    input.servers.length === 0
      ? '<p class="muted servers">No servers yet: with “Chosen servers” it sees no server tools.</p>'
      : `<div class="servers">${input.servers
          .map(
            (s) =>
              `<label><input type="checkbox" name="server" value="${escapeHtml(s.id)}"> ${escapeHtml(s.name)} <code class="muted">${escapeHtml(s.id)}</code></label>`,
          )
          .join('')}</div>`;
  return page(
    'Allow an agent',
    `<h1>Allow an agent to use MiniHarness?</h1>
<p>${name} asks to connect to MiniHarness as an agent.</p>
<div class="claim${local ? '' : ' warn'}"><p>The name above is the client’s own claim: MiniHarness cannot check it. ${idLine}</p>
<p>After your answer, this browser goes back to <code>${escapeHtml(input.redirectTarget)}</code>${local ? ', a program on this computer' : ' — not a program on this computer: allow only if you expect this agent to run there'}.</p></div>
<p>If you allow it, it appears in MiniHarness → Agents as <strong>${escapeHtml(input.agentName)}</strong>, where you can change what it sees or revoke it at any time.</p>
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<fieldset><legend>Servers it sees</legend>
<label><input type="radio" name="scope" value="all" checked> <strong>All servers</strong> <span class="muted">Every enabled server’s tools, including servers added later.</span></label>
<label><input type="radio" name="scope" value="chosen"> <strong>Chosen servers</strong> <span class="muted">Only the servers ticked below.</span></label>
${servers}
</fieldset>
<fieldset><legend>Local tools</legend>
<label><input type="checkbox" name="localTools" value="on"> <strong>Local tools</strong> <span class="muted">Read and write files and run commands in your folders (Settings → Folders). Each call still follows Permissions.</span></label>
</fieldset>
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}
