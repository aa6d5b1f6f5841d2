import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import Badge from 'react-bootstrap/Badge';
import Form from 'react-bootstrap/Form';
import { MONEY_TAG_LIMIT, MONEY_TYPE_LABELS, normalizeTag, splitTags, type MoneyTag, type MoneyType } from '../../../contracts/money.js';
import { rpc } from '../../api/rpc.js';
import './api.js';
import './money.css';

/** An exact amount as the wire gives it ("-1234.50") with a comma thousands separator (001 §9): "-1,234.50". */
export function fmtMoney(s: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(s);
  if (!m) return s;
  return `${m[1]}${m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${m[3] ?? ''}`;
}

/** A transaction's amount with its sign: income +, expense −. */
export const signed = (type: MoneyType, val: string) => `${type === 1 ? '+' : '−'}${fmtMoney(val)}`;

export function TypeBadge({ type }: { type: MoneyType }) {
  return <Badge bg={type === 1 ? 'success' : 'danger'} className="app-money-type">{MONEY_TYPE_LABELS[type]}</Badge>;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The operator's local day, yyyy-MM-dd. */
export const localDay = (d = new Date()) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
/** The local day n days before today. */
export const daysAgo = (n: number) => {
  const d = new Date();
  d.setDate(d.getDate() - n);
  return localDay(d);
};

/** The tags entered before the one being typed (everything up to the last comma), and that one. */
function splitEntry(value: string): { done: string[]; typing: string } {
  const i = value.lastIndexOf(',');
  return { done: splitTags(i < 0 ? '' : value.slice(0, i)), typing: normalizeTag(i < 0 ? value : value.slice(i + 1)) };
}

export interface TagInputProps {
  name: string;
  label?: string;
  value: string;
  onChange: (value: string) => void;
  /** Suggestions from this box (else from every box the user sees). */
  bid?: number;
  error?: string;
  /** Show the box's popular tags under the field, one click adds one. */
  popular?: boolean;
  size?: 'sm';
  placeholder?: string;
}

/**
 * Tags entered comma separated (001 §5), with suggestions: while a tag is typed, `money.searchTags`
 * (tags containing the text, at most 200) without the tags already entered; after a comma, the tags
 * used together with the entered ones (`money.getTagsByTagsRelay`), or the popular ones. Arrow keys
 * move in the list, Enter or a click takes one, Escape closes it.
 */
export function TagInput({ name, label, value, onChange, bid, error, popular, size, placeholder }: TagInputProps) {
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<MoneyTag[]>([]);
  const [active, setActive] = useState(-1);
  const [pop, setPop] = useState<MoneyTag[]>([]);
  const input = useRef<HTMLInputElement>(null);
  const { done, typing } = useMemo(() => splitEntry(value), [value]);

  useEffect(() => {
    if (!popular) return;
    let gone = false;
    void rpc('money.getTagsPopular', { bid, limit: 12 }).then((r) => { if (!gone) setPop(r); }, () => undefined);
    return () => { gone = true; };
  }, [bid, popular]);

  useEffect(() => {
    if (!open) return;
    let gone = false;
    const timer = setTimeout(() => {
      const call = typing
        ? rpc('money.searchTags', { bid, q: typing, exclude: done, limit: MONEY_TAG_LIMIT })
        : done.length
          ? rpc('money.getTagsByTagsRelay', { bid, tags: done, limit: 20 })
          : rpc('money.getTagsPopular', { bid, limit: 20 });
      call.then((r) => {
        if (gone) return;
        setItems(r.filter((x) => !done.includes(x.tag) && x.tag !== typing));
        setActive(-1);
      }, () => { if (!gone) setItems([]); });
    }, typing ? 150 : 0);
    return () => { gone = true; clearTimeout(timer); };
    // done is derived from value: its JSON is the dependency
  }, [open, typing, JSON.stringify(done), bid]); // eslint-disable-line react-hooks/exhaustive-deps

  const take = (tag: string) => {
    onChange([...done, tag].join(', ') + ', ');
    setOpen(true);
    input.current?.focus();
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (!open || !items.length) return;
    if (e.key === 'ArrowDown') { e.preventDefault(); setActive((a) => (a + 1) % items.length); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); setActive((a) => (a <= 0 ? items.length - 1 : a - 1)); }
    else if (e.key === 'Enter' && active >= 0) { e.preventDefault(); take(items[active].tag); }
    else if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); setOpen(false); }
  };
  const shown = open && items.length > 0;
  const popularLeft = pop.filter((x) => !done.includes(x.tag) && x.tag !== typing);

  return (
    <Form.Group className="mb-2 app-tag-input" controlId={`f-${name}`}>
      {label && <Form.Label className="mb-1 small fw-semibold">{label}</Form.Label>}
      <div className="position-relative">
        <Form.Control
          ref={input} name={name} value={value} size={size} autoComplete="off" placeholder={placeholder ?? 'food, taxi'}
          role="combobox" aria-expanded={shown} aria-controls={listId} aria-autocomplete="list"
          aria-activedescendant={shown && active >= 0 ? `${listId}-${active}` : undefined}
          isInvalid={!!error}
          onChange={(e) => { onChange(e.currentTarget.value); setOpen(true); }}
          onFocus={() => setOpen(true)}
          onBlur={() => setTimeout(() => setOpen(false), 150)}
          onKeyDown={onKey}
        />
        {shown && (
          <ul className="dropdown-menu show app-tag-suggest" id={listId} role="listbox" aria-label="Tag suggestions">
            {items.map((x, i) => (
              <li key={x.tag} id={`${listId}-${i}`} role="option" aria-selected={i === active}>
                <button type="button" className={`dropdown-item d-flex justify-content-between ${i === active ? 'active' : ''}`} onMouseDown={(e) => e.preventDefault()} onClick={() => take(x.tag)}>
                  <span>{x.tag}</span><span className="small text-secondary ms-3">{x.n}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
      </div>
      {popular && popularLeft.length > 0 && (
        <div className="mt-1 small d-flex flex-wrap gap-1 align-items-center" data-testid="popular-tags">
          <span className="text-secondary">Popular:</span>
          {popularLeft.map((x) => (
            <button key={x.tag} type="button" className="btn btn-link btn-sm p-0 me-1 app-tag-link" onClick={() => take(x.tag)}>{x.tag}</button>
          ))}
        </div>
      )}
    </Form.Group>
  );
}

/** A transaction's tags as badges; `onTag` makes each one a filter link. */
export function Tags({ tags, onTag }: { tags: string; onTag?: (tag: string) => void }) {
  if (!tags) return null;
  return (
    <span className="app-money-tags">
      {tags.split(',').map((t) => (onTag
        ? <button key={t} type="button" className="badge rounded-pill text-bg-light border app-tag-chip" onClick={() => onTag(t)} title={`Only ${t}`}>{t}</button>
        : <span key={t} className="badge rounded-pill text-bg-light border app-tag-chip">{t}</span>))}
    </span>
  );
}
