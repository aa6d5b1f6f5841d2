import Card from 'react-bootstrap/Card';
import { Link } from 'react-router-dom';
import { useRpc } from '../../api/hooks.js';
import { fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import type { SonnikCatList } from './api.js';
import './sonnik.css';

/**
 * /sonnik/index (001 §2 "Sonnik"; its content is not shown in the spec): the dream book at a glance,
 * how many categories there are and how they spread over the letters, each letter opening /sonnik/cat
 * filtered by it.
 */
export default function SonnikIndexPage() {
  const { data, error, loading, reload } = useRpc('sonnik.getCat', { limit: 1 });
  const list = data as SonnikCatList | undefined;
  return (
    <>
      <PageTitle title="Sonnik" actions={<Link className="btn btn-sm btn-outline-primary" to="/sonnik/cat">Categories</Link>} />
      <ErrorAlert error={error} onRetry={reload} />
      {loading && !list && <Loading />}
      {list && (
        <Card body>
          <p className="mb-2">Categories: <strong>{fmtNumber(list.count)}</strong></p>
          {list.letters.length === 0
            ? <p className="text-secondary mb-0">No categories yet: they come from the network through the content import (entities sonnik_cats and sonnik_posts).</p>
            : (
              <div className="app-sonnik-letters" aria-label="Letters">
                {list.letters.map((l) => (
                  <Link key={l.letter} className="btn btn-sm btn-outline-secondary" to={`/sonnik/cat?letter=${encodeURIComponent(l.letter)}`}>
                    {l.letter || '—'} <span className="text-secondary">{fmtNumber(l.cats)}</span>
                  </Link>
                ))}
              </div>
            )}
        </Card>
      )}
    </>
  );
}
