/** A view that is planned but not built yet: says what it will hold. */
import type { ReactNode } from 'react';
import type { IconName } from '../components/Icon.js';
import { EmptyState } from '../components/EmptyState.js';
import { ViewHeader } from '../layout/ViewHeader.js';

export function PlaceholderView({ title, icon, children }: { title: string; icon: IconName; children: ReactNode }) {
  return (
    <section className="view" aria-labelledby="view-title">
      <ViewHeader title={title} />
      <div className="view-body">
        <EmptyState icon={icon} title={`${title} arrive soon`}>
          {children}
        </EmptyState>
      </div>
    </section>
  );
}
