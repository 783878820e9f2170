/** How a tool's server is named in the GUI: "Local" for the app's own tools, else the server's name. */
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { useAppStore } from '../../state/useAppStore.js';

export const LOCAL_SERVER_ID = 'local';

export function useServerLabel(serverId: string): string {
  return useAppStore((s) => {
    if (serverId === LOCAL_SERVER_ID) return 'Local';
    const view = s.servers.find((v) => serverIdOf(v) === serverId);
    return view ? serverNameOf(view) : serverId;
  });
}
