/**
 * The person's models (Settings → Models) and the agent runs (Agent runs view): the models
 * (never a key: a view says only whether one is set), the runs list, and the open run — its
 * stored conversation (reloaded when a turn is stored or the run changes status) plus the text
 * the model is streaming now. Fed by 'run.event' and 'runs.changed'.
 */
import type { EventOf, RequestOf } from '../../../../shared/contract.js';
import type { ModelView, RunDetail, RunView } from '../../../../shared/contract/runs.js';
import { messageOf } from '../../bridge/index.js';
import type { BridgeClient } from '../../bridge/index.js';
import type { ClientSliceCreator, SliceCreator } from '../types.js';

export interface RunsSlice {
  models: ModelView[];
  /** A model's last connection test, said in words. */
  modelTests: Record<string, { ok: boolean; text: string }>;
  runsList: RunView[];
  openRunId: string | undefined;
  openRun: RunDetail | undefined;
  /** What the model of the open run is streaming now (its turn is not stored yet). */
  liveText: string;
  /** Runs waiting (at a start or resume) for the servers they may use to be ready, by run id. */
  serverWaits: Record<string, { serverIds: string[]; timeoutMs?: number }>;
  runsError: string | undefined;
  loadModels(): Promise<void>;
  /** Undefined when saved; else the error (a BridgeError carries the refused fields). */
  saveModel(request: RequestOf<'models.save'>): Promise<unknown>;
  removeModel(id: string): Promise<void>;
  testModel(id: string): Promise<void>;
  loadRuns(): Promise<void>;
  startRun(request: RequestOf<'runs.start'>): Promise<void>;
  stopRun(id: string): Promise<void>;
  resumeRun(id: string): Promise<void>;
  openRunById(id: string | undefined): Promise<void>;
  deleteRun(id: string): Promise<void>;
  applyRunEvent(event: EventOf<'run.event'>): void;
  applyRunsChanged(event: EventOf<'runs.changed'>): void;
}

interface RunsHelpers {
  /** Reloads the open run's stored conversation. */
  reloadOpen(): Promise<void>;
  /** Runs an action, keeping its failure as `runsError`. */
  attempt(action: () => Promise<unknown>): Promise<void>;
}

const runsHelpers: ClientSliceCreator<RunsHelpers> = (client) => (set, get) => {
  const reloadOpen = async (): Promise<void> => {
    const id = get().openRunId;
    if (!id) return;
    try {
      const detail = await client.call('runs.get', { id });
      if (get().openRunId === id) set({ openRun: detail }, false, 'runs/detail');
    } catch (error) {
      set({ runsError: messageOf(error) }, false, 'runs/error');
    }
  };
  const attempt = async (action: () => Promise<unknown>): Promise<void> => {
    try {
      set({ runsError: undefined }, false, 'runs/clearError');
      await action();
    } catch (error) {
      set({ runsError: messageOf(error) }, false, 'runs/error');
    }
  };
  return { reloadOpen, attempt };
};

type Actions<K extends keyof RunsSlice> = (
  client: BridgeClient,
  helpers: RunsHelpers,
) => SliceCreator<Pick<RunsSlice, K>>;

/** Settings → Models. */
const modelActions: Actions<'loadModels' | 'saveModel' | 'removeModel' | 'testModel'> =
  (client, { attempt }) =>
  (set, get) => ({
    loadModels: () => attempt(async () => set({ models: await client.call('models.list', {}) }, false, 'models/list')),
    async saveModel(request) {
      try {
        await client.call('models.save', request);
        await get().loadModels();
        return undefined;
      } catch (error) {
        return error ?? new Error('The model was not saved.');
      }
    },
    removeModel: (id) =>
      attempt(async () => {
        await client.call('models.remove', { id });
        await get().loadModels();
      }),
    async testModel(id) {
      let result: { ok: boolean; text: string };
      try {
        const { models } = await client.call('models.test', { id });
        const shown = models.slice(0, 20).join(', ');
        result = {
          ok: true,
          text: `Connected: ${models.length} model${models.length === 1 ? '' : 's'} listed${shown ? ` — ${shown}${models.length > 20 ? ', …' : ''}` : ''}`,
        };
      } catch (error) {
        result = { ok: false, text: messageOf(error) };
      }
      set({ modelTests: { ...get().modelTests, [id]: result } }, false, 'models/test');
    },
  });

/** The runs list and the open run, and what main says of them. */
const runActions: Actions<
  'loadRuns' | 'startRun' | 'stopRun' | 'resumeRun' | 'openRunById' | 'deleteRun' | 'applyRunEvent' | 'applyRunsChanged'
> =
  (client, { attempt, reloadOpen }) =>
  (set, get) => ({
    loadRuns: () => attempt(async () => set({ runsList: await client.call('runs.list', {}) }, false, 'runs/list')),
    startRun: (request) =>
      attempt(async () => {
        const run = await client.call('runs.start', request);
        set({ openRunId: run.id, openRun: undefined, liveText: '' }, false, 'runs/started');
        await Promise.all([get().loadRuns(), reloadOpen()]);
      }),
    stopRun: (id) => attempt(() => client.call('runs.stop', { id })),
    resumeRun: (id) =>
      attempt(async () => {
        await client.call('runs.resume', { id });
        set({ openRunId: id, liveText: '' }, false, 'runs/resumed');
        await Promise.all([get().loadRuns(), reloadOpen()]);
      }),
    deleteRun: (id) =>
      attempt(async () => {
        await client.call('runs.delete', { id });
        if (get().openRunId === id)
          set({ openRunId: undefined, openRun: undefined, liveText: '' }, false, 'runs/deleted');
        await get().loadRuns();
      }),
    async openRunById(id) {
      set({ openRunId: id, openRun: undefined, liveText: '' }, false, 'runs/open');
      await reloadOpen();
    },
    applyRunEvent(event) {
      // Kept for every run: the wait may begin before the view has opened the run it started.
      if (event.type === 'servers') {
        const { [event.runId]: _ended, ...others } = get().serverWaits;
        const serverWaits =
          event.state === 'waiting'
            ? {
                ...others,
                [event.runId]: {
                  serverIds: event.serverIds,
                  ...(event.timeoutMs !== undefined ? { timeoutMs: event.timeoutMs } : {}),
                },
              }
            : others;
        set({ serverWaits }, false, 'runs/serverWait');
      }
      if (event.runId !== get().openRunId) return;
      if (event.type === 'text') set({ liveText: get().liveText + event.delta }, false, 'runs/text');
      else if (event.type === 'turn_restarted') set({ liveText: '' }, false, 'runs/restarted');
      else if (event.type === 'tool_call') {
        // A pending call means its turn is stored: the streamed text is in the conversation now.
        if (event.status === 'pending') set({ liveText: '' }, false, 'runs/turnStored');
        void reloadOpen();
      } else void reloadOpen();
    },
    applyRunsChanged(event) {
      const others = get().runsList.filter((run) => run.id !== event.id);
      set(
        { runsList: event.run ? [event.run, ...others].sort((a, b) => b.createdAt - a.createdAt) : others },
        false,
        'runs/changed',
      );
      if (event.id === get().openRunId) {
        if (event.run && event.run.status !== 'running') set({ liveText: '' }, false, 'runs/settled');
        void reloadOpen();
      }
    },
  });

export const createRunsSlice: ClientSliceCreator<RunsSlice> =
  (client) =>
  (...args) => {
    const helpers = runsHelpers(client)(...args);
    return {
      models: [],
      modelTests: {},
      runsList: [],
      openRunId: undefined,
      openRun: undefined,
      liveText: '',
      serverWaits: {},
      runsError: undefined,
      ...modelActions(client, helpers)(...args),
      ...runActions(client, helpers)(...args),
    };
  };
