import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { SEARCH_MSG, SPHINX_ROTATE_TIMEOUT_S, type SphinxConfResult } from '../../../contracts/search-nodes.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { notify } from '../../kit/notify.js';
import './api.js';

/**
 * 'Rebuild search config' (001 §2 "A button rebuilds the search config file"): asks first, then
 * sphinx_control.createSphinxConf; the answer of each Search server in a dialog.
 */
export function SphinxConfButton() {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<SphinxConfResult | null>(null);
  const run = async () => {
    setBusy(true);
    try {
      const r = await rpc('sphinx_control.createSphinxConf', {}, { timeoutMs: SPHINX_ROTATE_TIMEOUT_S * 1000 });
      setResult(r);
      if (!r.nodes.length) { notify.error(r.message ?? SEARCH_MSG.noSearchServers); return; }
      const failed = r.nodes.filter((n) => !n.ok).length;
      (failed ? notify.error : notify.success)(failed ? `Search config: ${failed} of ${r.nodes.length} server(s) failed` : `Search config written to ${r.nodes.length} server(s)`);
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <ConfirmButton
        label={busy ? 'Writing…' : SEARCH_MSG.rebuildConf} variant="outline-primary" confirmVariant="primary" text={SEARCH_MSG.confirmConf}
        title={SEARCH_MSG.rebuildConf} disabled={busy} onConfirm={run}
      />
      <AppModal show={result !== null} onHide={() => setResult(null)} title={SEARCH_MSG.rebuildConf} footer={<Button variant="secondary" onClick={() => setResult(null)}>Close</Button>}>
        {result && (
          <div data-testid="sphinx-conf-result">
            <p className="small text-secondary mb-2">
              {result.path} · index files under {result.data_dir} · {result.sources} source(s)
            </p>
            {result.message && <p className="text-danger mb-2">{result.message}</p>}
            <Table size="sm" className="mb-0">
              <thead><tr><th>Server</th><th>Result</th></tr></thead>
              <tbody>
                {result.nodes.map((n) => (
                  <tr key={n.Id}>
                    <td>{n.node}</td>
                    <td><Badge bg={n.ok ? 'success' : 'danger'} className="me-2">{n.ok ? 'ok' : 'failed'}</Badge><span className="small">{n.message}</span></td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </div>
        )}
      </AppModal>
    </>
  );
}
