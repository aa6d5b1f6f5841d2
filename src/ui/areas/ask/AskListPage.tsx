import { Link } from 'react-router-dom';
import { ASK_PAGE, type AskRow } from '../../../contracts/ask.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useRest, useSession } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import './ask.css';

/** /content/ask (001 §2): the questions, newest first, 20 per page on `p_`; role 10 and stronger edit them. */
export default function AskListPage() {
  const [page] = usePageParam();
  const session = useSession();
  const canEdit = roleAllows(session?.role, Role.content);
  const { data, error, loading, reload } = useRest<{ list: AskRow[]; count: number }>('/ask/list', { page, limit: ASK_PAGE });
  const columns: Column<AskRow>[] = [
    { key: 'Id', title: 'Id', width: 80, render: (a) => (canEdit ? <Link to={`/ask/edit/${a.Id}`}>{a.Id}</Link> : a.Id) },
    { key: 'question', title: 'question', render: (a) => <span className="app-ask-question">{canEdit ? <Link to={`/ask/edit/${a.Id}`}>{a.question}</Link> : a.question}</span> },
    { key: 'answers', title: 'answers', width: 100, className: 'text-end', render: (a) => fmtNumber(a.answers) },
  ];
  return (
    <>
      <PageTitle title="Ask" actions={canEdit ? <Link className="btn btn-sm btn-outline-primary" to="/ask/add">Add</Link> : undefined} />
      <PaginatedTable columns={columns} rows={data?.list} rowKey={(a) => a.Id} count={data?.count ?? 0} limit={ASK_PAGE} loading={loading} error={error} onRetry={reload} fixed minWidth={360} />
    </>
  );
}
