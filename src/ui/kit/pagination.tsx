import { useCallback, type Key, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import Pagination from 'react-bootstrap/Pagination';
import Table from 'react-bootstrap/Table';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { Link, useSearchParams } from 'react-router-dom';
import { PAGE_PARAM } from '../../contracts/constants.js';
import { plural } from './format.js';
import { EmptyState, ErrorAlert, Loading } from './states.js';

/**
 * The page number in the URL's `p_` query parameter (000 §2, default 1), so pagination survives a
 * reload and a shared link. Setting page 1 removes the parameter.
 */
export function usePageParam(name: string = PAGE_PARAM): [number, (page: number) => void] {
  const [params, setParams] = useSearchParams();
  const raw = Number.parseInt(params.get(name) ?? '', 10);
  const page = Number.isFinite(raw) && raw >= 1 ? raw : 1;
  const setPage = useCallback(
    (p: number) =>
      setParams((prev) => {
        const next = new URLSearchParams(prev);
        if (p <= 1) next.delete(name);
        else next.set(name, String(Math.floor(p)));
        return next;
      }),
    [name, setParams],
  );
  return [page, setPage];
}

/**
 * A string query parameter as state (filters that survive reload). Changing it resets `p_` to 1
 * unless `keepPage` is set.
 */
export function useQueryParam(name: string, fallback = ''): [string, (value: string, opts?: { keepPage?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  const value = params.get(name) ?? fallback;
  const set = useCallback(
    (v: string, opts?: { keepPage?: boolean }) =>
      setParams((prev) => {
        const next = new URLSearchParams(prev);
        if (v === '' || v === fallback) next.delete(name);
        else next.set(name, v);
        if (!opts?.keepPage) next.delete(PAGE_PARAM);
        return next;
      }),
    [name, fallback, setParams],
  );
  return [value, set];
}

export interface PagerProps {
  page: number;
  /** Total rows; pages = ceil(count / limit). */
  count: number;
  limit: number;
  onPage: (page: number) => void;
  className?: string;
  /**
   * `count` is not known yet (no answer so far, or the call failed): the text says only 'Page N', never
   * 'past the end' or '0 rows' beside a spinner.
   */
  unknown?: boolean;
  /** An answer for this page is on its way: `count` may be stale, so 'past the end' waits for it. */
  loading?: boolean;
  /** The 'Page N of M · K rows' text (default true); false when the caller says it itself. */
  info?: boolean;
}

/** Pages of `count` rows at `limit` a page (at least 1). */
export const pageCount = (count: number, limit: number) => Math.max(1, Math.ceil(count / Math.max(1, limit)));

/**
 * First / previous / a window of numbers / next / last, and "Page N of M · K rows" (or "past the end",
 * once the count of this page's answer is known).
 */
export function Pager({ page, count, limit, onPage, className, unknown, loading, info = true }: PagerProps) {
  const pages = pageCount(count, limit);
  const from = Math.max(1, Math.min(page - 2, pages - 4));
  const to = Math.min(pages, from + 4);
  const nums: number[] = [];
  for (let i = from; i <= to; i++) nums.push(i);
  return (
    <div className={`app-pager d-flex flex-wrap align-items-center gap-2 ${className ?? ''}`}>
      {pages > 1 && (
        <Pagination size="sm" className="mb-0">
          <Pagination.First disabled={page <= 1} onClick={() => onPage(1)} aria-label="First page" />
          <Pagination.Prev disabled={page <= 1} onClick={() => onPage(Math.min(page - 1, pages))} aria-label="Previous page" />
          {nums.map((n) => (
            <Pagination.Item key={n} active={n === page} onClick={() => onPage(n)} aria-label={`Page ${n}`}>
              {n}
            </Pagination.Item>
          ))}
          <Pagination.Next disabled={page >= pages} onClick={() => onPage(page + 1)} aria-label="Next page" />
          <Pagination.Last disabled={page >= pages} onClick={() => onPage(pages)} aria-label="Last page" />
        </Pagination>
      )}
      {info && (
        <span className="text-secondary small app-pager-info">
          {unknown || (loading && page > pages)
            ? `Page ${page}`
            : `${page > pages ? `Page ${page} is past the end (${plural(pages, 'page')})` : `Page ${page} of ${pages}`} · ${plural(count, 'row')}`}
        </span>
      )}
    </div>
  );
}

export interface Column<T> {
  key: string;
  title: ReactNode;
  /** Cell content; the row's `key` field by default. */
  render?: (row: T, index: number) => ReactNode;
  className?: string;
  width?: number | string;
}

export interface PaginatedTableProps<T> {
  columns: Column<T>[];
  rows: T[] | undefined;
  rowKey: (row: T, index: number) => Key;
  /** Total rows on the server. */
  count: number;
  limit: number;
  /** Current page and setter; the `p_` query parameter by default. */
  page?: number;
  onPage?: (page: number) => void;
  loading?: boolean;
  error?: unknown;
  onRetry?: () => void;
  empty?: ReactNode;
  rowClassName?: (row: T) => string | undefined;
  /** Makes rows open something (a detail view): click, Enter or Space on the row; clicks on links and buttons inside keep their own meaning. */
  onRowClick?: (row: T) => void;
  /** Fixed layout: the table takes the card's width, columns keep their `width`, long cells are clipped (set `minWidth` for narrow screens, which then scroll). */
  fixed?: boolean;
  minWidth?: number;
  className?: string;
}

const INTERACTIVE = 'a, button, input, select, textarea, label';

/** A dense table with the pager above and below; rows come from the caller's page-sized call. */
export function PaginatedTable<T>(props: PaginatedTableProps<T>) {
  const [urlPage, setUrlPage] = usePageParam();
  const page = props.page ?? urlPage;
  const onPage = props.onPage ?? setUrlPage;
  const { columns, rows, rowKey, count, limit, loading, error, onRetry, empty, rowClassName, onRowClick, fixed, minWidth, className } = props;
  return (
    <div className={`app-ptable ${className ?? ''}`}>
      <ErrorAlert error={error} onRetry={onRetry} />
      <Pager page={page} count={count} limit={limit} onPage={onPage} unknown={!rows} loading={loading} className="mb-2" />
      <div className="table-responsive position-relative">
        <Table
          size="sm" hover striped
          className={`align-middle mb-2 app-table ${fixed ? 'app-table-fixed' : ''} ${loading && rows ? 'app-table-busy' : ''}`}
          style={fixed && minWidth ? { minWidth } : undefined}
        >
          <thead className="table-light">
            <tr>
              {columns.map((c) => (
                <th key={c.key} className={c.className} style={c.width ? { width: c.width } : undefined}>
                  {c.title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows?.map((r, i) => (
              <tr
                key={rowKey(r, i)}
                className={`${rowClassName?.(r) ?? ''} ${onRowClick ? 'app-row-click' : ''}`.trim() || undefined}
                {...(onRowClick
                  ? {
                      tabIndex: 0,
                      onClick: (e: MouseEvent) => {
                        if (!(e.target as Element).closest(INTERACTIVE)) onRowClick(r);
                      },
                      onKeyDown: (e: KeyboardEvent) => {
                        if ((e.key === 'Enter' || e.key === ' ') && e.target === e.currentTarget) {
                          e.preventDefault();
                          onRowClick(r);
                        }
                      },
                    }
                  : {})}
              >
                {columns.map((c) => (
                  <td key={c.key} className={c.className}>
                    {c.render ? c.render(r, i) : String((r as Record<string, unknown>)[c.key] ?? '')}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </Table>
        {!rows && loading && <Loading />}
        {rows && rows.length === 0 && !loading && (page > pageCount(count, limit) ? (
          <PastEnd page={page} pages={pageCount(count, limit)} onPage={props.onPage} />
        ) : (empty ?? <EmptyState />))}
      </div>
      {rows && rows.length > 10 && <Pager page={page} count={count} limit={limit} onPage={onPage} loading={loading} />}
    </div>
  );
}

/**
 * An empty page past the last one (`?p_=99` of 2 pages, or a list that shrank): says so and links to
 * the last page, keeping the other query parameters (filters). With a caller's own `onPage` it is a
 * button instead of a link.
 */
function PastEnd({ page, pages, onPage }: { page: number; pages: number; onPage?: (page: number) => void }) {
  const [params] = useSearchParams();
  const last = new URLSearchParams(params);
  if (pages <= 1) last.delete(PAGE_PARAM);
  else last.set(PAGE_PARAM, String(pages));
  const label = pages <= 1 ? 'Go to the first page' : `Go to the last page (${pages})`;
  return (
    <Alert variant="warning" className="my-2 py-2" data-testid="past-end">
      Page {page} is past the end: there {pages === 1 ? 'is' : 'are'} only {plural(pages, 'page')}.{' '}
      {onPage ? (
        <Button variant="link" size="sm" className="p-0 align-baseline" onClick={() => onPage(pages)}>
          {label}
        </Button>
      ) : (
        <Link to={{ search: last.toString() ? `?${last}` : '' }}>{label}</Link>
      )}
    </Alert>
  );
}
