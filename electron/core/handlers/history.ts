/** `history.*`: sessions, pages of recorded calls, one whole record, replay, re-run, manual resolution, and asking the server about a task. */
import type { CheckpointStorage } from '../../checkpoints/types.js';
import type { HarnessApplication } from '../../harness/application.js';
import type { SecretRedactor } from '../../secrets/secretRedactor.js';
import type { CallService } from '../callService.js';
import type { Handlers } from '../dispatcher.js';
import { AppError } from '../errors.js';
import { historyRecordView } from '../views.js';
import { withoutUndefined } from './optional.js';
import type { TaskRecoveryOutcome } from '../../harness/taskRecovery.js';

/** The most a `history.get` answer may carry (arguments + result + error JSON), so it fits a bridge frame. */
export const HISTORY_RECORD_MAX_BYTES = 16 * 1024 * 1024;

type HistoryChannels =
  | 'history.sessions'
  | 'history.page'
  | 'history.get'
  | 'history.replay'
  | 'history.rerun'
  | 'history.resolve'
  | 'history.askTask';

/** Asks the server about one recorded task (harness/taskRecovery.ts): what the first look settled, or `busy` (another look has it). */
export type AskTask = (sessionId: string, callId: string) => Promise<TaskRecoveryOutcome[] | 'busy'>;

export function historyHandlers(deps: {
  harness: HarnessApplication;
  checkpoints: CheckpointStorage;
  redactor: SecretRedactor;
  calls: CallService;
  askTask: AskTask;
}): Pick<Handlers, HistoryChannels> {
  const { harness, checkpoints, redactor, calls } = deps;
  const running = (sessionId: string, callId: string): boolean => harness.isRunning(sessionId, callId);
  return {
    'history.sessions': async () => ({ current: calls.sessionId, sessions: await checkpoints.listSessions() }),
    'history.page': async (query) => {
      const page = await checkpoints.history(withoutUndefined(query));
      // Redacted on the way out too: a record stored before its secret was known may hold it.
      return {
        records: page.records.map((r) => redactor.redactSecretValues(historyRecordView(r, running))),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    },
    'history.get': async ({ sessionId, callId }) => {
      const bytes = await checkpoints.recordBytes(sessionId, callId);
      if (bytes === undefined)
        throw new AppError('not_found', `No call "${callId}" is recorded in session "${sessionId}".`);
      if (bytes > HISTORY_RECORD_MAX_BYTES) {
        throw new AppError(
          'record_too_large',
          `This record holds ${(bytes / 1024 / 1024).toFixed(1)} MiB of arguments and result, more than the ${HISTORY_RECORD_MAX_BYTES / 1024 / 1024} MiB the app shows at once. Its preview is all that can be shown here.`,
          { limitBytes: HISTORY_RECORD_MAX_BYTES },
        );
      }
      const record = await checkpoints.get(sessionId, callId);
      if (!record) throw new AppError('not_found', `No call "${callId}" is recorded in session "${sessionId}".`);
      return redactor.redactSecretValues(historyRecordView(record, running));
    },
    'history.replay': ({ sessionId, callId }) => calls.replay(sessionId, callId),
    'history.rerun': ({ sessionId, callId, newCallId }) => calls.rerun(sessionId, callId, newCallId),
    'history.askTask': async ({ sessionId, callId }) => {
      if (harness.isRunning(sessionId, callId))
        throw new AppError('still_running', 'This call is still running; its task is followed already.');
      const record = await checkpoints.get(sessionId, callId);
      if (!record) throw new AppError('not_found', `No call "${callId}" is recorded in session "${sessionId}".`);
      if (record.taskId === undefined || record.status !== 'started')
        throw new AppError('not_found', 'This call has no task of the server left to ask about.');
      const asked = await deps.askTask(sessionId, callId);
      // Being asked already (at start, its server not ready yet, or a task followed to its end): that look records its outcome.
      if (asked === 'busy')
        throw new AppError(
          'unavailable',
          `The app is asking the server about task ${record.taskId} already; its answer is recorded here when the server gives it.`,
        );
      // Not settled (the server did not connect, or does not know the task): the record stays unknown and
      // says why as its last error (taskRecovery.ts); the answer says it too, with the ask's trace.
      const [outcome] = asked;
      if (outcome?.kind === 'unresolved')
        throw new AppError(
          'unavailable',
          `The server could not tell how task ${record.taskId} ended: ${redactor.redactText(outcome.reason)}`,
          outcome.traceId ? { traceId: outcome.traceId } : undefined,
        );
      const after = (await checkpoints.get(sessionId, callId)) ?? record;
      return redactor.redactSecretValues(historyRecordView(after, running));
    },
    'history.resolve': async ({ sessionId, callId, resolution }) => {
      if (harness.isRunning(sessionId, callId))
        throw new AppError('still_running', 'This call is still running; wait for it to finish or cancel it first.');
      const record = await checkpoints.resolveManually(
        sessionId,
        callId,
        resolution.status === 'failed'
          ? { status: 'failed', ...(resolution.note ? { note: resolution.note } : {}) }
          : {
              status: 'completed',
              result: {
                content: [{ type: 'text', text: resolution.resultText }],
                structuredContent: undefined,
                isError: false,
              },
              ...(resolution.note ? { note: resolution.note } : {}),
            },
      );
      return historyRecordView(record, () => false);
    },
  };
}
