/** The title row of a view, with its primary actions on the right. */
import type { ReactNode } from 'react';

export function ViewHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="view-header">
      <div className="view-heading">
        <h1 id="view-title" className="view-title">
          {title}
        </h1>
        {subtitle && <p className="view-subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="view-actions">{actions}</div>}
    </header>
  );
}
