import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { httpCall } from '../../api/http.js';
import { clearSession, getHash, takeInpoint } from '../../api/session.js';
import { closeSocket } from '../../api/socket.js';
import { Loading } from '../../kit/states.js';

/** /logout (000 §2): ends the session on the server, clears the stored session, goes to /auth. */
export default function LogoutPage() {
  const navigate = useNavigate();
  useEffect(() => {
    let live = true;
    void (async () => {
      if (getHash()) await httpCall('POST', '/user/logout', {}, { noAuthRedirect: true, timeoutMs: 5000 });
      closeSocket();
      clearSession();
      takeInpoint(); // the next sign-in starts at home
      if (live) navigate('/auth', { replace: true });
    })();
    return () => {
      live = false;
    };
  }, [navigate]);
  return <Loading text="Signing out…" />;
}
