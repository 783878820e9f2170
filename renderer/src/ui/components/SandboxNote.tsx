/**
 * Whether run_command is confined by an OS sandbox here (app.info's `sandbox`): shown on the
 * tool's call panel and in its approval dialog, so a person knows what an approval lets loose.
 */
import { useAppStore } from '../../state/useAppStore.js';

const SANDBOX_NAMES = { bwrap: 'bubblewrap', 'sandbox-exec': 'sandbox-exec', none: 'none' } as const;

/** Only the app's own run_command runs in the sandbox. */
export function runsInSandbox(toolName: string, serverId: string): boolean {
  return serverId === 'local' && toolName === 'run_command';
}

export function SandboxNote({
  toolName,
  serverId,
  as = 'p',
}: {
  toolName: string;
  serverId: string;
  as?: 'p' | 'span';
}) {
  const sandbox = useAppStore((s) => s.info?.sandbox);
  if (!runsInSandbox(toolName, serverId) || !sandbox) return null;
  const Tag = as;
  const confined = sandbox.kind !== 'none';
  return (
    <Tag className="tool-sandbox" data-sandbox={sandbox.kind}>
      <span className={`chip ${confined ? 'chip-positive' : 'chip-warning'}`}>
        {confined ? `Sandboxed (${SANDBOX_NAMES[sandbox.kind]})` : 'Runs unsandboxed'}
      </span>{' '}
      <span className="tool-sandbox-detail">
        {confined ? sandbox.detail : `${sandbox.detail} Every call asks for approval.`}
      </span>
    </Tag>
  );
}
