/** `servers.signIn` / `servers.signOut`: an OAuth server's browser sign-in, and forgetting it. */
import type { Handlers } from '../dispatcher.js';
import type { ServerService } from '../serverService.js';

export function oauthHandlers(deps: { servers: ServerService }): Pick<Handlers, 'servers.signIn' | 'servers.signOut'> {
  const { servers } = deps;
  return {
    'servers.signIn': ({ id }) => servers.signIn(id),
    'servers.signOut': ({ id }) => servers.signOut(id),
  };
}
