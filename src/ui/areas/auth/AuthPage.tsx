import { useState, type FormEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { encodeAuthKey, type SessionValues } from '../../../contracts/auth.js';
import { useSession } from '../../api/hooks.js';
import { restEnvelope } from '../../api/rest.js';
import { addAttempt, saveSession, takeInpoint } from '../../api/session.js';
import { notify } from '../../kit/notify.js';
import { TextField } from '../../kit/fields.js';
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

  return (
    <div className="app-center-box">
      <Card className="shadow-sm">
        <Card.Body className="p-4">
          <h1 className="h4 mb-3">Sign in</h1>
          <Form onSubmit={submit} noValidate aria-label="Sign in">
            <TextField name="login" label="Login" value={login} onChange={setLogin} autoFocus autoComplete="username" disabled={busy} />
            <TextField name="password" label="Password" type="password" value={password} onChange={setPassword} autoComplete="current-password" disabled={busy} />
            {error && (
              <Alert variant="danger" className="py-2 mt-2 mb-2" role="alert" data-testid="auth-error">
                {error}
              </Alert>
            )}
            <div className="d-flex align-items-center mt-3">
              <Link to="/register" className="small">
                Register
              </Link>
              <Button type="submit" variant="primary" className="ms-auto px-4" disabled={busy}>
                {busy && <Spinner animation="border" size="sm" className="me-2" />}
                Next
              </Button>
            </div>
          </Form>
        </Card.Body>
      </Card>
    </div>
  );
}
