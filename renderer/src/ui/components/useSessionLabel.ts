/** Session labels that name the agents registered now and the agent runs listed now (see sessionLabel). */
import { useCallback } from 'react';
import type { SessionView } from '../../state/slices/historySlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { sessionLabel } from '../../lib/historyFormat.js';

export function useSessionLabel(): (session: Pick<SessionView, 'sessionId' | 'current'>) => string {
  const agents = useAppStore((s) => s.agentsView?.agents);
  const runs = useAppStore((s) => s.runsList);
  return useCallback((session) => sessionLabel(session, agents ?? [], runs), [agents, runs]);
}
