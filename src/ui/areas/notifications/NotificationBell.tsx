import { useCallback, useEffect, useRef, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Dropdown from 'react-bootstrap/Dropdown';
import { useNavigate } from 'react-router-dom';
import type { NotificationView, NotifySettings } from '../../../contracts/notifications.js';
import { rpc } from '../../api/rpc.js';
import { useSocketEvent, useSocketResync } from '../../api/socket.js';
import { AppModal } from '../../kit/AppModal.js';
import { TextField, useFieldErrors } from '../../kit/fields.js';
import { fmtDateTime } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { useAction } from '../../kit/useAction.js';
import './api.js';

/** Notifications shown in the bell's list. */
const SHOWN = 10;

/** Where the user's alerts go by e-mail: their own address, else ALERT_MAIL_TO. */
function MailSettings({ show, onHide }: { show: boolean; onHide: () => void }) {
  const [s, setS] = useState<NotifySettings | null>(null);
  const [email, setEmail] = useState('');
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  useEffect(() => {
    if (!show) return;
    errs.clear();
    rpc('notify.getSettings', {}).then((x) => { setS(x); setEmail(x.email); }, (e) => notify.error(String((e as Error).message)));
  }, [show]); // eslint-disable-line react-hooks/exhaustive-deps
  const save = async () => {
    const r = await run(() => rpc('notify.saveSettings', { email }), (x) => x.message, (e) => errs.take(e));
    if (r) onHide();
  };
  return (
    <AppModal show={show} onHide={onHide} title="Alert e-mail" staticBackdrop
      footer={<><Button variant="outline-secondary" onClick={onHide}>Cencel</Button><Button disabled={busy} onClick={save}>Save</Button></>}>
      <TextField name="email" label="Your address for alert e-mail" type="email" value={email} onChange={(v) => { setEmail(v); errs.clear('email'); }} error={errs.of('email')}
        help={s ? (!s.mail_configured ? 'E-mail is not configured on this console (SMTP_URL): alerts arrive here only.' : s.alert_to_set ? 'Empty: alerts go to the console\'s alert address (ALERT_MAIL_TO).' : 'Empty: no e-mail is sent (ALERT_MAIL_TO is not set).') : undefined} />
    </AppModal>
  );
}

/**
 * The bell of the top bar (docs/todo.md "Notifications"): the unread count, the latest notifications
 * (a click marks one read and opens its screen), mark all read, and the user's alert e-mail. A new
 * notification (`notify.new`, sent to every open tab of the user) also shows top right; marking read in
 * one tab updates the others (`notify.read`). It re-reads after a reconnect.
 */
export function NotificationBell() {
  const [list, setList] = useState<NotificationView[]>([]);
  const [unread, setUnread] = useState(0);
  const [settings, setSettings] = useState(false);
  const navigate = useNavigate();
  /** Ids this tab has shown: a notification pushed twice (an interrupted sender tried again) shows once. */
  const seen = useRef(new Set<number>());
  const load = useCallback(() => {
    rpc('notify.getList', { limit: SHOWN }).then((r) => {
      for (const n of r.list) seen.current.add(n.Id);
      setList(r.list);
      setUnread(r.unread);
    }, () => undefined);
  }, []);
  useEffect(load, [load]);
  useSocketResync(load);
  useSocketEvent('notify.new', (n) => {
    if (seen.current.has(n.Id)) return;
    seen.current.add(n.Id);
    if (!n.read_at) setUnread((u) => u + 1);
    setList((prev) => [n, ...prev.filter((x) => x.Id !== n.Id)].slice(0, SHOWN));
    notify.info(`${n.title}${n.body ? ` — ${n.body}` : ''}`);
  });
  useSocketEvent('notify.read', (e) => {
    setUnread(e.unread);
    const ts = Math.floor(Date.now() / 1000);
    setList((prev) => prev.map((x) => (x.read_at || (e.Id !== null && x.Id !== e.Id) ? x : { ...x, read_at: ts })));
  });
  const open = async (n: NotificationView) => {
    if (!n.read_at) {
      const r = await rpc('notify.markRead', { Id: n.Id }).catch(() => null);
      if (r) {
        setUnread(r.unread);
        setList((prev) => prev.map((x) => (x.Id === n.Id ? { ...x, read_at: Math.floor(Date.now() / 1000) } : x)));
      }
    }
    if (n.link) navigate(n.link);
  };
  const readAll = async () => {
    const r = await rpc('notify.markRead', { all: 1 }).catch((e) => { notify.error(String((e as Error).message)); return null; });
    if (r) { setUnread(r.unread); load(); }
  };
  return (
    <>
      <Dropdown align="end" className="app-bell" data-unread={unread}>
        <Dropdown.Toggle variant="outline-light" size="sm" aria-label={`Notifications, ${unread} unread`} data-testid="notify-bell">
          <svg aria-hidden="true" width="14" height="14" viewBox="0 0 16 16" fill="currentColor" style={{ verticalAlign: '-2px' }}>
            <path d="M8 16a2 2 0 0 0 2-2H6a2 2 0 0 0 2 2zm.995-14.901a1 1 0 1 0-1.99 0A5.002 5.002 0 0 0 3 6c0 1.098-.5 6-2 7h14c-1.5-1-2-5.902-2-7 0-2.42-1.72-4.44-4.005-4.901z" />
          </svg>
          {unread > 0 && <Badge bg="danger" pill className="ms-1" data-testid="notify-unread">{unread}</Badge>}
        </Dropdown.Toggle>
        <Dropdown.Menu style={{ width: 340, maxHeight: 420, overflowY: 'auto' }} data-testid="notify-menu">
          <Dropdown.Header className="d-flex align-items-center">
            <span className="me-auto">Notifications</span>
            <Button size="sm" variant="link" className="p-0 me-2" disabled={!unread} onClick={readAll}>Mark all read</Button>
            <Button size="sm" variant="link" className="p-0" onClick={() => setSettings(true)}>E-mail</Button>
          </Dropdown.Header>
          {!list.length && <Dropdown.ItemText className="small text-secondary">No notifications</Dropdown.ItemText>}
          {list.map((n) => (
            <Dropdown.Item key={n.Id} onClick={() => void open(n)} className={`small text-wrap ${n.read_at ? '' : 'fw-semibold'}`} data-testid="notify-item" data-read={n.read_at ? 1 : 0}>
              <div className={n.level === 'warning' ? 'text-warning-emphasis' : undefined}>{n.title}</div>
              {n.body && <div className="text-secondary fw-normal">{n.body}</div>}
              <div className="text-secondary fw-normal">{fmtDateTime(n.ts * 1000)}</div>
            </Dropdown.Item>
          ))}
        </Dropdown.Menu>
      </Dropdown>
      <MailSettings show={settings} onHide={() => setSettings(false)} />
    </>
  );
}
