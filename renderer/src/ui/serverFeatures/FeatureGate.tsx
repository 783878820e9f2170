/**
 * What the Resources and Prompts tabs share: why a tab has nothing to show (the server is not
 * connected, or it did not declare the feature), the list-and-panel layout, and a caught error
 * as main's shape.
 */
import type { ReactNode } from 'react';
import type { ErrorShape, ServerView } from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import type { DetailEntry } from '../../state/slices/serversSlice.js';
import type { IconName } from '../components/Icon.js';
import { EmptyState } from '../components/EmptyState.js';
import { Spinner } from '../components/Spinner.js';

type Capabilities = Record<string, unknown>;

/** Renders `children` with the server's declared capabilities once it is connected and offers `capability`. */
export function FeatureGate({
  view,
  detail,
  capability,
  noun,
  icon,
  children,
}: {
  view: ServerView;
  detail: DetailEntry | undefined;
  capability: 'resources' | 'prompts';
  noun: string;
  icon: IconName;
  children: (capabilities: Capabilities) => ReactNode;
}) {
  const capabilities = detail?.data?.negotiated?.capabilities;
  if (view.status.state === 'ready' && !capabilities && (!detail || detail.loading)) {
    return (
      <div className="loading-block">
        <Spinner label="Loading" /> Loading…
      </div>
    );
  }
  if (view.status.state !== 'ready' || !capabilities) {
    return (
      <EmptyState icon={icon} title={`No ${noun} to show`}>
        Connect the server to browse its {noun}.
      </EmptyState>
    );
  }
  if (!capabilities[capability]) {
    return (
      <EmptyState icon={icon} title={`No ${noun}`}>
        This server does not offer {noun}: it did not declare them when it connected.
      </EmptyState>
    );
  }
  return <>{children(capabilities)}</>;
}

export function errorShapeOf(error: unknown): ErrorShape {
  return error instanceof BridgeError ? error.toShape() : { code: 'internal', message: messageOf(error) };
}

/** A list beside the panel of the chosen item. */
export function ListAndPanel({ list, panel, listLabel }: { list: ReactNode; panel: ReactNode; listLabel: string }) {
  return (
    <div className="feature-browser">
      <nav className="feature-list" aria-label={listLabel}>
        {list}
      </nav>
      <div className="feature-panel">{panel}</div>
    </div>
  );
}
