import { useEffect, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { COMPILATION_AUTO_COUNT, COMPILATION_DAYS_MAX, COMPILATION_DAYS_MIN, COMPILATION_NEW_MAX_VIEWS, daysError, type CompilationBook } from '../../../contracts/compilations.js';
import { errorText } from '../../api/http.js';
import { rest } from '../../api/rest.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import './api.js';

export interface AutoCompilationDialogProps {
  show: boolean;
  onHide: () => void;
  /** The books found: they replace the item list for review (nothing is saved until Save). */
  onResult: (books: CompilationBook[]) => void;
}

/**
 * The auto compilation (001 §2, §5): a range of 1 to 90 days (outside it the field shows 'Min 1 and
 * max 90 days' and Run is hidden), mode new or top from the input stream's statistics, an optional
 * category. An empty result shows the Russian hint; a result fills the list.
 */
export function AutoCompilationDialog({ show, onHide, onResult }: AutoCompilationDialogProps) {
  const [days, setDays] = useState('7');
  const [mode, setMode] = useState<'new' | 'top'>('top');
  const [cat, setCat] = useState('');
  const [cats, setCats] = useState<{ Id_cat: number; cat_title: string }[]>([]);
  const [empty, setEmpty] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!show) return;
    setEmpty('');
    setError('');
    rest.get<{ Id_cat: number; cat_title: string }[]>('/cat/list', { select: 'Id_cat,cat_title', limit: 'false' }).then(setCats, () => setCats([]));
  }, [show]);
  const bad = daysError(days);

  const runAuto = async () => {
    setBusy(true);
    setEmpty('');
    setError('');
    try {
      const r = await rpc('compilation.auto', { days: Number(days), mode, ...(cat ? { Id_cat: Number(cat) } : {}) });
      if (!r.list.length) setEmpty(r.message);
      else onResult(r.list);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AppModal show={show} onHide={onHide} title="Auto compilation" footer={<>
      <Button variant="secondary" onClick={onHide}>Close</Button>
      {!bad && <Button onClick={runAuto} disabled={busy}>{busy && <Spinner size="sm" className="me-1" />}Run</Button>}
    </>}>
      <Form.Group className="mb-3" controlId="auto-days">
        <Form.Label className="small fw-semibold mb-1">Range, days</Form.Label>
        <Form.Control name="days" type="number" min={COMPILATION_DAYS_MIN} max={COMPILATION_DAYS_MAX} value={days} isInvalid={!!bad}
          onChange={(e) => { setDays(e.currentTarget.value); setEmpty(''); }} />
        <Form.Control.Feedback type="invalid">{bad}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group className="mb-3">
        <Form.Label className="small fw-semibold mb-1 d-block">Mode</Form.Label>
        <Form.Check inline type="radio" id="auto-mode-new" name="auto-mode" label="new" checked={mode === 'new'} onChange={() => { setMode('new'); setEmpty(''); }} />
        <Form.Check inline type="radio" id="auto-mode-top" name="auto-mode" label="top" checked={mode === 'top'} onChange={() => { setMode('top'); setEmpty(''); }} />
        <Form.Text className="d-block text-secondary">
          {mode === 'new'
            ? `${COMPILATION_AUTO_COUNT} newest books with views under ${COMPILATION_NEW_MAX_VIEWS}, read in the range.`
            : `Top ${COMPILATION_AUTO_COUNT} books by reads in the range (input stream).`}
        </Form.Text>
      </Form.Group>
      <Form.Group className="mb-2" controlId="auto-cat">
        <Form.Label className="small fw-semibold mb-1">Category</Form.Label>
        <Form.Select name="Id_cat" value={cat} onChange={(e) => { setCat(e.currentTarget.value); setEmpty(''); }}>
          <option value="">Any category</option>
          {cats.map((c) => <option key={c.Id_cat} value={c.Id_cat}>{c.cat_title}</option>)}
        </Form.Select>
      </Form.Group>
      {empty && <Alert variant="info" className="mb-0 mt-3" data-testid="auto-empty">{empty}</Alert>}
      {error && <Alert variant="danger" className="mb-0 mt-3">{error}</Alert>}
    </AppModal>
  );
}
