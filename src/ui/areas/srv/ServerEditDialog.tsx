import { useEffect, useMemo, useState, type FormEvent } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { MSG } from '../../../contracts/messages.js';
import {
  AGENT_NODE_TYPES, BALANCE_ROLES, DATA_TYPE, DEFAULT_NGINX_LOG, PROXY_TYPE, SERVER_TYPES, SSH_DEFAULT_PORT, ServerSaveArgs, WEB_CLUSTER_TYPE, WEB_TYPE, type ServerView,
} from '../../../contracts/srv.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { SelectField, SwitchField, TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import type { ServerSaveInput } from './api.js';

interface FormState {
  name: string;
  type: string;
  cod: string;
  status: boolean;
  ip: string;
  ip_local: string;
  sshlogin: string;
  sshport: string;
  sshpass: string;
  sshpass_clear: boolean;
  private_key: string;
  private_key_pass: string;
  private_key_clear: boolean;
  cluster_key: string;
  cluster_key_clear: boolean;
  number_in_nginx: string;
  balance_db: string;
  balance_cache: string;
  balance_memcache: string;
  balance_web: boolean;
  read_nginx_log_firewall: boolean;
  nginx_log: string;
  agent_url: string;
}

const fromServer = (s: ServerView | null, defaults: Partial<ServerView> = {}): FormState => ({
  name: s?.name ?? '',
  type: String(s?.type ?? defaults.type ?? WEB_TYPE),
  cod: String(s?.cod ?? defaults.cod ?? 0),
  status: (s?.status ?? 1) === 1,
  ip: s?.ip ?? '',
  ip_local: s?.ip_local ?? '',
  sshlogin: s?.sshlogin ?? '',
  sshport: String(s?.sshport ?? SSH_DEFAULT_PORT),
  sshpass: '',
  sshpass_clear: false,
  private_key: '',
  private_key_pass: '',
  private_key_clear: false,
  cluster_key: '',
  cluster_key_clear: false,
  number_in_nginx: String(s?.number_in_nginx ?? 0),
  balance_db: String(s?.balance_db ?? 0),
  balance_cache: String(s?.balance_cache ?? 0),
  balance_memcache: String(s?.balance_memcache ?? 0),
  balance_web: (s?.balance_web ?? 0) === 1,
  read_nginx_log_firewall: (s?.read_nginx_log_firewall ?? 0) === 1,
  nginx_log: s?.nginx_log ?? DEFAULT_NGINX_LOG,
  agent_url: s?.agent_url ?? '',
});

function toPayload(f: FormState, Id?: number): ServerSaveInput {
  const p: ServerSaveInput = {
    name: f.name.trim(),
    type: Number(f.type),
    cod: Number(f.cod),
    status: f.status ? 1 : 0,
    ip: f.ip.trim(),
    ip_local: f.ip_local.trim(),
    sshlogin: f.sshlogin.trim(),
    sshport: f.sshport.trim() === '' ? Number.NaN : Number(f.sshport),
    number_in_nginx: Number(f.number_in_nginx || 0),
    balance_db: Number(f.balance_db),
    balance_cache: Number(f.balance_cache),
    balance_memcache: Number(f.balance_memcache),
    balance_web: f.balance_web ? 1 : 0,
    read_nginx_log_firewall: f.read_nginx_log_firewall ? 1 : 0,
    agent_url: f.agent_url.trim(),
  };
  if (Id) p.Id = Id;
  // the access log the firewall worker reads: proxies only
  if (p.type === PROXY_TYPE) p.nginx_log = f.nginx_log.trim();
  if (f.sshpass_clear) p.sshpass_clear = true;
  else if (f.sshpass) p.sshpass = f.sshpass;
  if (f.private_key_clear) p.private_key_clear = true;
  else if (f.private_key.trim()) {
    p.private_key = f.private_key;
    if (f.private_key_pass) p.private_key_pass = f.private_key_pass;
  }
  if (f.cluster_key_clear) p.cluster_key_clear = true;
  else if (f.cluster_key.trim()) p.cluster_key = f.cluster_key.trim();
  return p;
}

const TYPE_OPTIONS = Object.entries(SERVER_TYPES).map(([v, label]) => ({ value: Number(v), label: `${v} · ${label}` }));
const BALANCE_OPTIONS = Object.entries(BALANCE_ROLES).map(([v, label]) => ({ value: Number(v), label }));

export interface ServerEditDialogProps {
  /** null: closed; {server: null}: a new server (with optional defaults); {server}: edit it. */
  target: { server: ServerView | null; defaults?: Partial<ServerView> } | null;
  parents: Array<{ Id: number; name: string }>;
  onClose: () => void;
  onSaved: (Id: number) => void;
}

/**
 * Create and edit dialog: the fields of 000 §3, validated with the server's schema; secrets write-only.
 * With unsaved edits, closing it, Back or leaving the page asks first (useUnsavedPrompt).
 */
export function ServerEditDialog({ target, parents, onClose, onSaved }: ServerEditDialogProps) {
  const server = target?.server ?? null;
  const [f, setF] = useState<FormState>(() => fromServer(server, target?.defaults));
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const initial = useMemo(() => JSON.stringify(fromServer(target?.server ?? null, target?.defaults)), [target]);
  const unsaved = useUnsavedPrompt(!!target && JSON.stringify(f) !== initial);
  const requestClose = () => {
    if (!busy && unsaved.confirmLeave()) onClose();
  };

  useEffect(() => {
    if (target) {
      setF(fromServer(target.server, target.defaults));
      errs.clear();
    }
  }, [target]);

  const set = <K extends keyof FormState>(k: K, v: FormState[K]) => {
    setF((p) => ({ ...p, [k]: v }));
    errs.clear(k as string);
  };
  const type = Number(f.type);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    const payload = toPayload(f, server?.Id);
    const bad = validate(ServerSaveArgs, payload);
    if (bad) return errs.set(bad);
    const r = await run(() => rpc('srv.save_server', payload), MSG.saveServerOk, (err) => errs.take(err));
    if (r) {
      unsaved.allowNext();
      onSaved(r.Id);
    }
  };

  const parentOptions = [{ value: 0, label: 'FREE (no parent)' }, ...parents.filter((p) => p.Id !== server?.Id).map((p) => ({ value: p.Id, label: p.name }))];
  if (server && server.cod && !parents.some((p) => p.Id === server.cod)) parentOptions.push({ value: server.cod, label: `#${server.cod} (unknown: FREE)` });

  return (
    <AppModal
      show={!!target}
      onHide={requestClose}
      staticBackdrop
      title={server ? `Edit server ${server.name}` : 'New server'}
      footer={
        <>
          <Button variant="secondary" size="sm" onClick={requestClose} disabled={busy}>
            Cencel
          </Button>
          <Button variant="primary" size="sm" type="submit" form="srv-edit-form" disabled={busy}>
            {busy && <Spinner animation="border" size="sm" className="me-1" />}Save
          </Button>
        </>
      }
    >
      <Form id="srv-edit-form" aria-label="Server" onSubmit={submit} noValidate className="app-srv-form">
        <Row className="g-2">
          <Col sm={6}><TextField name="name" label="Name" required value={f.name} onChange={(v) => set('name', v)} error={errs.of('name')} autoFocus maxLength={128} /></Col>
          <Col sm={3}><SelectField name="type" label="Type" value={f.type} onChange={(v) => set('type', v)} options={TYPE_OPTIONS} error={errs.of('type')} /></Col>
          <Col sm={3}>
            {type !== 0 ? (
              <SelectField name="cod" label="Parent" value={f.cod} onChange={(v) => set('cod', v)} options={parentOptions} error={errs.of('cod')} />
            ) : (
              <Form.Text className="d-block mt-4 text-secondary">A type-0 server is a parent.</Form.Text>
            )}
          </Col>
          <Col sm={6}><TextField name="ip" label="IP" value={f.ip} onChange={(v) => set('ip', v)} error={errs.of('ip')} placeholder="203.0.113.10" /></Col>
          <Col sm={6}><TextField name="ip_local" label="Local IP" value={f.ip_local} onChange={(v) => set('ip_local', v)} error={errs.of('ip_local')} placeholder="10.0.0.10" /></Col>
          <Col sm={6}><TextField name="sshlogin" label="SSH login" value={f.sshlogin} onChange={(v) => set('sshlogin', v)} error={errs.of('sshlogin')} autoComplete="off" /></Col>
          <Col sm={6}><TextField name="sshport" label="SSH port" type="number" min={1} max={65535} value={f.sshport} onChange={(v) => set('sshport', v)} error={errs.of('sshport')} /></Col>
        </Row>

        <fieldset className="border rounded p-2 mb-2">
          <legend className="float-none w-auto px-1 fs-6 mb-0">SSH access</legend>
          <Row className="g-2">
            <Col sm={6}>
              <TextField
                name="sshpass" type="password" autoComplete="new-password"
                label={<>SSH password {server && (server.has_sshpass ? <Badge bg="success" className="ms-1" data-testid="sshpass-set">set</Badge> : <Badge bg="secondary" className="ms-1">not set</Badge>)}</>}
                placeholder={server?.has_sshpass ? 'leave empty to keep' : ''}
                value={f.sshpass} onChange={(v) => set('sshpass', v)} error={errs.of('sshpass')} disabled={f.sshpass_clear}
              />
              {server?.has_sshpass && <SwitchField name="sshpass_clear" label="Remove the stored password" checked={f.sshpass_clear} onChange={(v) => set('sshpass_clear', v)} />}
            </Col>
            <Col sm={6}>
              <TextField
                name="private_key" rows={3}
                label={<>Private key {server && (server.has_private_key ? <Badge bg="success" className="ms-1">set</Badge> : <Badge bg="secondary" className="ms-1">not set</Badge>)}</>}
                placeholder={server?.has_private_key ? 'leave empty to keep' : '-----BEGIN OPENSSH PRIVATE KEY-----'}
                value={f.private_key} onChange={(v) => set('private_key', v)} error={errs.of('private_key')} disabled={f.private_key_clear}
              />
              {f.private_key.trim() && <TextField name="private_key_pass" type="password" label="Key passphrase" autoComplete="off" value={f.private_key_pass} onChange={(v) => set('private_key_pass', v)} error={errs.of('private_key_pass')} />}
              {server?.has_private_key && <SwitchField name="private_key_clear" label="Remove the stored key" checked={f.private_key_clear} onChange={(v) => set('private_key_clear', v)} />}
            </Col>
          </Row>
          <Form.Text className="text-secondary">Stored encrypted; never shown again. Password and key may both be set: both are tried.</Form.Text>
        </fieldset>

        <Row className="g-2 align-items-end">
          <Col sm={3}><SwitchField name="status" label="On" checked={f.status} onChange={(v) => set('status', v)} className="mb-2" /></Col>
          {type === WEB_TYPE && <Col sm={3}><SwitchField name="balance_web" label="Balancer" checked={f.balance_web} onChange={(v) => set('balance_web', v)} className="mb-2" /></Col>}
          {type === PROXY_TYPE && <Col sm={4}><SwitchField name="read_nginx_log_firewall" label="Firewall log" checked={f.read_nginx_log_firewall} onChange={(v) => set('read_nginx_log_firewall', v)} className="mb-2" /></Col>}
          {type === DATA_TYPE && <Col sm={3}><TextField name="number_in_nginx" label="Number in nginx" type="number" min={0} value={f.number_in_nginx} onChange={(v) => set('number_in_nginx', v)} error={errs.of('number_in_nginx')} /></Col>}
        </Row>
        {type === PROXY_TYPE && (
          <TextField
            name="nginx_log" label="Nginx log" value={f.nginx_log} onChange={(v) => set('nginx_log', v)} error={errs.of('nginx_log')}
            help="The access log the firewall worker reads on this proxy (when Firewall log is on)." placeholder={DEFAULT_NGINX_LOG} maxLength={255}
          />
        )}
        {(type === WEB_CLUSTER_TYPE || AGENT_NODE_TYPES.includes(type)) && (
          <Row className="g-2">
            <Col sm={8}>
              <TextField
                name="cluster_key" type="password" autoComplete="off"
                label={<>Cluster key {server && (server.has_cluster_key ? <Badge bg="success" className="ms-1">set</Badge> : <Badge bg="secondary" className="ms-1">not set</Badge>)}</>}
                placeholder={server?.has_cluster_key ? 'leave empty to keep' : ''}
                value={f.cluster_key} onChange={(v) => set('cluster_key', v)} error={errs.of('cluster_key')} disabled={f.cluster_key_clear}
              />
            </Col>
            {server?.has_cluster_key && <Col sm={4} className="pt-4"><SwitchField name="cluster_key_clear" label="Remove" checked={f.cluster_key_clear} onChange={(v) => set('cluster_key_clear', v)} /></Col>}
            {type !== WEB_CLUSTER_TYPE && <Col xs={12}><Form.Text className="text-secondary">The node agent's key; empty: the key of its WEB cluster (the WEB cluster server under the same parent).</Form.Text></Col>}
          </Row>
        )}
        {AGENT_NODE_TYPES.includes(type) && (
          <TextField
            name="agent_url" label="Agent URL" value={f.agent_url} onChange={(v) => set('agent_url', v)} error={errs.of('agent_url')} maxLength={255}
            placeholder="http://10.0.0.5:3010" help="The node agent's base URL (logs, Deploy configs); empty: the local IP (else the IP) and the configured agent port."
          />
        )}
        <Row className="g-2">
          <Col sm={4}><SelectField name="balance_db" label="DB balance" value={f.balance_db} onChange={(v) => set('balance_db', v)} options={BALANCE_OPTIONS} error={errs.of('balance_db')} /></Col>
          <Col sm={4}><SelectField name="balance_cache" label="Cache balance" value={f.balance_cache} onChange={(v) => set('balance_cache', v)} options={BALANCE_OPTIONS} error={errs.of('balance_cache')} /></Col>
          <Col sm={4}><SelectField name="balance_memcache" label="MemCache balance" value={f.balance_memcache} onChange={(v) => set('balance_memcache', v)} options={BALANCE_OPTIONS} error={errs.of('balance_memcache')} /></Col>
        </Row>
        <button type="submit" hidden />
      </Form>
    </AppModal>
  );
}
