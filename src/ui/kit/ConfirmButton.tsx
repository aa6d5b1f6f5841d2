import { useState, type ReactNode } from 'react';
import Button, { type ButtonProps } from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { CONFIRM_LABELS } from '../../contracts/messages.js';
import { AppModal } from './AppModal.js';

/** A button of a custom list; `onClick` may return a promise (the dialog waits, then closes). */
export interface ConfirmChoice {
  label: ReactNode;
  variant?: ButtonProps['variant'];
  onClick?: () => unknown | Promise<unknown>;
}

export interface ConfirmButtonProps {
  /** Trigger label; 'Delete' by default (000 §2). */
  label?: ReactNode;
  /** The question in the dialog. */
  text?: ReactNode;
  title?: ReactNode;
  onConfirm?: () => unknown | Promise<unknown>;
  /** 'Yes' and 'Cencel' by default (spelled so, 000 §2). */
  confirmLabel?: ReactNode;
  cancelLabel?: ReactNode;
  /** Replaces Cencel/Yes by this list (each closes the dialog after its onClick). */
  buttons?: ConfirmChoice[];
  variant?: ButtonProps['variant'];
  confirmVariant?: ButtonProps['variant'];
  size?: 'sm' | 'lg';
  disabled?: boolean;
  className?: string;
}

/** Confirm dialog of 000 §2: trigger button, then Cencel / Yes (or a custom button list). */
export function ConfirmButton({
  label = CONFIRM_LABELS.trigger,
  text = 'Are you sure?',
  title,
  onConfirm,
  confirmLabel = CONFIRM_LABELS.confirm,
  cancelLabel = CONFIRM_LABELS.cancel,
  buttons,
  variant = 'outline-danger',
  confirmVariant = 'danger',
  size = 'sm',
  disabled,
  className,
}: ConfirmButtonProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const choose = async (fn?: () => unknown | Promise<unknown>) => {
    setBusy(true);
    try {
      await fn?.();
    } finally {
      setBusy(false);
      setOpen(false);
    }
  };
  const choices: ConfirmChoice[] = buttons ?? [
    { label: cancelLabel, variant: 'secondary' },
    { label: confirmLabel, variant: confirmVariant, onClick: onConfirm },
  ];
  return (
    <>
      <Button variant={variant} size={size} disabled={disabled} className={className} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <AppModal
        show={open}
        onHide={() => !busy && setOpen(false)}
        title={title ?? label}
        footer={choices.map((c, i) => (
          <Button key={i} variant={c.variant ?? 'secondary'} size="sm" disabled={busy} onClick={() => void choose(c.onClick)}>
            {busy && c.onClick ? <Spinner animation="border" size="sm" className="me-1" /> : null}
            {c.label}
          </Button>
        ))}
      >
        {text}
      </AppModal>
    </>
  );
}
