import { useState, type FormEvent } from 'react';
import { PlainAlert } from '../../kit/PlainAlert.js';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import type { SessionValues } from '../../../contracts/auth.js';
import { encodeAuthKey } from '../../../contracts/auth-key.js';
import { useSession } from '../../api/hooks.js';
import { restEnvelope } from '../../api/rest.js';
import { addAttempt, saveSession, takeInpoint } from '../../api/session.js';
import { notify } from '../../kit/notify.js';
import { useDocumentTitle } from '../../kit/PageTitle.js';

/**
 * Login screen (000 §2): title, login field, password field, error alert, link to /register, Next
 * button. Credentials travel as the combined key (000 §5) in a POST body; on success the session is
 * stored and the user goes to the saved entry point (default /).
 */
export default function AuthPage() {
  useDocumentTitle('Sign in');
  const session = useSession();
  const navigate = useNavigate();
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  if (session && !busy) return <Navigate to="/" replace />;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!login.trim() || !password) {
      setError('Enter login and password');
      return;
    }
    setBusy(true);
    setError('');
    const r = await restEnvelope<SessionValues>('POST', '/user/auth', { key: encodeAuthKey(login.trim(), password) }, { noAuthRedirect: true });
    if (r.status === 'ok') {
      saveSession(r.result);
      notify.success(`Добро пожаловать, ${r.result.name}!`);
      navigate(takeInpoint(), { replace: true });
      return;
    }
    addAttempt();
    setError(r.message);
    setBusy(false);
  };

  // Bootstrap's classes without react-bootstrap's Card, Form and Button: the first page most visitors
  // load stays within its byte budget (docs/architecture.md "Serving the UI"). Same markup as kit TextField.
  const field = (name: string, label: string, value: string, set: (v: string) => void, extra: { type?: string; autoComplete: string; autoFocus?: boolean }) => (
    <div className="mb-2">
      <label className="mb-1 small fw-semibold form-label" htmlFor={`f-${name}`}>
        {label}
      </label>
      <input
        id={`f-${name}`}
        name={name}
        type={extra.type ?? 'text'}
        className="form-control"
        value={value}
        onChange={(e) => set(e.currentTarget.value)}
        autoFocus={extra.autoFocus}
        autoComplete={extra.autoComplete}
        disabled={busy}
      />
    </div>
  );

  return (
    <div className="app-center-box">
      <div className="card shadow-sm">
        <div className="card-body p-4">
          <h1 className="h4 mb-3">Sign in</h1>
          <form onSubmit={submit} noValidate aria-label="Sign in">
            {field('login', 'Login', login, setLogin, { autoFocus: true, autoComplete: 'username' })}
            {field('password', 'Password', password, setPassword, { type: 'password', autoComplete: 'current-password' })}
            {error && (
              <PlainAlert variant="danger" className="py-2 mt-2 mb-2" data-testid="auth-error">
                {error}
              </PlainAlert>
            )}
            <div className="d-flex align-items-center mt-3">
              <Link to="/register" className="small">
                Register
              </Link>
              <button type="submit" className="btn btn-primary ms-auto px-4" disabled={busy}>
                {busy && <span className="spinner-border spinner-border-sm me-2" />}
                Next
              </button>
            </div>
          </form>
        </div>
      </div>
    </div>
  );
}
