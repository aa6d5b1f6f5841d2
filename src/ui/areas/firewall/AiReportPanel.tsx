/**
 * The AI report of a host (000 §7 POST /py/ai/report through firewall.getAiReport): 'AI report' asks
 * for it and shows `res` (text as it is, anything else as JSON), the adapter's error, or that
 * AI_REPORT_URL is not configured.
 */
import { useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import type { AiReport } from '../../../contracts/firewall-train.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { LONG_CALL_MS } from './api.js';
import './train-api.js';

export const AI_NOT_CONFIGURED = 'AI report is not configured (AI_REPORT_URL)';

const asText = (res: unknown) => (typeof res === 'string' ? res : JSON.stringify(res, null, 2));

export function AiReportPanel({ host }: { host: string }) {
  const [report, setReport] = useState<AiReport | null>(null);
  const [failed, setFailed] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => { setReport(null); setFailed(''); }, [host]);

  const ask = async () => {
    setBusy(true);
    setFailed('');
    try {
      setReport(await rpc('firewall.getAiReport', { host }, { timeoutMs: LONG_CALL_MS }));
    } catch (e) {
      setReport(null);
      setFailed(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const error = failed || report?.error;
  return (
    <div className="app-card mb-3" data-testid="ai-report">
      <div className="d-flex align-items-center gap-2">
        <Button size="sm" variant="outline-primary" onClick={() => void ask()} disabled={busy}>
          {busy && <Spinner animation="border" size="sm" className="me-1" />}AI report
        </Button>
        {report && !error && report.configured && <span className="small text-secondary">{host}</span>}
        {report && (
          <Button size="sm" variant="link" className="ms-auto p-0" onClick={() => setReport(null)}>Hide</Button>
        )}
      </div>
      {report && !report.configured && <div className="small text-secondary mt-2" data-state="not-configured">{AI_NOT_CONFIGURED}</div>}
      {error && <div className="alert alert-danger py-2 small mt-2 mb-0" role="alert">{error}</div>}
      {report?.configured && !report.error && report.res !== undefined && (
        <pre className="app-mono bg-light border rounded p-2 mt-2 mb-0 small app-fw-whois-text" data-state="res">{asText(report.res)}</pre>
      )}
    </div>
  );
}
