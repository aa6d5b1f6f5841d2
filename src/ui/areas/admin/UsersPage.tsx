import { useState, type FormEvent } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { nameField, passwordField, type UserView } from '../../../contracts/auth.js';
import { USERS_PAGE_SIZE } from '../../../contracts/constants.js';
import { MSG } from '../../../contracts/messages.js';
import { Role, ROLE_NAMES } from '../../../contracts/roles.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { fmtDateTime } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { z } from 'zod';

const STANDARD_ROLES = [Role.admin, Role.content, Role.user];

/** Role: a select of 1 / 10 / 100, or any number through 'Other…'. */
function RoleControl({ user, disabled, onSave }: { user: UserView; disabled?: boolean; onSave: (role: number) => void }) {
  const [custom, setCustom] = useState<string | null>(null);
  const standard = STANDARD_ROLES.includes(user.role as (typeof STANDARD_ROLES)[number]);
  if (custom !== null) {
    const n = Number(custom);
    const ok = Number.isInteger(n) && n >= 1 && n <= 1000;
    return (
      <InputGroup size="sm" className="app-role-custom">
        <Form.Control type="number" min={1} max={1000} value={custom} onChange={(e) => setCustom(e.currentTarget.value)} aria-label={`Role number for ${user.login}`} isInvalid={!ok} autoFocus />
        <Button variant="primary" disabled={!ok || disabled} onClick={() => (onSave(n), setCustom(null))}>
          Set
        </Button>
        <Button variant="outline-secondary" onClick={() => setCustom(null)}>
          ×
        </Button>
      </InputGroup>
    );
  }
  return (
    <Form.Select
      size="sm"
      value={String(user.role)}
      disabled={disabled}
      aria-label={`Role of ${user.login}`}
      onChange={(e) => {
        const v = e.currentTarget.value;
        if (v === 'other') setCustom(String(user.role));
        else onSave(Number(v));
      }}
    >
      {STANDARD_ROLES.map((r) => (
        <option key={r} value={r}>
          {r} · {ROLE_NAMES[r]}
        </option>
      ))}
      {!standard && <option value={user.role}>{user.role}</option>}
      <option value="other">Other…</option>
    </Form.Select>
  );
}

type Dialog = { kind: 'rename' | 'password'; user: UserView } | null;

/** Users admin: list (paged by p_), activate switch, role, rename, reset password. */
export default function UsersPage() {
  const session = useSession();
  const [page] = usePageParam();
  const list = useRpc('user.getList', { page, limit: USERS_PAGE_SIZE });
  const { run, busy } = useAction();
  const [pending, setPending] = useState<Set<number>>(new Set());
  const [dialog, setDialog] = useState<Dialog>(null);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [password2, setPassword2] = useState('');
  const errs = useFieldErrors();
  // A rename or a new password typed in the dialog asks before it is lost (closing it, the menu, Back).
  const dialogDirty = !!dialog && (dialog.kind === 'rename' ? name !== dialog.user.name : password !== '' || password2 !== '');
  const unsaved = useUnsavedPrompt(dialogDirty);
  const closeDialog = () => {
    if (unsaved.confirmLeave()) setDialog(null);
  };

  const replace = (u: UserView) => list.setData((d) => (d ? { ...d, list: d.list.map((x) => (x.uid === u.uid ? u : x)) } : d));

  const save = async (uid: number, patch: { active?: 0 | 1; role?: number; name?: string; password?: string }) => {
    setPending((s) => new Set(s).add(uid));
    const r = await run(() => rpc('user.save', { uid, ...patch }), MSG.saveOk, (e) => errs.take(e));
    setPending((s) => {
      const n = new Set(s);
      n.delete(uid);
      return n;
    });
    if (r) replace(r);
    return r;
  };

  const remove = async (u: UserView) => {
    if (await run(() => rpc('user.remove', { uid: u.uid }), MSG.deleteOk)) await list.reload();
  };

  const open = (kind: 'rename' | 'password', user: UserView) => {
    errs.clear();
    setName(user.name);
    setPassword('');
    setPassword2('');
    setDialog({ kind, user });
  };

  const submitDialog = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!dialog) return;
    if (dialog.kind === 'rename') {
      const bad = validate(z.object({ name: nameField }), { name });
      if (bad) return errs.set(bad);
      if (await save(dialog.user.uid, { name: name.trim() })) setDialog(null);
    } else {
      const bad = validate(z.object({ password: passwordField }), { password });
      if (bad) return errs.set(bad);
      if (password !== password2) return errs.set({ password2: 'Passwords differ' });
      if (await save(dialog.user.uid, { password })) setDialog(null);
    }
  };

  const columns: Column<UserView>[] = [
    { key: 'uid', title: 'Id', width: 60 },
    { key: 'login', title: 'Login', render: (u) => <span className="fw-semibold">{u.login}</span> },
    {
      key: 'name',
      title: 'Name',
      render: (u) => (
        <span className="d-inline-flex align-items-center gap-2">
          <span>{u.name}</span>
          {u.uid === session?.uid && <Badge bg="info">you</Badge>}
        </span>
      ),
    },
    {
      key: 'active',
      title: 'Active',
      width: 80,
      render: (u) => (
        <Form.Check
          type="switch"
          id={`active-${u.uid}`}
          checked={u.active === 1}
          disabled={pending.has(u.uid) || u.uid === session?.uid}
          aria-label={`Active ${u.login}`}
          onChange={(e) => void save(u.uid, { active: e.currentTarget.checked ? 1 : 0 })}
        />
      ),
    },
    {
      key: 'role',
      title: 'Role',
      width: 170,
      render: (u) => <RoleControl user={u} disabled={pending.has(u.uid)} onSave={(role) => void save(u.uid, { role })} />,
    },
    { key: 'created_at', title: 'Created', render: (u) => <span className="text-nowrap">{fmtDateTime(u.created_at)}</span> },
    { key: 'last_login', title: 'Last login', render: (u) => <span className="text-nowrap">{fmtDateTime(u.last_login) || '—'}</span> },
    {
      key: 'actions',
      title: '',
      className: 'text-end text-nowrap',
      render: (u) => (
        <>
          <Button size="sm" variant="outline-secondary" className="me-1" onClick={() => open('rename', u)}>
            Rename
          </Button>
          <Button size="sm" variant="outline-secondary" className="me-1" onClick={() => open('password', u)}>
            Password
          </Button>
          {u.uid !== session?.uid && (
            <ConfirmButton
              size="sm"
              variant="outline-danger"
              title={`Remove ${u.login}`}
              text={`Remove the account ${u.login}? Its sessions end at once; this cannot be undone.`}
              onConfirm={() => remove(u)}
            />
          )}
        </>
      ),
    },
  ];

  return (
    <>
      <PageTitle
        title="Users"
        actions={
          <Button size="sm" variant="outline-primary" onClick={() => void list.reload()} disabled={list.loading}>
            Refresh
          </Button>
        }
      />
      <p className="text-secondary small mt-n2">New accounts register themselves inactive; switch them active and pick a role (1 admin, 10 content, 100 user).</p>
      <div className="app-card">
        <PaginatedTable
          columns={columns}
          rows={list.data?.list}
          rowKey={(u) => u.uid}
          count={list.data?.count ?? 0}
          limit={USERS_PAGE_SIZE}
          loading={list.loading}
          error={list.error}
          onRetry={() => void list.reload()}
          rowClassName={(u) => (u.active ? undefined : 'app-row-inactive')}
        />
      </div>

      <AppModal
        show={dialog !== null}
        onHide={closeDialog}
        title={dialog ? `${dialog.kind === 'rename' ? 'Rename' : 'Reset password of'} ${dialog.user.login}` : ''}
        footer={
          <>
            <Button size="sm" variant="secondary" onClick={closeDialog}>
              Cencel
            </Button>
            <Button size="sm" variant="primary" type="submit" form="user-dialog-form" disabled={busy}>
              Save
            </Button>
          </>
        }
      >
        <Form id="user-dialog-form" onSubmit={submitDialog} noValidate>
          {dialog?.kind === 'rename' ? (
            <TextField name="name" label="Name" value={name} onChange={(v) => (setName(v), errs.clear('name'))} error={errs.of('name')} autoFocus required />
          ) : (
            <>
              <TextField name="password" label="New password" type="password" autoComplete="new-password" value={password} onChange={(v) => (setPassword(v), errs.clear('password'))} error={errs.of('password')} autoFocus required />
              <TextField name="password2" label="Repeat password" type="password" autoComplete="new-password" value={password2} onChange={(v) => (setPassword2(v), errs.clear('password2'))} error={errs.of('password2')} required />
              <Form.Text className="text-secondary">Resetting the password signs the user out everywhere.</Form.Text>
            </>
          )}
        </Form>
      </AppModal>
    </>
  );
}
