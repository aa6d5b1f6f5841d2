import { useEffect, useMemo, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { SONNIK_POSTS_PAGE, SonnikUpdateCatArgs, type SonnikCatView, type SonnikPostView } from '../../../contracts/sonnik.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { TextField, useFieldErrors, validate } from '../../kit/fields.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, type Column } from '../../kit/pagination.js';
import { RichText } from '../../kit/RichText.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import './api.js';
import './sonnik.css';

const FIELDS = ['letter', 'uri', 'name', 'body'] as const;
type Draft = Record<(typeof FIELDS)[number], string>;
const draftOf = (c: SonnikCatView | undefined): Draft => Object.fromEntries(FIELDS.map((f) => [f, c?.[f] ?? ''])) as Draft;

const postColumns: Column<SonnikPostView>[] = [
  { key: 'Id', title: 'Id', width: 70 },
  { key: 'views', title: 'views', className: 'text-end', width: 80, render: (p) => fmtNumber(p.views) },
  { key: 'title', title: 'title', render: (p) => p.title || '—' },
  { key: 'title_ai', title: 'title_ai', render: (p) => p.title_ai || '—' },
];

/**
 * /sonnik/cat/edit/{Id_edit} (001 §2): letter, uri, name and body (the kit's rich-text editor), Close
 * and Commit ('Commit Ok'); the side panel lists the category's posts, 20 per page (its page kept
 * in the screen's state, so the pager of the posts does not touch the editor's URL).
 */
export default function SonnikCatEditPage() {
  const { Id_edit = '' } = useParams();
  const Id = /^\d+$/.test(Id_edit) ? Number(Id_edit) : 0;
  const navigate = useNavigate();
  const { data, error, loading, reload, setData } = useRpc('sonnik.getCat', { Id });
  const cat = data as SonnikCatView | undefined;
  const [postsPage, setPostsPage] = useState(1);
  const posts = useRpc('sonnik.getPosts', { Id_cat: Id, p_: postsPage });
  const [d, setD] = useState<Draft>(() => draftOf(undefined));
  const initial = useMemo(() => JSON.stringify(draftOf(cat)), [cat]);
  useEffect(() => setD(draftOf(cat)), [cat]);
  const errs = useFieldErrors();
  const { run, busy } = useAction();
  const dirty = JSON.stringify(d) !== initial;
  useUnsavedPrompt(dirty);

  const commit = async () => {
    const v = { Id, ...d };
    const bad = validate(SonnikUpdateCatArgs, v);
    if (bad) { errs.set(bad); return; }
    const r = await run(() => rpc('sonnik.updateCat', v), (x) => x.message, (e) => errs.take(e));
    if (r) { errs.clear(); setData(r.cat); }
  };

  if (loading && !cat) return <Loading />;
  if (error) return <><PageTitle title="Sonnik category" /><ErrorAlert error={error} onRetry={reload} /><Link to="/sonnik/cat">Back to sonnik categories</Link></>;
  const field = (f: Exclude<keyof Draft, 'body'>, label: string, required = false) => (
    <TextField name={f} label={label} value={d[f]} required={required} error={errs.of(f)} onChange={(v) => { setD((p) => ({ ...p, [f]: v })); errs.clear(f); }} />
  );
  return (
    <>
      <PageTitle
        title={`Sonnik category ${Id}: ${cat?.name ?? ''}`}
        actions={<>
          <Button size="sm" variant="outline-secondary" onClick={() => navigate('/sonnik/cat')}>Close</Button>
          <Button size="sm" disabled={busy || !dirty} onClick={commit}>{busy && <Spinner size="sm" className="me-1" />}Commit</Button>
        </>}
      />
      <Row>
        <Col lg={7}>
          <Card body className="mb-3">
            <Row>
              <Col sm={3}>{field('letter', 'letter')}</Col>
              <Col sm={9}>{field('uri', 'uri')}</Col>
            </Row>
            {field('name', 'name', true)}
            <RichText id="body" label="body" value={d.body} error={errs.of('body')} onChange={(v) => setD((p) => ({ ...p, body: v }))} minHeight={260} />
          </Card>
        </Col>
        <Col lg={5}>
          <Card className="mb-3 app-sonnik-posts">
            <Card.Header className="py-2">Posts of the category</Card.Header>
            <Card.Body className="p-2">
              <PaginatedTable columns={postColumns} rows={posts.data?.list} rowKey={(p) => p.Id} count={posts.data?.count ?? 0} limit={SONNIK_POSTS_PAGE}
                page={postsPage} onPage={setPostsPage} loading={posts.loading} error={posts.error} onRetry={posts.reload} empty="No posts in this category." />
            </Card.Body>
          </Card>
        </Col>
      </Row>
    </>
  );
}
