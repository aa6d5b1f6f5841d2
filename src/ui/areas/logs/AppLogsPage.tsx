import { useEffect, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { LOG_LEVELS, LOG_MSG } from '../../../contracts/logs.js';
import { useRpc } from '../../api/hooks.js';
import { useQueryParam } from '../../kit/pagination.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import './api.js';

const LEVEL_BG: Record<string, string> = { error: 'danger', warn: 'warning', info: 'info', debug: 'secondary' };

/**
 * /logs/apps (000 §2): application logs (000 §3 Log entry: level, ip, date, data, url, ref, post) read
 * from the JSON-line files on the nodes, newest first; filters `level` and `q` in the URL.
 */
export default function AppLogsPage() {
  const [level, setLevel] = useQueryParam('level');
  const [q, setQ] = useQueryParam('q');
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const data = useRpc('logs.getAppLogs', { ...(level ? { level } : {}), ...(q ? { q } : {}) });
  const entries = data.data?.entries ?? [];
  return (
    <div className="app-logs-apps">
      <PageTitle
        title="App logs"
        actions={
          <Form className="d-flex gap-2" onSubmit={(e) => { e.preventDefault(); setQ(text.trim()); }}>
            <Form.Select size="sm" value={level} onChange={(e) => setLevel(e.currentTarget.value)} aria-label="Level" style={{ width: 130 }}>
              <option value="">All levels</option>
              {LOG_LEVELS.map((l) => <option key={l} value={l}>{l}</option>)}
            </Form.Select>
            <Form.Control size="sm" placeholder="Search" value={text} onChange={(e) => setText(e.currentTarget.value)} aria-label="Search text" style={{ width: 200 }} />
            <Button size="sm" type="submit" variant="outline-primary">Find</Button>
            <Button size="sm" variant="outline-secondary" onClick={() => void data.reload()}>{LOG_MSG.refresh}</Button>
          </Form>
        }
      />
      <ErrorAlert error={data.error} onRetry={() => void data.reload()} />
      {data.data?.errors.map((e) => <div key={e.Id} className="small text-danger">{e.name}: {e.error}</div>)}
      {data.loading && <Loading text={LOG_MSG.wait} />}
      {data.data && !entries.length && <EmptyState title={LOG_MSG.empty} text="No application log entry (JSON lines in *.jsonl, *.ndjson or *.json.log files on the nodes)" />}
      {entries.length > 0 && (
        <Table size="sm" striped responsive className="small">
          <thead><tr><th>date</th><th>level</th><th>node</th><th>ip</th><th>url</th><th>data</th><th>ref</th><th>post</th></tr></thead>
          <tbody>
            {entries.map((e, i) => (
              <tr key={i}>
                <td className="text-nowrap">{e.date}</td>
                <td><Badge bg={LEVEL_BG[e.level] ?? 'light'} text={e.level === 'warn' || !LEVEL_BG[e.level] ? 'dark' : undefined}>{e.level || '--'}</Badge></td>
                <td className="text-nowrap">{e.node}</td>
                <td>{e.ip}</td>
                <td className="text-break">{e.url}</td>
                <td className="text-break">{e.data}</td>
                <td className="text-break">{e.ref}</td>
                <td className="text-break">{e.post}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}
