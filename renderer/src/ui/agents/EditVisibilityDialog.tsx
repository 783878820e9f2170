/** Changes what one agent sees; its open sessions are told at once (tools/list_changed). */
import { useState } from 'react';
import type { AgentView, AgentVisibility } from '../../../../shared/agents.js';
import { BridgeError } from '../../bridge/index.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Dialog } from '../components/Dialog.js';
import { Spinner } from '../components/Spinner.js';
import { describeError } from '../../lib/describeError.js';
import { ErrorCallout } from '../components/ErrorCallout.js';
import { VisibilityFields } from './VisibilityFields.js';

export function EditVisibilityDialog({ agent, onClose }: { agent: AgentView; onClose: () => void }) {
  const save = useAppStore((s) => s.setAgentVisibility);
  const busy = useAppStore((s) => s.agentsBusy[agent.id] === true);
  const [visibility, setVisibility] = useState<AgentVisibility>(agent.visibility);
  const [failure, setFailure] = useState<unknown>(undefined);

  async function submit(): Promise<void> {
    setFailure(undefined);
    try {
      await save(agent.id, visibility);
      onClose();
    } catch (error) {
      setFailure(error);
    }
  }

  return (
    <Dialog
      title={`What ${agent.name} sees`}
      description="Its open sessions get the new list of tools at once; a tool it no longer sees cannot be called."
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy} data-autofocus>
            {busy && <Spinner label="Saving" />}
            Save
          </button>
        </>
      }
    >
      <ErrorCallout words={failure === undefined ? undefined : describeError(failure)} />
      <VisibilityFields
        idPrefix={`agent-${agent.id}`}
        value={visibility}
        onChange={setVisibility}
        errors={failure instanceof BridgeError ? failure.fieldErrors : {}}
      />
    </Dialog>
  );
}
