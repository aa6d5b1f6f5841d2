import { useSocketStatus, type SocketStatus } from '../api/socket.js';
import { NotificationBell } from '../areas/notifications/NotificationBell.js';

/**
 * The signed-in extras of the top bar: the notification bell and the realtime indicator (which opens the
 * tab's socket). A chunk of its own (App loads it lazily), so the sign-in page's first load carries
 * neither socket.io nor the bell's dropdown and modal.
 */
const LIVE_LABEL: Record<SocketStatus, string> = {
  idle: 'offline',
  connecting: 'connecting',
  connected: 'live',
  reconnecting: 'reconnecting',
  failed: 'offline',
};

/** Realtime connection state in the top bar (connects the tab's socket while signed in). */
function LiveIndicator() {
  const status = useSocketStatus();
  return (
    <span className={`app-live app-live-${status}`} title={`Realtime: ${LIVE_LABEL[status]}`} data-status={status}>
      <span className="app-live-dot" />
      <span className="d-none d-sm-inline">{LIVE_LABEL[status]}</span>
    </span>
  );
}

export default function TopExtras({ uid }: { uid: number }) {
  return (
    <>
      <NotificationBell key={uid} />
      <LiveIndicator />
    </>
  );
}
