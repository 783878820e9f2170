/** A boxed message inside a view: an explanation, a warning or an error, with optional actions. */
import type { ReactNode } from 'react';
import { Icon } from './Icon.js';

export type CalloutTone = 'info' | 'warning' | 'error' | 'success';

export function Callout({
  tone,
  title,
  children,
  actions,
  role,
}: {
  tone: CalloutTone;
  title?: string;
  children?: ReactNode;
  actions?: ReactNode;
  role?: 'alert' | 'status' | 'note';
}) {
  return (
    <div className={`callout callout-${tone}`} role={role ?? (tone === 'error' ? 'alert' : 'note')}>
      <Icon
        name={tone === 'info' ? 'info' : tone === 'success' ? 'check' : 'warning'}
        className="callout-icon"
        size={18}
      />
      <div className="callout-body">
        {title && <p className="callout-title">{title}</p>}
        {children && <div className="callout-text">{children}</div>}
        {actions && <div className="callout-actions">{actions}</div>}
      </div>
    </div>
  );
}
