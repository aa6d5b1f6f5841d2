import { Fragment, type ReactNode } from 'react';
import Alert from 'react-bootstrap/Alert';
import type { PrivacyInfo } from '../../../contracts/privacy.js';
import { useAsync } from '../../api/hooks.js';
import { restEnvelope } from '../../api/rest.js';
import { unwrap } from '../../api/http.js';
import { Loading } from '../../kit/states.js';
import { PRIVACY_SECTIONS, PRIVACY_TITLE } from './privacyText.js';

/** Replaces the {operator}, {email}, {site} and {url} placeholders with their values (e-mail and URLs as links). */
function fill(text: string, v: { operator: string; email: string | null; site: string; url: string }): ReactNode[] {
  return text.split(/(\{operator\}|\{email\}|\{site\}|\{url\})/).map((part, i) => {
    if (part === '{operator}') return <b key={i}>{v.operator}</b>;
    if (part === '{email}') return v.email ? <a key={i} href={`mailto:${v.email}`}>{v.email}</a> : <i key={i}>[адрес электронной почты не указан]</i>;
    if (part === '{site}') return <a key={i} href={v.site}>{v.site}</a>;
    if (part === '{url}') return <a key={i} href={v.url}>{v.url}</a>;
    return <Fragment key={i}>{part}</Fragment>;
  });
}

/**
 * /privacy (001 §2 "Privacy policy"): the static Russian policy, readable without signing in; the
 * operator's name, e-mail and the policy URL come from the configuration (GET /api/privacy).
 */
export default function PrivacyPage() {
  const { data, loading } = useAsync(async (signal) => unwrap(await restEnvelope<PrivacyInfo>('GET', '/privacy', undefined, { signal, noAuthRedirect: true })), 'privacy');
  if (loading && !data) return <Loading />;
  const site = window.location.origin;
  const v = {
    operator: data?.operator_name ?? '[оператор не указан]',
    email: data?.operator_email ?? null,
    site,
    url: data?.policy_url ?? `${site}/privacy`,
  };
  const missing = [!data?.operator_name && 'PRIVACY_OPERATOR_NAME', !data?.operator_email && 'PRIVACY_OPERATOR_EMAIL'].filter(Boolean);
  return (
    <article className="app-privacy mx-auto" lang="ru" style={{ maxWidth: 860 }}>
      {missing.length > 0 && (
        <Alert variant="warning" className="small py-2" lang="en">
          Not configured: {missing.join(', ')} (see README, Configuration). The policy below shows placeholders instead.
        </Alert>
      )}
      <h1 className="h3 mb-4">{PRIVACY_TITLE}</h1>
      {PRIVACY_SECTIONS.map((s) => (
        <section key={s.n} className="mb-4" aria-labelledby={`privacy-${s.n}`}>
          <h2 className="h5" id={`privacy-${s.n}`}>{s.n}. {s.title}</h2>
          {s.items.map((it, i) => (
            <div key={i} className="mb-2" data-item={`${s.n}.${i + 1}`}>
              <p className="mb-1">{s.n}.{i + 1}. {fill(it.text, v)}</p>
              {it.list && <ul className="mb-1">{it.list.map((li, j) => <li key={j}>{fill(li, v)}</li>)}</ul>}
            </div>
          ))}
        </section>
      ))}
    </article>
  );
}
