import type { ReactNode } from 'react';
import Modal from 'react-bootstrap/Modal';

/**
 * Modal dialog of 000 §2: size 'normal' (70% wide, at most 800 px) or 'full' (95%); 95% on mobile
 * (≤ 992 px) either way. `footer` holds the buttons.
 */
export interface AppModalProps {
  show: boolean;
  onHide: () => void;
  title?: ReactNode;
  size?: 'normal' | 'full';
  footer?: ReactNode;
  children?: ReactNode;
  /** Keep open on backdrop click (forms with unsaved input). */
  staticBackdrop?: boolean;
  className?: string;
}

export function AppModal({ show, onHide, title, size = 'normal', footer, children, staticBackdrop, className }: AppModalProps) {
  return (
    <Modal
      show={show}
      onHide={onHide}
      dialogClassName={`app-modal-${size}`}
      className={className}
      backdrop={staticBackdrop ? 'static' : true}
      centered={false}
      scrollable
    >
      {title !== undefined && (
        <Modal.Header closeButton className="py-2">
          <Modal.Title as="h2" className="fs-5">
            {title}
          </Modal.Title>
        </Modal.Header>
      )}
      <Modal.Body>{children}</Modal.Body>
      {footer && <Modal.Footer className="py-2">{footer}</Modal.Footer>}
    </Modal>
  );
}
