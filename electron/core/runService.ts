/**
 * The models and runs channels' service: the person's model configurations (keys write-only,
 * in the secret store, and made known to the app's SecretRedactor so no log, trace or event
 * ever shows one), the connection test, and the agent runs — started, stopped, resumed,
 * deleted — with their progress forwarded as contract events.
 */
import type { RunSpans } from '../telemetry/runSpans.js';
import type { EventName, EventOf } from '../../shared/contract.js';
import type { ModelView, RunDetail, RunView } from '../../shared/contract/runs.js';
import { AppError, ValidationFailedError } from './errors.js';
import type { ExecuteOptions, ExecuteResult, HarnessToolInfo } from '../harness/application.js';
import type { ModelConfig } from '../models/providerFactory.js';
import { createProvider, modelKeyStorageKey } from '../models/providerFactory.js';
import { SecretValue } from '../secrets/secretValue.js';
import type { SecretStore } from '../secrets/types.js';
import type { RunEvent, RunServers } from '../runs/runEngine.js';
import { RunEngine, runCaller } from '../runs/runEngine.js';
import type { RunStorage } from '../runs/runStorage.js';
import type { RunLimits, RunRecord } from '../runs/types.js';

type Emit = <E extends EventName>(event: E, payload: EventOf<E>) => void;

export interface RunServiceOptions {
  store: RunStorage;
  secrets: SecretStore;
  harness: {
    executeTool(toolName: string, args: Record<string, unknown>, options: ExecuteOptions): Promise<ExecuteResult>;
    listTools(): HarnessToolInfo[];
  };
  emit: Emit;
  /** Every key read or written is redacted from logs, traces and events from then on. */
  knownSecret(value: string): void;
  /** A resumed run's unknown call that the server ran as a task: settled from the task (runs/taskOutcomes.ts). */
  taskSettled?(sessionId: string, callId: string, signal: AbortSignal): Promise<boolean>;
  /** The servers runs may use: a run started or resumed before they are ready waits for them (runs/runServers.ts). */
  servers?: RunServers;
  /** OpenTelemetry GenAI spans of the runs (telemetry/runSpans.ts). */
  spans?: RunSpans;
  /** A store shared with other instances: hears their runs' changes (by id) until closed. */
  follow?(changed: (runId: string) => void): Promise<{ close(): Promise<void> }>;
}

export interface SaveModelInput {
  id: string;
  name: string;
  kind: ModelConfig['kind'];
  baseUrl?: string | undefined;
  model: string;
  apiKey?: string | undefined;
  /** True: the person confirmed replacing the model with this id; else a taken id or name is refused. */
  replace?: boolean | undefined;
}

export class RunService {
  readonly engine: RunEngine;
  private following: { close(): Promise<void> } | undefined;

  constructor(private readonly options: RunServiceOptions) {
    this.engine = new RunEngine({
      harness: options.harness,
      store: options.store,
      providerFor: (model) => createProvider(model, { get: (key) => this.readKey(key) }),
      onEvent: (event) => this.forward(event),
      ...(options.taskSettled ? { taskSettled: options.taskSettled } : {}),
      ...(options.servers ? { servers: options.servers } : {}),
      ...(options.spans ? { spans: options.spans } : {}),
    });
  }

  /** Runs a dead process left running are shown as interrupted, with Resume (once, before the channels serve). */
  async open(): Promise<void> {
    await this.options.store.markInterrupted();
    this.following = await this.options.follow?.((id) => void this.changed(id).catch(() => undefined));
  }

  async models(): Promise<ModelView[]> {
    return Promise.all((await this.options.store.models()).map((config) => this.modelView(config)));
  }

  async saveModel(input: SaveModelInput): Promise<ModelView> {
    const existing = await this.options.store.models();
    const sameName = existing.find(
      (m) => m.name.trim().toLowerCase() === input.name.trim().toLowerCase() && m.id !== input.id,
    );
    // A second model under a name in use would silently become the one runs pick by that name.
    if (sameName)
      throw new ValidationFailedError(`A model named “${sameName.name}” exists already.`, {
        name: [`a model named “${sameName.name}” exists already: choose another name, or remove that one first`],
      });
    const sameId = existing.find((m) => m.id === input.id);
    if (sameId && input.replace !== true)
      throw new ValidationFailedError(`A model named “${sameId.name}” exists already.`, {
        name: [`a model named “${sameId.name}” exists already: choose another name, or confirm replacing it`],
      });
    const config: ModelConfig = {
      id: input.id,
      name: input.name,
      kind: input.kind,
      model: input.model,
      ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}),
    };
    const key = modelKeyStorageKey(input.id);
    if (input.apiKey !== undefined) {
      if (input.apiKey === '') await this.options.secrets.delete(key);
      else {
        this.options.knownSecret(input.apiKey);
        await this.options.secrets.set(key, new SecretValue(input.apiKey));
      }
    }
    await this.options.store.saveModel(config);
    return this.modelView(config);
  }

  async removeModel(id: string): Promise<boolean> {
    await this.options.secrets.delete(modelKeyStorageKey(id));
    return this.options.store.deleteModel(id);
  }

  async testModel(id: string): Promise<string[]> {
    const provider = await createProvider(await this.model(id), { get: (key) => this.readKey(key) });
    return provider.listModels(AbortSignal.timeout(15_000));
  }

  async list(): Promise<RunView[]> {
    return Promise.all((await this.options.store.list()).map((run) => this.runView(run)));
  }

  async get(id: string): Promise<RunDetail> {
    const run = await this.requireRun(id);
    const messages = (await this.options.store.messages(id)).map((message) =>
      message.role === 'user'
        ? { role: 'user' as const, text: message.text }
        : message.role === 'assistant'
          ? { role: 'assistant' as const, text: message.text, callIds: message.toolCalls.map((c) => c.id) }
          : { role: 'tool_results' as const, callIds: message.results.map((r) => r.callId) },
    );
    const toolCalls = (await this.options.store.toolCalls(id)).map((record) => ({
      callId: record.call.id,
      name: record.call.name,
      toolName: record.toolName,
      serverId: record.serverId,
      args: record.call.args,
      status: record.status,
      ...(record.result ? { result: record.result } : {}),
    }));
    return { run: await this.runView(run), messages, toolCalls };
  }

  async start(input: {
    modelId: string;
    visibility: RunRecord['visibility'];
    prompt: string;
    maxToolCalls?: number | undefined;
    tokenBudget?: number | undefined;
  }): Promise<RunView> {
    const limits: Partial<RunLimits> = {
      ...(input.maxToolCalls !== undefined ? { maxToolCalls: input.maxToolCalls } : {}),
      ...(input.tokenBudget !== undefined ? { tokenBudget: input.tokenBudget } : {}),
    };
    const run = await this.engine.start({
      model: await this.model(input.modelId),
      visibility: input.visibility,
      prompt: input.prompt,
      limits,
    });
    await this.changed(run.id);
    return this.runView(run);
  }

  async stop(id: string): Promise<boolean> {
    await this.requireRun(id);
    return this.engine.stop(id);
  }

  async resume(id: string): Promise<RunView> {
    await this.requireRun(id);
    const run = await this.engine.resume(id);
    return this.runView(run);
  }

  async delete(id: string): Promise<boolean> {
    // Running here, or (on a shared store) on another instance: it is stopped where it runs first.
    if (this.engine.isRunning(id) || (await this.options.store.get(id))?.status === 'running')
      throw new AppError('still_running', 'Stop the run before deleting it.');
    const removed = await this.options.store.delete(id);
    if (removed) this.options.emit('runs.changed', { id });
    return removed;
  }

  /** Stops every run in flight (app closing) and waits for their loops. */
  async close(): Promise<void> {
    const running = (await this.options.store.list()).filter((run) => this.engine.isRunning(run.id));
    for (const run of running) this.engine.stop(run.id);
    await Promise.all(running.map((run) => this.engine.settled(run.id)));
    await this.following?.close();
  }

  private async readKey(key: string): Promise<SecretValue | undefined> {
    const value = await this.options.secrets.get(key);
    if (value && !value.isEmpty) this.options.knownSecret(value.reveal());
    return value;
  }

  private async model(id: string): Promise<ModelConfig> {
    const config = (await this.options.store.models()).find((m) => m.id === id);
    if (!config) throw new AppError('not_found', `There is no model "${id}". Add it in Settings → Models.`);
    return config;
  }

  private async requireRun(id: string): Promise<RunRecord> {
    const run = await this.options.store.get(id);
    if (!run) throw new AppError('not_found', `There is no run "${id}".`);
    return run;
  }

  private async modelView(config: ModelConfig): Promise<ModelView> {
    const key = (await this.options.secrets.has(modelKeyStorageKey(config.id))) ? 'set' : 'not_set';
    return {
      id: config.id,
      name: config.name,
      kind: config.kind,
      model: config.model,
      ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
      key,
    };
  }

  private async runView(run: RunRecord): Promise<RunView> {
    const first = (await this.options.store.messages(run.id))[0];
    return {
      id: run.id,
      caller: runCaller(run),
      modelName: run.model.name,
      status: run.status,
      ...(run.outcome ? { outcome: run.outcome } : {}),
      title: first?.role === 'user' ? first.text.slice(0, 200) : '',
      toolCalls: run.toolCalls,
      maxToolCalls: run.limits.maxToolCalls,
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      tokenBudget: run.limits.tokenBudget,
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
    };
  }

  /** Tells the GUI a run changed (here, or on another instance sharing the store). */
  async changed(id: string): Promise<void> {
    const run = await this.options.store.get(id);
    this.options.emit('runs.changed', { id, ...(run ? { run: await this.runView(run) } : {}) });
  }

  private forward(event: RunEvent): void {
    if (event.type === 'status') {
      void this.changed(event.runId).catch(() => undefined);
      return;
    }
    this.options.emit('run.event', event);
  }
}
