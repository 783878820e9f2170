/**
 * "Add agent": a name and what it may see; then, once, its token — with a Copy button, the words
 * that it will not be shown again, and the configuration for the agent's application with the
 * real token in it. The token lives only in this dialog's state: closing the dialog forgets it.
 */
import { useState } from 'react';
import type { AgentView, AgentVisibility } from '../../../../shared/agents.js';
import { AgentNameSchema } from '../../../../shared/agents.js';
import { BridgeError } from '../../bridge/index.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Dialog } from '../components/Dialog.js';
import { Spinner } from '../components/Spinner.js';
import { describeError } from '../../lib/describeError.js';
import { ErrorCallout } from '../components/ErrorCallout.js';
import { Field, controlProps } from '../components/Field.js';
import { CopyButton } from '../components/CopyButton.js';
import { ConnectAgent } from './ConnectAgent.js';
import { VisibilityFields } from './VisibilityFields.js';

type FieldErrors = Record<string, string[]>;

const DEFAULT_VISIBILITY: AgentVisibility = { allServers: true, serverIds: [], localTools: false };

/** Field errors of a refusal (a name taken, an invalid field), or the whole error when it is about no field. */
function refusalOf(error: unknown): { fields: FieldErrors } | { general: unknown } {
  const fields = error instanceof BridgeError ? error.fieldErrors : {};
  return Object.keys(fields).length > 0 ? { fields } : { general: error };
}

function CreatedAgent({ agent, token }: { agent: AgentView; token: string }) {
  const gateway = useAppStore((s) => s.agentsView?.gateway);
  return (
    <div className="agent-created">
      <Callout tone="warning" title="Copy the token now: you will not see it again">
        MiniHarness keeps only a fingerprint of it, so it cannot show it later. If it is lost, revoke this agent and add
        a new one.
      </Callout>
      <div className="field">
        <label className="field-label" htmlFor="agent-token">
          Token
        </label>
        <div className="agent-token-row">
          <input
            id="agent-token"
            className="input mono"
            readOnly
            value={token}
            onFocus={(e) => e.target.select()}
            data-autofocus
          />
          <CopyButton text={token} label="Copy token" />
        </div>
        <p className="field-hint">
          The agent sends it as “Authorization: Bearer …” (or, through the stdio entry, in its environment).
        </p>
      </div>
      {gateway && (
        <>
          <h3 className="agent-connect-title">Connect {agent.name}</h3>
          <ConnectAgent agentId={agent.id} agentName={agent.name} token={token} gateway={gateway} />
        </>
      )}
    </div>
  );
}

export function AddAgentDialog({ onClose }: { onClose: () => void }) {
  const createAgent = useAppStore((s) => s.createAgent);
  const [name, setName] = useState('');
  const [visibility, setVisibility] = useState<AgentVisibility>(DEFAULT_VISIBILITY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ agent: AgentView; token: string } | undefined>(undefined);

  async function submit(): Promise<void> {
    const parsed = AgentNameSchema.safeParse(name);
    if (!parsed.success) {
      setErrors({ name: parsed.error.issues.map((i) => i.message) });
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      setCreated(await createAgent(parsed.data, visibility));
    } catch (error) {
      const refusal = refusalOf(error);
      if ('fields' in refusal) setErrors(refusal.fields);
      else setFailure(refusal.general);
    } finally {
      setBusy(false);
    }
  }

  if (created) {
    return (
      <Dialog
        key="created"
        title={`Agent “${created.agent.name}” added`}
        onClose={onClose}
        size="large"
        footer={
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Done
          </button>
        }
      >
        <CreatedAgent agent={created.agent} token={created.token} />
      </Dialog>
    );
  }

  const nameErrors = errors.name ?? [];
  return (
    <Dialog
      title="Add an agent"
      description="An agent is an MCP client (Claude Desktop, VS Code, Cursor, Claude Code, your own) that reaches the tools through MiniHarness, so every call it makes is checked, approved and recorded here."
      onClose={onClose}
      onSubmit={() => void submit()}
      size="medium"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy && <Spinner label="Adding" />}
            Add agent
          </button>
        </>
      }
    >
      <ErrorCallout words={failure === undefined ? undefined : describeError(failure)} />
      <Field
        id="agent-name"
        label="Name"
        hint="Shown in approvals, History and Traces. Letters, digits, spaces, . _ or -."
        errors={nameErrors}
      >
        <input
          className="input"
          value={name}
          autoComplete="off"
          placeholder="Claude Code"
          data-autofocus
          onChange={(e) => {
            setName(e.target.value);
            setErrors(({ name: _name, ...rest }) => rest);
          }}
          {...controlProps('agent-name', nameErrors, true)}
        />
      </Field>
      <VisibilityFields idPrefix="agent-new" value={visibility} onChange={setVisibility} errors={errors} />
    </Dialog>
  );
}
