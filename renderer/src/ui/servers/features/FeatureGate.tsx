/**
 * What the Resources and Prompts tabs share: why a tab has nothing to show (the server is not
 * connected, or it did not declare the feature), the list with its toolbar beside the chosen
 * item's panel, and a caught error as main's shape.
 */
import type { ReactNode } from 'react';
import type { ErrorShape, ServerView } from '../../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../../bridge/index.js';
import type { FeatureListEntry } from '../../../state/slices/serverFeaturesSlice.js';
import type { DetailEntry } from '../../../state/slices/serversSlice.js';
import { Callout } from '../../components/Callout.js';
import { EmptyState } from '../../components/EmptyState.js';
import type { IconName } from '../../components/Icon.js';
import { Icon } from '../../components/Icon.js';
import { Spinner } from '../../components/Spinner.js';
import { CallErrorView } from '../../components/CallErrorView.js';

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

/**
 * A tab's list: loading (or why it failed) until main first answers; then a toolbar (filter,
 * count, "List again"), a later failure, a warning when the server listed more than the app
 * keeps, and the list beside the chosen item's panel.
 */
export function FeatureListView<T extends { truncated: boolean }>({
  serverId,
  entry,
  noun,
  reload,
  filter,
  onFilter,
  count,
  cutText,
  listLabel,
  render,
}: {
  serverId: string;
  entry: FeatureListEntry<T> | undefined;
  /** Plural, lower case: "resources", "prompts". */
  noun: string;
  /** Lists again (main asks the server anew). */
  reload: () => void;
  filter: string;
  onFilter: (filter: string) => void;
  count: (data: T) => string;
  cutText: string;
  listLabel: string;
  render: (data: T) => { list: ReactNode; panel: ReactNode };
}) {
  const data = entry?.data;
  if (!entry || !data) {
    if (entry?.error) return <CallErrorView error={entry.error.toShape()} serverId={serverId} />;
    return (
      <div className="loading-block">
        <Spinner label={`Loading ${noun}`} /> Loading {noun}…
      </div>
    );
  }
  const { list, panel } = render(data);
  return (
    <div className="features">
      <div className="feature-toolbar">
        <input
          type="search"
          className="input search"
          placeholder={`Filter ${noun}`}
          aria-label={`Filter ${noun}`}
          value={filter}
          onChange={(e) => onFilter(e.target.value)}
        />
        <span className="muted feature-count">{count(data)}</span>
        <button type="button" className="btn btn-small btn-ghost" onClick={reload} disabled={entry.loading}>
          <Icon name="refresh" size={14} />
          List again
        </button>
      </div>
      {entry.error && <CallErrorView error={entry.error.toShape()} serverId={serverId} />}
      {data.truncated && (
        <Callout tone="warning" title="Only part of the list">
          {cutText}
        </Callout>
      )}
      <div className="feature-browser">
        <nav className="feature-list" aria-label={listLabel}>
          {list}
        </nav>
        <div className="feature-panel">{panel}</div>
      </div>
    </div>
  );
}
