/**
 * Settings → Agent gateway: serve agents or not, and on which port of 127.0.0.1 (applied at once:
 * the endpoint restarts; a port another program holds shows in the state line and in Agents), and
 * how long an agent's session may go unseen before it ends (applied at once, no restart).
 * Settings → Approvals: how long an approval waits before the call is denied. Each field's
 * problem shows at the field, whether this page or main found it.
 */
import type { ReactNode } from 'react';
import { useState } from 'react';
import {
  DEFAULT_AGENT_IDLE_MINUTES,
  MAX_AGENT_IDLE_MINUTES,
  MIN_AGENT_IDLE_MINUTES,
} from '../../../../shared/agents.js';
import type { ErrorShape } from '../../../../shared/contract.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Spinner } from '../components/Spinner.js';
import { describeErrorShape, describeGatewayState } from '../../lib/describeError.js';
import { ErrorCallout } from '../components/ErrorCallout.js';
import { Field, controlProps } from '../components/Field.js';

type FieldErrors = Record<string, string[]>;

/** A whole number in [min, max], or the message for the field. */
function wholeNumber(text: string, min: number, max: number): number | string {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || value < min || value > max) return `must be a whole number from ${min} to ${max}`;
  return value;
}

/** A save's refusal: messages by field (shown there) and, when it names no field, the whole error (shown above). */
function useRefusal() {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [other, setOther] = useState<ErrorShape | undefined>();
  /** Takes a save's outcome; true when it was saved. */
  function settle(failed: ErrorShape | undefined): boolean {
    const fields = failed?.details?.fieldErrors ?? {};
    setErrors(fields);
    setOther(failed && Object.keys(fields).length === 0 ? failed : undefined);
    return failed === undefined;
  }
  return { errors, setErrors, other, settle };
}

/** The refusal above the form, then the form (Enter saves). */
function SettingsForm({
  other,
  onSubmit,
  children,
}: {
  other: ErrorShape | undefined;
  onSubmit: () => void;
  children: ReactNode;
}) {
  return (
    <>
      <ErrorCallout words={other && describeErrorShape(other)} />
      <form
        className="settings-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        {children}
      </form>
    </>
  );
}

/** A whole-number field whose problems show at it; typing clears them. */
function NumberField({
  id,
  label,
  hint,
  value,
  errors,
  onChange,
}: {
  id: string;
  label: string;
  hint: string;
  value: string;
  errors: string[];
  onChange: (value: string) => void;
}) {
  return (
    <Field id={id} label={label} hint={hint} errors={errors}>
      <input
        className="input input-narrow"
        inputMode="numeric"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        {...controlProps(id, errors, true)}
      />
    </Field>
  );
}

function SaveButton({ label }: { label: string }) {
  const busy = useAppStore((s) => s.settingsBusy);
  return (
    <button type="submit" className="btn" disabled={busy}>
      {busy && <Spinner label="Saving" />}
      {label}
    </button>
  );
}

/** The form over the saved values; a new saved value remounts it (see the `key`s below). */
function GatewayForm({ saved }: { saved: { enabled: boolean; port: number } }) {
  const save = useAppStore((s) => s.setGateway);
  const notify = useAppStore((s) => s.notify);
  const [enabled, setEnabled] = useState(saved.enabled);
  const [port, setPort] = useState(String(saved.port));
  const { errors, setErrors, other, settle } = useRefusal();

  async function submit(): Promise<void> {
    const wanted = wholeNumber(port, 1024, 65535);
    if (typeof wanted === 'string') {
      setErrors({ port: [wanted] });
      return;
    }
    if (settle(await save(enabled, wanted)))
      notify(
        'success',
        enabled ? `The agent gateway now serves port ${wanted}.` : 'The agent gateway is off: no agent can connect.',
      );
  }

  return (
    <SettingsForm other={other} onSubmit={() => void submit()}>
      <label className="checkbox-field">
        <input
          type="checkbox"
          role="switch"
          checked={enabled}
          onChange={(e) => setEnabled(e.target.checked)}
          aria-describedby={errors.enabled ? 'gateway-enabled-error' : undefined}
        />
        <span>
          <span className="checkbox-label">Serve agents</span>
          {/* Says what the switch's current position means (it was worded by its Off state while on). */}
          <span className="field-hint">
            {enabled
              ? 'On: agents with a token connect on the port below.'
              : 'Off: the port is closed and no agent can connect.'}
          </span>
        </span>
      </label>
      {errors.enabled && (
        <p id="gateway-enabled-error" className="field-error">
          {errors.enabled.join(' · ')}
        </p>
      )}
      <NumberField
        id="gateway-port"
        label="Port"
        hint="1024–65535. The agents’ configurations name it: after a change, copy them again from Agents."
        value={port}
        errors={errors.port ?? []}
        onChange={(value) => {
          setPort(value);
          setErrors({});
        }}
      />
      <SaveButton label="Save gateway" />
    </SettingsForm>
  );
}

function AgentIdleForm({ saved }: { saved: number }) {
  const save = useAppStore((s) => s.setAgentIdle);
  const notify = useAppStore((s) => s.notify);
  const [minutes, setMinutes] = useState(String(saved));
  const { errors, setErrors, other, settle } = useRefusal();

  async function submit(): Promise<void> {
    const wanted = wholeNumber(minutes, MIN_AGENT_IDLE_MINUTES, MAX_AGENT_IDLE_MINUTES);
    if (typeof wanted === 'string') {
      setErrors({ minutes: [wanted] });
      return;
    }
    if (settle(await save(wanted))) notify('success', `An agent unseen for ${wanted} min is no longer connected.`);
  }

  return (
    <SettingsForm other={other} onSubmit={() => void submit()}>
      <NumberField
        id="agent-idle"
        label="End an agent’s idle session after (minutes)"
        hint={`A 2025 session unseen this long with no request or stream open is closed and disappears from Agents; a request on it then gets 404 and its client starts anew. A 2026-07-28 client unseen this long leaves the list. Applies at once, no restart. ${MIN_AGENT_IDLE_MINUTES}–${MAX_AGENT_IDLE_MINUTES} (default ${DEFAULT_AGENT_IDLE_MINUTES}).`}
        value={minutes}
        errors={errors.minutes ?? []}
        onChange={(value) => {
          setMinutes(value);
          setErrors({});
        }}
      />
      <SaveButton label="Save idle time" />
    </SettingsForm>
  );
}

export function GatewaySettingsCard() {
  const saved = useAppStore((s) => s.settings?.gateway);
  const idleMinutes = useAppStore((s) => s.settings?.agentIdleMinutes);
  const gateway = useAppStore((s) => s.agentsView?.gateway);
  const navigate = useAppStore((s) => s.navigate);
  const state = gateway ? describeGatewayState(gateway) : undefined;
  return (
    <section className="card" aria-labelledby="settings-gateway">
      <h2 id="settings-gateway" className="card-title">
        Agent gateway
      </h2>
      <p className="card-note">
        MiniHarness serves one MCP endpoint on this computer (127.0.0.1) for the agents you add in Agents; every call
        they make goes through Permissions, approvals, History and Traces.
      </p>
      {state && (
        <p className={`gateway-state is-${state.tone}`} role="status">
          <strong>{state.title}</strong> · {state.text}{' '}
          <button type="button" className="link-button" onClick={() => navigate('agents')}>
            Open Agents
          </button>
        </p>
      )}
      {saved && gateway && (
        <dl className="props" data-testid="gateway-ports">
          <dt>Saved port</dt>
          <dd>{saved.port}</dd>
          <dt>Listening now</dt>
          <dd>
            {gateway.state === 'listening' ? `port ${gateway.port}` : `not listening (${state?.title.toLowerCase()})`}
          </dd>
        </dl>
      )}
      {saved && gateway && gateway.state === 'listening' && gateway.port !== saved.port && (
        <p className="field-hint">
          This run listens on port {gateway.port}, not the saved {saved.port}: it was chosen when the app started
          (--gateway-port or MINIHARNESS_GATEWAY_PORT). The saved port applies from the next start without one; saving
          here moves this run to the port below now.
        </p>
      )}
      {saved && <GatewayForm key={`${saved.enabled}:${saved.port}`} saved={saved} />}
      {idleMinutes !== undefined && <AgentIdleForm key={idleMinutes} saved={idleMinutes} />}
    </section>
  );
}

function ApprovalTimeoutForm({ saved }: { saved: number }) {
  const save = useAppStore((s) => s.setApprovalTimeout);
  const notify = useAppStore((s) => s.notify);
  const [seconds, setSeconds] = useState(String(saved));
  const { errors, setErrors, other, settle } = useRefusal();

  async function submit(): Promise<void> {
    const wanted = wholeNumber(seconds, 10, 3600);
    if (typeof wanted === 'string') {
      setErrors({ seconds: [wanted] });
      return;
    }
    if (settle(await save(wanted))) notify('success', `Approvals now wait ${wanted} s before the call is denied.`);
  }

  return (
    <SettingsForm other={other} onSubmit={() => void submit()}>
      <NumberField
        id="approval-timeout"
        label="Approval timeout (seconds)"
        hint="How long a call that asks waits for your answer; then it is denied and nothing runs. Many agents give up on a call after 60 s (the MCP SDKs’ default) unless they accept progress updates, which MiniHarness sends while they wait; the default, 55 s, answers them first. Applies to requests made after saving. 10–3600."
        value={seconds}
        errors={errors.seconds ?? []}
        onChange={(value) => {
          setSeconds(value);
          setErrors({});
        }}
      />
      <SaveButton label="Save timeout" />
    </SettingsForm>
  );
}

export function ApprovalTimeoutCard() {
  const saved = useAppStore((s) => s.settings?.approvalTimeoutSeconds);
  return (
    <section className="card" aria-labelledby="settings-approvals">
      <h2 id="settings-approvals" className="card-title">
        Approvals
      </h2>
      {saved !== undefined && <ApprovalTimeoutForm key={saved} saved={saved} />}
    </section>
  );
}
