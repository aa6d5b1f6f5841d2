import { useEffect, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { CAT_WEIGHT_MAX, type CatWeightItem } from '../../../contracts/categories.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { fmtNumber, plural } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { SortableList } from '../../kit/SortableList.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import { useUnsavedPrompt } from '../../kit/useUnsavedPrompt.js';
import './api.js';

/**
 * /content/cat_weight_sort (001 §2, content not shown there; docs/content.md "Category weight sort"):
 * every book category in its weight order; drag a row by its handle with the mouse, or Tab to the
 * handle, Space, arrows, Space; Save stores the order as weights 1..n (cat.setWeights), which every
 * category read then answers in. Leaving with an unsaved order asks first.
 */
export default function CatWeightSortPage() {
  const { data, error, loading, reload } = useRpc('cat.getWeights', {});
  const [order, setOrder] = useState<CatWeightItem[]>([]);
  useEffect(() => { if (data) setOrder(data); }, [data]);
  const dirty = !!data && order.map((c) => c.Id_cat).join(',') !== data.map((c) => c.Id_cat).join(',');
  const unsaved = useUnsavedPrompt(dirty);
  const { run, busy } = useAction();
  const save = async () => {
    const r = await run(() => rpc('cat.setWeights', { ids: order.map((c) => c.Id_cat) }), (x) => x.message);
    if (r) {
      unsaved.allowNext();
      await reload();
    }
  };
  if (loading && !data) return <><PageTitle title="Cat weight sort" /><Loading /></>;
  return (
    <>
      <PageTitle
        title="Cat weight sort"
        actions={dirty ? (
          <>
            <Button size="sm" variant="outline-secondary" onClick={() => data && setOrder(data)} disabled={busy}>Reset</Button>
            <Button size="sm" onClick={() => void save()} disabled={busy}>Save</Button>
          </>
        ) : undefined}
      />
      {error && <ErrorAlert error={error} onRetry={reload} />}
      <p className="small text-secondary">
        Drag a category by its handle, or Tab to the handle, press Space, move it with the arrow keys and press Space again. The order is used by every category list; categories never placed (weight 0) come first.
        {data && data.length >= CAT_WEIGHT_MAX && ` Only the first ${fmtNumber(CAT_WEIGHT_MAX)} categories are shown.`}
      </p>
      {data && order.length === 0 && <EmptyState text="No categories yet" />}
      {order.length > 0 && (
        <div style={{ maxWidth: 720 }}>
          <div className="small text-secondary mb-1">{plural(order.length, 'category', 'categories')}{dirty ? ' · order changed, not saved' : ''}</div>
          <SortableList
            items={order}
            keyOf={(c) => c.Id_cat}
            onReorder={setOrder}
            labelOf={(c) => c.cat_title || `category ${c.Id_cat}`}
            testId="cat-weight-list"
            render={(c, i) => (
              <div className="d-flex align-items-center gap-2">
                <span className="text-secondary small" style={{ width: '2.5rem' }}>{i + 1}.</span>
                <span className="flex-grow-1 text-truncate" data-testid="cat-weight-title">{c.cat_title || '—'}</span>
                <span className="small text-secondary">Id {c.Id_cat}</span>
                <Badge bg="light" text="dark" title="count_books">{fmtNumber(c.count_books)}</Badge>
              </div>
            )}
          />
        </div>
      )}
    </>
  );
}
