/**
 * Tools: every tool of every server plus the local ones (kept current by 'tools.changed'), the
 * one the person selected in the Tools view, the arguments typed per tool, and the last call per
 * tool — running (with progress from 'call.progress'), finished with an outcome, or failed with
 * the contract's error shape.
 */
import type { CallOutcome, ConflictView, ErrorShape, EventOf, ToolView } from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import { loadable } from '../loadable.js';
import type { Loadable } from '../loadable.js';
import type { ClientSliceCreator, StateOf } from '../types.js';

/** A tool is named by its server and its name (the same name may exist on several servers). */
export function toolKeyOf(tool: { serverId: string; name: string }): string {
  return `${tool.serverId}::${tool.name}`;
}

interface CallProgress {
  progress: number;
  total: number | undefined;
  message: string | undefined;
}

/** The server runs the call as a task (the tasks extension): its id and latest status. */
export type CallTask = Omit<EventOf<'call.task'>, 'callId'>;

export type ToolRun =
  | {
      status: 'running';
      callId: string;
      startedAt: number;
      progress: CallProgress | undefined;
      cancelling: boolean;
      task?: CallTask;
    }
  | { status: 'done'; callId: string; startedAt: number; finishedAt: number; outcome: CallOutcome }
  | { status: 'failed'; callId: string; startedAt: number; finishedAt: number; error: ErrorShape };

export interface ToolsSlice extends Loadable<'tools'> {
  tools: ToolView[];
  conflicts: ConflictView[];
  /** `toolKeyOf` of the tool open in the call panel. */
  selectedToolKey: string | undefined;
  /** Arguments typed per tool (kept while the person looks at another tool). */
  toolDrafts: Record<string, Record<string, unknown>>;
  /** The last call per tool. */
  toolRuns: Record<string, ToolRun>;

  loadTools(): Promise<void>;
  applyTools(payload: EventOf<'tools.changed'>): void;
  selectTool(key: string | undefined): void;
  setToolDraft(key: string, args: Record<string, unknown>): void;
  /** Runs the tool through the whole pipeline with a fresh callId; the outcome lands in toolRuns. */
  runTool(tool: ToolView, args: Record<string, unknown>): Promise<void>;
  /** Asks main to cancel the running call of this tool (the call then fails as cancelled). */
  cancelToolRun(key: string): Promise<void>;
  applyProgress(event: EventOf<'call.progress'>): void;
  applyTask(event: EventOf<'call.task'>): void;
  /** Forgets everything main said, typed arguments and results included (the session was refused). */
  clearTools(): void;
}

/** A fresh id per call, made here: `gui-` + a UUID (the contract allows any call key: shared/contract/callKey.ts). */
export function newCallId(): string {
  if (typeof crypto.randomUUID === 'function') return `gui-${crypto.randomUUID()}`;
  // randomUUID needs a secure context; loopback and the app's own page are, but be safe.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `gui-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function errorShapeOf(error: unknown): ErrorShape {
  if (error instanceof BridgeError) return error.toShape();
  return { code: 'internal', message: messageOf(error) };
}

const TOOLS = loadable('tools');
const INITIAL: StateOf<ToolsSlice> = {
  tools: [],
  conflicts: [],
  ...TOOLS.idle,
  selectedToolKey: undefined,
  toolDrafts: {},
  toolRuns: {},
};

export const createToolsSlice: ClientSliceCreator<ToolsSlice> = (client) => (set, get) => {
  /** Updates the run of one tool only if it is still the same call (a newer run wins). */
  function updateRun(key: string, callId: string, next: (run: ToolRun) => ToolRun, action: string): void {
    const run = get().toolRuns[key];
    if (!run || run.callId !== callId) return;
    set({ toolRuns: { ...get().toolRuns, [key]: next(run) } }, false, action);
  }

  return {
    ...INITIAL,

    async loadTools() {
      if (get().toolsLoad !== 'ready') set(TOOLS.loading, false, 'tools/load');
      try {
        get().applyTools(await client.call('tools.list', {}));
      } catch (error) {
        set(TOOLS.failed(error), false, 'tools/loadError');
      }
    },

    applyTools({ tools, conflicts }) {
      set({ tools, conflicts, ...TOOLS.ready }, false, 'tools/list');
    },

    selectTool(selectedToolKey) {
      set({ selectedToolKey }, false, 'tools/select');
    },

    setToolDraft(key, args) {
      set({ toolDrafts: { ...get().toolDrafts, [key]: args } }, false, 'tools/draft');
    },

    async runTool(tool, args) {
      const key = toolKeyOf(tool);
      if (get().toolRuns[key]?.status === 'running') return;
      const callId = newCallId();
      const startedAt = Date.now();
      set(
        {
          toolRuns: {
            ...get().toolRuns,
            [key]: { status: 'running', callId, startedAt, progress: undefined, cancelling: false },
          },
        },
        false,
        'tools/run',
      );
      try {
        const outcome = await client.call('tools.call', { name: tool.name, serverId: tool.serverId, args, callId });
        updateRun(
          key,
          callId,
          () => ({ status: 'done', callId, startedAt, finishedAt: Date.now(), outcome }),
          'tools/runDone',
        );
      } catch (error) {
        updateRun(
          key,
          callId,
          () => ({ status: 'failed', callId, startedAt, finishedAt: Date.now(), error: errorShapeOf(error) }),
          'tools/runFailed',
        );
      }
    },

    async cancelToolRun(key) {
      const run = get().toolRuns[key];
      if (!run || run.status !== 'running' || run.cancelling) return;
      const { callId } = run;
      updateRun(key, callId, (r) => (r.status === 'running' ? { ...r, cancelling: true } : r), 'tools/cancel');
      try {
        const { cancelled } = await client.call('tools.cancel', { callId });
        // Not running any more in main: the call's own answer is on its way (or already here).
        if (!cancelled)
          updateRun(
            key,
            callId,
            (r) => (r.status === 'running' ? { ...r, cancelling: false } : r),
            'tools/cancelMissed',
          );
      } catch (error) {
        updateRun(key, callId, (r) => (r.status === 'running' ? { ...r, cancelling: false } : r), 'tools/cancelFailed');
        get().notify('error', `Could not cancel the call: ${messageOf(error)}`);
      }
    },

    applyProgress({ callId, progress, total, message }) {
      const runs = get().toolRuns;
      const key = Object.keys(runs).find((k) => runs[k]?.callId === callId);
      if (!key) return;
      updateRun(
        key,
        callId,
        (r) => (r.status === 'running' ? { ...r, progress: { progress, total, message } } : r),
        'tools/progress',
      );
    },

    applyTask({ callId, ...task }) {
      const runs = get().toolRuns;
      const key = Object.keys(runs).find((k) => runs[k]?.callId === callId);
      if (!key) return;
      updateRun(key, callId, (r) => (r.status === 'running' ? { ...r, task } : r), 'tools/task');
    },

    clearTools() {
      set(INITIAL, false, 'tools/clear');
    },
  };
};
