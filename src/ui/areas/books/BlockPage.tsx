import { Fragment, useMemo, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import { BLOCK_RANGES, CONTENT_MSG, findLinks, type BlockVariant, type FoundLink, type ItemView } from '../../../contracts/content.js';
import { errorText } from '../../api/http.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { SelectField, TextField } from '../../kit/fields.js';
import { fmtNumber, plural } from '../../kit/format.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import { ErrorAlert } from '../../kit/states.js';
import './api.js';
import './books.css';
import { StatusBadge } from './BookListPage.js';

/** The mail body with each found link marked (React text nodes: nothing of the mail is parsed as HTML). */
function Highlighted({ text, links }: { text: string; links: FoundLink[] }) {
  const parts: React.ReactNode[] = [];
  let at = 0;
  links.forEach((l, i) => {
    if (l.start > at) parts.push(<Fragment key={`t${i}`}>{text.slice(at, l.start)}</Fragment>);
    parts.push(<mark key={`l${i}`} className="book-link" data-type={l.type} data-kind={l.kind} title={`${l.kind}: ${l.id}`}>{text.slice(l.start, l.end)}</mark>);
    at = l.end;
  });
  if (at < text.length) parts.push(<Fragment key="end">{text.slice(at)}</Fragment>);
  return <div className="book-mail-preview border rounded p-2 bg-body-tertiary" data-testid="mail-preview">{parts}</div>;
}

/**
 * /book/block (author/read/view links) and /book/block_git (owner/book/view links), 001 §2, §5, §8:
 * Range, the mail body with its links highlighted as typed (patterns: content.linkPatterns, cluster
 * config rows of type content_link_pattern), 'Get items information' with the results table and the
 * similar offers beneath each book, then Block behind a confirm: 'Books: {count}' / 'Author: {count}'
 * (error style when nothing changed). Non-numeric ids are skipped. Each block is recorded with the
 * range and the mail body (shown on the book's page).
 */
export function BlockScreen({ variant }: { variant: BlockVariant }) {
  const patterns = useRpc('content.linkPatterns', { variant });
  const [range, setRange] = useState(String(BLOCK_RANGES[0].value));
  const [mail, setMail] = useState('');
  const [items, setItems] = useState<ItemView[] | null>(null);
  const [loading, setLoading] = useState(false);
  const [mailError, setMailError] = useState<string | undefined>();
  // A pasted mail body is work: leaving the screen with it asks first, until a Block has used it.
  const [usedMail, setUsedMail] = useState('');
  useUnsavedPrompt(mail.trim() !== '' && mail !== usedMail);
  const links = useMemo(() => findLinks(mail, patterns.data ?? []), [mail, patterns.data]);
  const bookIds = [...new Set(links.filter((l) => l.type === 'book' && /^\d+$/.test(l.id)).map((l) => l.id))];
  const authorIds = [...new Set(links.filter((l) => l.type === 'author' && /^\d+$/.test(l.id)).map((l) => l.id))];
  const skipped = links.filter((l) => !/^\d+$/.test(l.id)).length;

  const getItems = async () => {
    if (!mail.trim()) return setMailError(CONTENT_MSG.mailBodyRequired);
    setLoading(true);
    try {
      const r = await rpc('item.getItemsByItem', { variant, mail_body: mail }, { timeoutMs: 30_000 });
      setItems(r.items);
    } catch (e) {
      notify.error(errorText(e));
    } finally {
      setLoading(false);
    }
  };

  const block = async () => {
    const args = { range: Number(range), mail_body: mail };
    const bookMethod = variant === 'git' ? 'book.blocked_id' : 'book.blocked';
    const authorMethod = variant === 'git' ? 'author.blocked_id' : 'author.blocked';
    try {
      if (bookIds.length) {
        const r = await rpc(bookMethod, { ...args, ids: bookIds });
        if (r.affectedRows > 0) notify.success(CONTENT_MSG.blockedBooks(r.affectedRows));
        else notify.error(CONTENT_MSG.blockedBooks(0));
      }
      if (authorIds.length) {
        const r = await rpc(authorMethod, { ...args, ids: authorIds });
        if (r.affectedRows > 0) notify.success(CONTENT_MSG.blockedAuthors(r.affectedRows));
        else notify.error(CONTENT_MSG.blockedAuthors(0));
      }
      setUsedMail(args.mail_body);
      if (items) await getItems();
    } catch (e) {
      notify.error(errorText(e));
    }
  };

  return (
    <>
      <PageTitle title={variant === 'git' ? 'Block git' : 'Block book'} />
      {patterns.error && <ErrorAlert error={patterns.error} onRetry={() => void patterns.reload()} />}
      <Row className="g-3">
        <Col lg={6}>
          <SelectField name="range" label="Range" value={range} onChange={setRange} options={BLOCK_RANGES.map((r) => ({ value: String(r.value), label: r.label }))} />
          <TextField name="mail_body" label="Mail body" rows={8} required value={mail} error={mailError}
            onChange={(v) => { setMail(v); setMailError(undefined); }}
            help={variant === 'git' ? 'owner, book and view links are found' : 'author, read and view links are found'} />
          <div className="d-flex flex-wrap gap-2 align-items-center">
            <Button size="sm" onClick={() => void getItems()} disabled={loading}>
              {loading && <Spinner animation="border" size="sm" className="me-1" />}Get items information
            </Button>
            <ConfirmButton label="Block" disabled={!bookIds.length && !authorIds.length}
              text={<>Block {bookIds.length ? plural(bookIds.length, 'book') : ''}{bookIds.length && authorIds.length ? ' and ' : ''}{authorIds.length ? plural(authorIds.length, 'author') : ''} with range “{BLOCK_RANGES.find((r) => String(r.value) === range)?.label}”?</>}
              onConfirm={block} />
          </div>
        </Col>
        <Col lg={6}>
          <div className="small fw-semibold mb-1">
            Links found: <span data-testid="links-count">{links.length}</span>
            {skipped > 0 && <span className="text-secondary fw-normal"> ({skipped} with a non-numeric id, skipped)</span>}
          </div>
          {mail ? <Highlighted text={mail} links={links} /> : <div className="text-secondary small">Paste the mail body: its links show here, highlighted.</div>}
        </Col>
      </Row>
      {items && (
        <Card className="mt-3">
          <Card.Body>
            {items.length === 0 ? <Alert variant="secondary" className="mb-0">No links with a numeric id in the mail body</Alert> : (
              <Table size="sm" responsive aria-label="Items" className="mb-0">
                <thead><tr><th>Type</th><th>Id</th><th>View</th><th>Public</th><th>Title</th></tr></thead>
                <tbody>
                  {items.map((it) => (
                    <Fragment key={`${it.type}-${it.Id}`}>
                      <tr data-testid={`item-${it.type}-${it.Id}`}>
                        <td>{it.type}</td>
                        <td>{it.type === 'book' ? <Link to={`/book/edit/open/${it.Id}-1`}>{it.Id}</Link> : it.Id}</td>
                        <td>{it.found ? fmtNumber(it.views) : ''}</td>
                        <td>{it.found ? <StatusBadge value={it.public} /> : <Badge bg="secondary">not found</Badge>}</td>
                        <td>{it.title}</td>
                      </tr>
                      {it.offers_skipped && (
                        <tr className="book-offers"><td /><td colSpan={4} className="text-secondary">Similar offers may be incomplete: a search for this title took too long (open the book to search)</td></tr>
                      )}
                      {it.offers.length > 0 && (
                        <tr className="book-offers">
                          <td />
                          <td colSpan={4}>
                            <span className="text-secondary me-1">Similar:</span>
                            {it.offers.map((o, i) => (
                              <span key={o.external_id} data-testid="offer">
                                {i > 0 && ', '}
                                <Link to={`/book/edit/open/${o.external_id}-1`}>{o.external_id}</Link> {o.title} <StatusBadge value={o.public} />
                              </span>
                            ))}
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  ))}
                </tbody>
              </Table>
            )}
          </Card.Body>
        </Card>
      )}
    </>
  );
}

export default function BlockPage() { return <BlockScreen variant="block" />; }
