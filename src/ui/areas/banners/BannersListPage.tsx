import { Link } from 'react-router-dom';
import { BANNER_LABELS, BANNER_PAGE, BANNER_STATUS_LABELS, type BannerView } from '../../../contracts/banners.js';
import type { Paged } from '../../../contracts/auth.js';
import { useRest } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { PaginatedTable, usePageParam, type Column } from '../../kit/pagination.js';
import { ctrText } from './parts.js';
import './banners.css';

const columns: Column<BannerView>[] = [
  { key: 'Idb', title: 'Idb', width: 60 },
  { key: 'img', title: 'Image', width: 90, render: (b) => (b.img ? <img src={b.img} alt="" className="app-banner-thumb" /> : <span className="text-secondary small">—</span>) },
  { key: 'title', title: 'Title', render: (b) => <Link to={`/abs/edit/${b.Idb}`}>{b.title}</Link> },
  { key: 'status', title: 'Status', render: (b) => <span className={b.status === 0 ? 'text-success' : 'text-secondary'}>{BANNER_STATUS_LABELS[b.status] ?? b.status}</span> },
  { key: 'rate', title: 'Rate', className: 'text-end' },
  { key: 'views', title: 'Views', className: 'text-end', render: (b) => fmtNumber(b.views) },
  { key: 'tviews', title: 'Today', className: 'text-end', render: (b) => fmtNumber(b.tviews) },
  { key: 'click', title: 'Clicks', className: 'text-end', render: (b) => fmtNumber(b.click) },
  { key: 'tclick', title: 'Today', className: 'text-end', render: (b) => fmtNumber(b.tclick) },
  { key: 'ctr', title: 'CTR', className: 'text-end', render: (b) => ctrText(b.ctr) },
];

/** /abs/list (001 §2 "Ad banners"): the banners with their counters, 20 per page on `p_`; 'Add new block' goes to /abs/add. */
export default function BannersListPage() {
  const [page] = usePageParam();
  const { data, error, loading, reload } = useRest<Paged<BannerView>>('/abs/get', { p_: page });
  return (
    <>
      <PageTitle title={BANNER_LABELS.list} actions={<Link className="btn btn-sm btn-primary" to="/abs/add">{BANNER_LABELS.addNew}</Link>} />
      <PaginatedTable
        columns={columns} rows={data?.list} rowKey={(b) => b.Idb} count={data?.count ?? 0} limit={BANNER_PAGE}
        loading={loading} error={error} onRetry={() => void reload()} empty="No banners yet" minWidth={760}
      />
    </>
  );
}
