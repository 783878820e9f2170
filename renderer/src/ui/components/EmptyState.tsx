/** What a view shows when there is nothing yet, with the next step as an action. */
import type { ReactNode } from 'react';
import type { IconName } from './Icon.js';
import { Icon } from './Icon.js';

export function EmptyState({
  icon,
  title,
  children,
  action,
}: {
  icon: IconName;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="empty-state">
      <div className="empty-icon">
        <Icon name={icon} size={28} />
      </div>
      <h2 className="empty-title">{title}</h2>
      {children && <div className="empty-text">{children}</div>}
      {action && <div className="empty-action">{action}</div>}
    </div>
  );
}
