import Toast from 'react-bootstrap/Toast';
import ToastContainer from 'react-bootstrap/ToastContainer';
import type { NotifyItem, NotifyType } from './notify.js';

const BG: Record<NotifyType, string> = { success: 'success', error: 'danger', info: 'secondary' };

/** The stacked toasts of notify.tsx, top right (a chunk of its own, loaded with the first notification). */
export default function NotifyStack({ list, dismiss }: { list: NotifyItem[]; dismiss: (id: number) => void }) {
  return (
    <ToastContainer position="top-end" className="app-notify-stack p-2" containerPosition="fixed">
      {list.map((n) => (
        <Toast
          key={n.id}
          bg={BG[n.type]}
          onClose={() => dismiss(n.id)}
          className="app-notify text-white"
          data-type={n.type}
          role={n.type === 'error' ? 'alert' : 'status'}
        >
          <div className="d-flex align-items-start">
            <Toast.Body className="flex-grow-1 app-notify-text">{n.text}</Toast.Body>
            <button type="button" className="btn-close btn-close-white me-2 mt-2" aria-label="Close" onClick={() => dismiss(n.id)} />
          </div>
        </Toast>
      ))}
    </ToastContainer>
  );
}
