import type { ReactNode } from 'react';
import { PlainAlert } from './PlainAlert.js';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { errorText } from '../api/http.js';

/** A waiting state: spinner and text, centred in a block (or inline). */
export function Loading({ text = 'Loading…', inline = false }: { text?: ReactNode; inline?: boolean }) {
  if (inline)
    return (
      <span className="app-loading-inline text-secondary" role="status">
        <Spinner animation="border" size="sm" className="me-2" />
        {text}
      </span>
    );
  return (
    <div className="app-loading d-flex align-items-center justify-content-center text-secondary py-4" role="status">
      <Spinner animation="border" size="sm" className="me-2" />
      <span>{text}</span>
    </div>
  );
}

/** Nothing to show (001 §4: an empty list shows 'Empty'). */
export function EmptyState({ title = 'Empty', text, children }: { title?: ReactNode; text?: ReactNode; children?: ReactNode }) {
  return (
    <div className="app-empty text-center text-secondary py-4">
      <div className="fw-semibold">{title}</div>
      {text && <div className="small mt-1">{text}</div>}
      {children && <div className="mt-2">{children}</div>}
    </div>
  );
}

/** A failed load: the error's message (the server's text) and an optional retry. */
export function ErrorAlert({ error, onRetry, className }: { error: unknown; onRetry?: () => void; className?: string }) {
  if (!error) return null;
  return (
    <PlainAlert variant="danger" className={`py-2 d-flex align-items-center gap-2 ${className ?? ''}`}>
      <span className="flex-grow-1">{errorText(error)}</span>
      {onRetry && (
        <Button size="sm" variant="outline-danger" onClick={onRetry}>
          Retry
        </Button>
      )}
    </PlainAlert>
  );
}
