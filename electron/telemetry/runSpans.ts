/**
 * Agent runs (the person's own model, runs/runEngine.ts) as GenAI spans: the run is an
 * `invoke_agent {name}` span; each model request under it a `chat {model}` client span with the
 * provider, the model and the tokens (`gen_ai.usage.*`); the run's tool calls are the pipeline's
 * `execute_tool` / `tools/call` spans (callSpans.ts), children of the run's span.
 */
import type { Span, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import * as A from './attributes.js';
import { currentContext, runWithSpan } from './context.js';

export interface RunIdentity {
  id: string;
  model: { name: string; kind: string; model: string };
}

/** What the run engine tells the telemetry (absent when export is off: the engine calls nothing). */
export class RunSpans {
  constructor(private readonly tracer: () => Tracer | undefined) {}

  /** Runs the run's work under its `invoke_agent` span (ended when the work settles). */
  run<T>(run: RunIdentity, work: () => Promise<T>): Promise<T> {
    const tracer = this.tracer();
    if (!tracer) return work();
    const span = tracer.startSpan(
      `invoke_agent ${run.model.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [A.GEN_AI_OPERATION_NAME]: 'invoke_agent',
          [A.GEN_AI_AGENT_NAME]: run.model.name,
          [A.GEN_AI_AGENT_ID]: run.id,
          [A.GEN_AI_CONVERSATION_ID]: run.id,
          [A.GEN_AI_PROVIDER_NAME]: providerName(run.model.kind),
          [A.GEN_AI_REQUEST_MODEL]: run.model.model,
        },
      },
      currentContext(),
    );
    return settle(span, runWithSpan(span, work));
  }

  /** One model request as a `chat {model}` span, with the tokens and tool calls it answered with. */
  turn<T extends { usage: { inputTokens: number; outputTokens: number }; calls: readonly unknown[] }>(
    run: RunIdentity,
    request: () => Promise<T>,
  ): Promise<T> {
    const tracer = this.tracer();
    if (!tracer) return request();
    const span = tracer.startSpan(
      `chat ${run.model.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [A.GEN_AI_OPERATION_NAME]: 'chat',
          [A.GEN_AI_PROVIDER_NAME]: providerName(run.model.kind),
          [A.GEN_AI_REQUEST_MODEL]: run.model.model,
        },
      },
      currentContext(),
    );
    return settle(
      span,
      request().then((turn) => {
        span.setAttribute(A.GEN_AI_USAGE_INPUT_TOKENS, turn.usage.inputTokens);
        span.setAttribute(A.GEN_AI_USAGE_OUTPUT_TOKENS, turn.usage.outputTokens);
        span.setAttribute(A.GEN_AI_RESPONSE_FINISH_REASONS, [turn.calls.length > 0 ? 'tool_calls' : 'stop']);
        return turn;
      }),
    );
  }
}

/** The conventions' provider names for the model kinds MiniHarness speaks to. */
function providerName(kind: string): string {
  return kind === 'anthropic' ? 'anthropic' : kind.startsWith('openai') ? 'openai' : kind;
}

function settle<T>(span: Span, work: Promise<T>): Promise<T> {
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
      span.setAttribute(A.ATTR_ERROR_TYPE, typeof code === 'string' ? code : '_OTHER');
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    },
  );
}
