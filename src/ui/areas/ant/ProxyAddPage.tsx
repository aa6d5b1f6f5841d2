import { useMemo, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { errorText } from '../../api/http.js';
import { rest } from '../../api/rest.js';
import { plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { DEFAULT_PROXY_PATTERN, PROXY_PATTERNS, parseProxyBatch, proxyWaitMessage, type ProxyAddResult, type ProxyPattern } from './model.js';

type Outcome = { kind: 'idle' } | { kind: 'waiting'; n: number } | { kind: 'ok'; text: string } | { kind: 'error'; text: string };

/**
 * /proxy/add (001 §2 "Proxy import", §5 "Proxy batch", §8): one proxy a line in the chosen pattern;
 * a line without as many colon-separated parts as the pattern is dropped (the screen says how many and
 * shows them); 'Wait insert N row' while POST /api/proxy/add runs, then the answer's message.
 */
export default function ProxyAddPage() {
  const [text, setText] = useState('');
  const [pattern, setPattern] = useState<ProxyPattern>(DEFAULT_PROXY_PATTERN);
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const parsed = useMemo(() => parseProxyBatch(text, pattern), [text, pattern]);
  // The batch is unsaved until its insert answered (a successful insert leaves nothing to lose).
  useUnsavedPrompt(text.trim() !== '' && outcome.kind !== 'ok');

  const submit = async () => {
    if (!parsed.rows.length) return;
    setOutcome({ kind: 'waiting', n: parsed.rows.length });
    try {
      const r = await rest.post<ProxyAddResult>('/proxy/add', { data: parsed.rows });
      setOutcome({ kind: 'ok', text: r.message });
      setText('');
    } catch (e) {
      setOutcome({ kind: 'error', text: errorText(e) });
    }
  };

  return (
    <>
      <PageTitle title="Proxy add" />
      <Card body>
        <Form onSubmit={(e) => { e.preventDefault(); void submit(); }} aria-label="Proxy add">
          <Form.Group className="mb-2" controlId="proxy-pattern">
            <Form.Label className="small fw-semibold mb-1">Pattern</Form.Label>
            <Form.Select value={pattern} onChange={(e) => setPattern(e.currentTarget.value as ProxyPattern)} style={{ maxWidth: 320 }}>
              {PROXY_PATTERNS.map((p) => <option key={p} value={p}>{p}</option>)}
            </Form.Select>
          </Form.Group>
          <Form.Group className="mb-2" controlId="proxy-batch">
            <Form.Label className="small fw-semibold mb-1">Proxies, one a line</Form.Label>
            <Form.Control as="textarea" name="batch" rows={10} className="font-monospace" value={text} placeholder={pattern}
              onChange={(e) => { setText(e.currentTarget.value); if (outcome.kind !== 'waiting') setOutcome({ kind: 'idle' }); }} />
          </Form.Group>
          <div className="small mb-2" data-testid="proxy-parse">
            <span data-testid="proxy-valid-count">{plural(parsed.rows.length, 'row')} to insert</span>
            {parsed.dropped.length > 0 && (
              <div className="text-warning-emphasis mt-1" data-testid="proxy-dropped">
                <div>{plural(parsed.dropped.length, 'line')} dropped (the pattern {pattern} has {pattern.split(':').length} parts):</div>
                <ul className="mb-0 small bg-light p-1 list-unstyled font-monospace" style={{ maxHeight: 150, overflow: 'auto' }}>
                  {parsed.dropped.map((d) => <li key={d.line}>line {d.line}: {d.text} <span className="text-secondary">({d.reason})</span></li>)}
                </ul>
              </div>
            )}
          </div>
          <Button type="submit" disabled={!parsed.rows.length || outcome.kind === 'waiting'}>Add</Button>
        </Form>
        {outcome.kind === 'waiting' && <Alert variant="info" className="mt-3 mb-0 py-2" data-testid="proxy-outcome"><Spinner animation="border" size="sm" className="me-2" />{proxyWaitMessage(outcome.n)}</Alert>}
        {outcome.kind === 'ok' && <Alert variant="success" className="mt-3 mb-0 py-2" data-testid="proxy-outcome">{outcome.text}</Alert>}
        {outcome.kind === 'error' && <Alert variant="danger" className="mt-3 mb-0 py-2" data-testid="proxy-outcome">{outcome.text}</Alert>}
      </Card>
    </>
  );
}
