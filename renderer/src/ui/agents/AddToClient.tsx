/**
 * "Add to …" under a client's snippet: the core writes the gateway's entry into that application's
 * own config file (a backup beside it), and Undo puts the file's bytes back. Offered while the
 * agent's token is known (right after it was added): the entry needs it and the app keeps no copy.
 */
import { useState } from 'react';
import type { AgentClient, ClientConfigWrite } from '../../../../shared/agentConfigs.js';
import { describeError } from '../../lib/describeError.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { ErrorCallout } from '../components/ErrorCallout.js';
import { Spinner } from '../components/Spinner.js';

/** Where one client's "Add to" stands: written (with its undo handle), or undone. */
export type ClientWriteState = { write: ClientConfigWrite; undone: boolean };

export function AddToClient({
  agentId,
  token,
  client,
  label,
  state,
  onState,
}: {
  agentId: string;
  token: string;
  client: AgentClient;
  label: string;
  state: ClientWriteState | undefined;
  onState: (state: ClientWriteState) => void;
}) {
  const addAgentToClient = useAppStore((s) => s.addAgentToClient);
  const undoAgentToClient = useAppStore((s) => s.undoAgentToClient);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(undefined);

  async function run(step: () => Promise<void>): Promise<void> {
    setBusy(true);
    setFailure(undefined);
    try {
      await step();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }
  const add = () => run(async () => onState({ write: await addAgentToClient(agentId, client, token), undone: false }));
  const undo = (write: ClientConfigWrite) =>
    run(async () => {
      await undoAgentToClient(write.undoId);
      onState({ write, undone: true });
    });

  const written = state && !state.undone ? state.write : undefined;
  return (
    <div className="connect-add-to">
      <ErrorCallout words={failure === undefined ? undefined : describeError(failure)} />
      {written ? (
        <Callout tone="success" title={`Added to ${label}`}>
          Written into <code>{written.path}</code>
          {written.backupPath ? (
            <>
              ; the file as it was is beside it, in <code>{written.backupPath}</code>.
            </>
          ) : (
            ' (a new file).'
          )}{' '}
          Restart {label} (or reload its MCP servers) to connect.
        </Callout>
      ) : (
        state?.undone && (
          <Callout tone="info" title="Undone">
            <code>{state.write.path}</code> is as it was before.
          </Callout>
        )
      )}
      <div className="connect-add-to-actions">
        {written ? (
          <button type="button" className="btn" disabled={busy} onClick={() => void undo(written)}>
            {busy && <Spinner label="Undoing" />}
            Undo
          </button>
        ) : (
          <button type="button" className="btn" disabled={busy} onClick={() => void add()}>
            {busy && <Spinner label="Adding" />}
            Add to {label}
          </button>
        )}
      </div>
    </div>
  );
}
