import { useEffect, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { COMPILATION_MSG, parseItemIds, type CompilationBook } from '../../../contracts/compilations.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { TextField } from '../../kit/fields.js';
import './api.js';

export interface ItemIdsDialogProps {
  show: boolean;
  /** The ids of the list now (the text starts with them, one per line). */
  ids: number[];
  onHide: () => void;
  /** The new list, in the order typed (books looked up). */
  onApply: (books: CompilationBook[]) => void;
}

/**
 * The compilation item-id editor (001 §2, §5 'Items id' required): ids one per line, or separated by
 * commas or spaces. Unknown ids and text that is not an id are listed, never dropped in silence: Apply
 * refuses them; 'Apply without them' takes the books found.
 */
export function ItemIdsDialog({ show, ids, onHide, onApply }: ItemIdsDialogProps) {
  const [textValue, setText] = useState('');
  const [error, setError] = useState('');
  const [problem, setProblem] = useState<{ unknown: number[]; bad: string[]; found: CompilationBook[] } | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (show) { setText(ids.join('\n')); setError(''); setProblem(null); }
  }, [show]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = async (force: boolean) => {
    if (force && problem) { onApply(problem.found); return; }
    const { ids: parsed, bad } = parseItemIds(textValue);
    if (!parsed.length && !bad.length) { setError(`${COMPILATION_MSG.itemsId} is required`); return; }
    setBusy(true);
    try {
      const r = parsed.length ? await rpc('compilation.items', { ids: parsed }) : { found: [], unknown: [] };
      if (r.unknown.length || bad.length) setProblem({ unknown: r.unknown, bad, found: r.found });
      else onApply(r.found);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AppModal show={show} onHide={onHide} title="Items id" staticBackdrop footer={<>
      <Button variant="secondary" onClick={onHide}>Close</Button>
      {problem && problem.found.length > 0 && <Button variant="outline-primary" onClick={() => apply(true)}>Apply without them</Button>}
      <Button onClick={() => apply(false)} disabled={busy}>{busy && <Spinner size="sm" className="me-1" />}Apply</Button>
    </>}>
      <TextField name="items_id" label={COMPILATION_MSG.itemsId} required rows={10} value={textValue} error={error}
        help="One id per line, or separated by commas or spaces; the order is the list's order."
        onChange={(v) => { setText(v); setError(''); setProblem(null); }} />
      {problem && (
        <Alert variant="warning" className="mb-0 small" data-testid="items-unknown">
          {problem.unknown.length > 0 && <div>Unknown ids: {problem.unknown.join(', ')}</div>}
          {problem.bad.length > 0 && <div>Not ids: {problem.bad.join(', ')}</div>}
          <div>{problem.found.length} of the ids are books.</div>
        </Alert>
      )}
    </AppModal>
  );
}
