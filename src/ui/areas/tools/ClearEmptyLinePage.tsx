import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { errorText } from '../../api/http.js';
import { plural } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { clearEmptyLines, copyText } from './clearLines.js';

/**
 * /service/clear_empty_line (001 §2): a textarea; Clear trims each line and drops the empty ones (in
 * place), Copy puts the text on the clipboard. Nothing leaves the browser.
 */
export default function ClearEmptyLinePage() {
  const [text, setText] = useState('');
  const lines = text === '' ? 0 : text.split(/\r\n|\r|\n/).length;
  const clear = () => setText(clearEmptyLines(text));
  const copy = async () => {
    try {
      await copyText(text);
      notify.success('Copied');
    } catch (e) {
      notify.error(errorText(e));
    }
  };
  return (
    <>
      <PageTitle title="Clear empty lines" />
      <Form.Group className="mb-2" controlId="clear-empty-line-text">
        <Form.Label className="small text-secondary">Text: every line is trimmed and the empty ones are dropped</Form.Label>
        <Form.Control as="textarea" name="text" rows={16} className="font-monospace" value={text} onChange={(e) => setText(e.currentTarget.value)} spellCheck={false} />
      </Form.Group>
      <div className="d-flex flex-wrap align-items-center gap-2">
        <Button size="sm" onClick={clear} disabled={!text}>Clear empty lines</Button>
        <Button size="sm" variant="outline-primary" onClick={() => void copy()} disabled={!text}>Copy</Button>
        <span className="small text-secondary ms-auto" data-testid="line-count">{plural(lines, 'line')}</span>
      </div>
    </>
  );
}
