import { useState, type FormEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link } from 'react-router-dom';
import { RegisterBody } from '../../../contracts/auth.js';
import { PASSWORD_MIN } from '../../../contracts/constants.js';
import { restEnvelope } from '../../api/rest.js';
import { ApiError } from '../../api/http.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { useDocumentTitle } from '../../kit/PageTitle.js';

/** Self-registration: login, name, password. The account stays inactive until an admin activates it. */
export default function RegisterPage() {
  useDocumentTitle('Register');
  const [login, setLogin] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const errs = useFieldErrors();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setError('');
    const values = { login, name, password };
    const bad = validate(RegisterBody, values);
    if (bad) {
      errs.set(bad);
      return;
    }
    errs.clear();
    setBusy(true);
    const r = await restEnvelope<{ uid: number; message: string }>('POST', '/user/register', values, { noAuthRedirect: true });
    setBusy(false);
    if (r.status === 'ok') {
      setDone(r.result.message);
      return;
    }
    errs.take(new ApiError(r));
    setError(r.message);
  };

  return (
    <div className="app-center-box">
      <Card className="shadow-sm">
        <Card.Body className="p-4">
          <h1 className="h4 mb-3">Register</h1>
          {done ? (
            <>
              <Alert variant="success" className="py-2" data-testid="register-done">
                {done}
              </Alert>
              <Link to="/auth">Sign in</Link>
            </>
          ) : (
            <Form onSubmit={submit} noValidate aria-label="Register">
              <TextField name="login" label="Login" value={login} onChange={(v) => (setLogin(v), errs.clear('login'))} error={errs.of('login')} autoFocus autoComplete="username" required />
              <TextField name="name" label="Name" value={name} onChange={(v) => (setName(v), errs.clear('name'))} error={errs.of('name')} autoComplete="name" required />
              <TextField
                name="password"
                label="Password"
                type="password"
                value={password}
                onChange={(v) => (setPassword(v), errs.clear('password'))}
                error={errs.of('password')}
                autoComplete="new-password"
                help={`At least ${PASSWORD_MIN} characters`}
                required
              />
              {error && (
                <Alert variant="danger" className="py-2 mt-2 mb-2">
                  {error}
                </Alert>
              )}
              <div className="d-flex align-items-center mt-3">
                <Link to="/auth" className="small">
                  Sign in
                </Link>
                <Button type="submit" className="ms-auto px-4" disabled={busy}>
                  {busy && <Spinner animation="border" size="sm" className="me-2" />}
                  Register
                </Button>
              </div>
            </Form>
          )}
        </Card.Body>
      </Card>
    </div>
  );
}
