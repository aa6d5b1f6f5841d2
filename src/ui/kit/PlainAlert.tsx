import type { HTMLAttributes, ReactNode } from 'react';

/**
 * Bootstrap's alert markup (the same classes and role as react-bootstrap's `<Alert>` when shown)
 * without its fade transition: react-bootstrap's Alert brings react-transition-group and its helpers
 * (~4 KB compressed) into the first load of every page, the sign-in page included. Used by the shell
 * (page alerts, error boxes); screens may keep react-bootstrap's Alert.
 */
export function PlainAlert(props: HTMLAttributes<HTMLDivElement> & { variant?: string; onClose?: () => void; children?: ReactNode }) {
  const { variant = 'primary', onClose, className, children, ...rest } = props;
  return (
    <div role="alert" {...rest} className={`fade alert alert-${variant}${onClose ? ' alert-dismissible' : ''} show${className ? ` ${className}` : ''}`}>
      {children}
      {onClose && <button type="button" className="btn-close" aria-label="Close alert" onClick={onClose} />}
    </div>
  );
}
