import { useEffect, type ReactNode } from 'react';
import { APP_NAME } from './brand.js';

/** Sets document.title while mounted. */
export function useDocumentTitle(title: string | undefined) {
  useEffect(() => {
    if (!title) return;
    const prev = document.title;
    document.title = `${title} · ${APP_NAME}`;
    return () => {
      document.title = prev;
    };
  }, [title]);
}

/** The page's heading row: title on the left, actions (buttons) on the right; sets the tab title. */
export function PageTitle({ title, actions, children }: { title: string; actions?: ReactNode; children?: ReactNode }) {
  useDocumentTitle(title);
  return (
    <div className="app-page-title d-flex flex-wrap align-items-center gap-2 mb-3">
      <h1 className="h4 mb-0 me-auto">{title}</h1>
      {actions && <div className="d-flex flex-wrap gap-2">{actions}</div>}
      {children && <div className="w-100">{children}</div>}
    </div>
  );
}
