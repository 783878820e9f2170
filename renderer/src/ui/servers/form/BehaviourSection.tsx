/** The form's Behaviour part: timeouts, priority, protocol era, enabled and trusted. */
import { Field, controlProps } from '../../components/Field.js';
import type { ServerFormState } from './formModel.js';
import type { SectionProps } from './useServerForm.js';

export function BehaviourSection({ form, errors, update }: Pick<SectionProps, 'form' | 'errors' | 'update'>) {
  return (
    <fieldset className="form-section">
      <legend>Behaviour</legend>
      <div className="form-grid form-grid-4">
        <Field
          id="server-timeout"
          label="Timeout (ms)"
          errors={errors.at('timeoutMs')}
          hint="For connecting and for each request."
        >
          <input
            className="input"
            inputMode="numeric"
            value={form.timeoutMs}
            onChange={(e) => update({ timeoutMs: e.target.value }, ['timeoutMs'])}
            {...controlProps('server-timeout', errors.at('timeoutMs'), true)}
          />
        </Field>
        <Field
          id="server-max-total"
          label="Longest call (ms)"
          errors={errors.at('maxTotalTimeoutMs')}
          hint="While a tool reports progress; empty: 10 minutes."
        >
          <input
            className="input"
            inputMode="numeric"
            placeholder="600000"
            value={form.maxTotalTimeoutMs}
            onChange={(e) => update({ maxTotalTimeoutMs: e.target.value }, ['maxTotalTimeoutMs'])}
            {...controlProps('server-max-total', errors.at('maxTotalTimeoutMs'), true)}
          />
        </Field>
        <Field
          id="server-priority"
          label="Priority"
          errors={errors.at('priority')}
          hint="Higher wins a tool-name conflict."
        >
          <input
            className="input"
            inputMode="numeric"
            value={form.priority}
            onChange={(e) => update({ priority: e.target.value }, ['priority'])}
            {...controlProps('server-priority', errors.at('priority'), true)}
          />
        </Field>
        <Field
          id="server-protocol-era"
          label="Protocol era"
          errors={errors.at('protocolEra')}
          hint="Automatic asks the server; pin it for a server that misbehaves on the question."
        >
          <select
            className="input"
            value={form.protocolEra}
            onChange={(e) => update({ protocolEra: e.target.value as ServerFormState['protocolEra'] }, ['protocolEra'])}
            {...controlProps('server-protocol-era', errors.at('protocolEra'), false)}
          >
            <option value="auto">Automatic</option>
            <option value="legacy">Legacy (2025, initialize)</option>
            <option value="modern">Modern (2026-07-28)</option>
          </select>
        </Field>
      </div>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={form.enabled}
          onChange={(e) => update({ enabled: e.target.checked }, ['enabled'])}
        />
        <span>
          <span className="checkbox-label">Enabled</span>
          <span className="field-hint">Connect it and offer its tools.</span>
        </span>
      </label>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={form.trusted}
          onChange={(e) => update({ trusted: e.target.checked }, ['trusted'])}
        />
        <span>
          <span className="checkbox-label">Trusted</span>
          <span className="field-hint">
            Let its tool annotations (such as read-only) set default permissions. Leave off for servers you do not
            control.
          </span>
        </span>
      </label>
    </fieldset>
  );
}
