/** Session labels that name the agents registered now (see sessionLabel). */
import { useCallback } from 'react';
import type { SessionView } from '../../state/slices/historySlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { sessionLabel } from '../../lib/historyFormat.js';

export function useSessionLabel(): (session: Pick<SessionView, 'sessionId' | 'current'>) => string {
  const agents = useAppStore((s) => s.agentsView?.agents);
  return useCallback((session) => sessionLabel(session, agents ?? []), [agents]);
}
