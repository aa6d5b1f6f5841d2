import { useState, type FormEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import type { StreamSiteToken } from '../../../contracts/input-stream.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { fmtDateTime, fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import './api.js';

/** /input_stream/sites (admins): the reporting sites, their tokens (shown once, on creation or rotation), activation and removal. */
export default function StreamSitesPage() {
  const { data, error, loading, reload } = useRpc('stream.sites', undefined);
  const { run, busy } = useAction();
  const [name, setName] = useState('');
  const [shown, setShown] = useState<StreamSiteToken | null>(null);
  // A typed site name not yet added asks before the page is left.
  useUnsavedPrompt(name.trim() !== '');
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const r = await run(() => rpc('stream.siteSave', { name: name.trim() }), 'Insert ok!');
    if (r && 'token' in r) { setShown(r); setName(''); await reload(); }
  };
  const rotate = async (Id: number) => {
    const r = await run(() => rpc('stream.siteRotate', { Id }), 'Update ok!');
    if (r) { setShown(r); await reload(); }
  };
  return (
    <>
      <PageTitle title="Input stream: sites" actions={<Link className="btn btn-sm btn-outline-secondary" to="/input_stream">Back</Link>} />
      {shown && (
        <Alert variant="warning" dismissible onClose={() => setShown(null)}>
          Token of <b>{shown.name}</b> (shown this once; the site sends it in the X-Site-Token header):
          <pre className="mb-0 mt-1 user-select-all" data-testid="site-token">{shown.token}</pre>
        </Alert>
      )}
      <Form className="d-flex gap-2 mb-3" onSubmit={create}>
        <Form.Control size="sm" style={{ maxWidth: 300 }} placeholder="Site name (books.example)" aria-label="Site name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Button size="sm" type="submit" disabled={busy || !name.trim()}>Add site</Button>
      </Form>
      <ErrorAlert error={error} onRetry={reload} />
      {loading && !data && <Loading />}
      {data && data.length === 0 && <EmptyState text="No site reports yet: add one to get its token" />}
      {data && data.length > 0 && (
        <Table size="sm" hover className="align-middle">
          <thead className="table-light"><tr><th>Id</th><th>Name</th><th>Active</th><th className="text-end">Batches</th><th className="text-end">Events</th><th>Last seen</th><th /></tr></thead>
          <tbody>
            {data.map((s) => (
              <tr key={s.Id}>
                <td>{s.Id}</td>
                <td>{s.name}</td>
                <td><Form.Check type="switch" aria-label={`Active ${s.name}`} checked={s.active === 1} disabled={busy} onChange={async (e) => { const active = e.currentTarget.checked ? 1 : 0; await run(() => rpc('stream.siteSave', { Id: s.Id, active }), 'Update ok!'); await reload(); }} /></td>
                <td className="text-end">{fmtNumber(s.batches)}</td>
                <td className="text-end">{fmtNumber(s.events)}</td>
                <td>{s.last_seen_at ? fmtDateTime(s.last_seen_at) : '—'}</td>
                <td className="text-end text-nowrap">
                  <ConfirmButton label="New token" variant="outline-secondary" confirmVariant="primary" text={`The current token of ${s.name} stops working at once. Make a new one?`} onConfirm={() => rotate(s.Id)} />{' '}
                  <ConfirmButton text={`Remove ${s.name}? Its token stops working; counted statistics stay.`} onConfirm={async () => { await run(() => rpc('stream.siteRemove', { Id: s.Id }), 'Delete ok!'); await reload(); }} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
