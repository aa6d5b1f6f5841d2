/**
 * Pieces shared by the firewall screens: the whois viewer, the rule badge, the ban / allow actions
 * with the messages of 000 §8 (and the affected row count), and the address grouping of the IP list.
 */
import { Fragment, useCallback } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { IP_RULE_ALLOWED, IP_RULE_DELETED, ipRuleStatusName, isDenyingStatus } from '../../../contracts/firewall-rules.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { AppModal } from '../../kit/AppModal.js';
import { fmtDateTime, plural } from '../../kit/format.js';
import { ErrorAlert, Loading } from '../../kit/states.js';
import { useAction } from '../../kit/useAction.js';
import type { RuleActionResult } from './api.js';
import './api.js';

/** 'Set ban ok! · 1 row': the message of 000 §8 and the rows the action touched (000 §8 "IP rule actions show the affected row count"). */
export const withCount = (r: RuleActionResult) => `${r.message} · ${plural(r.affected, 'row')}`;

/** The current rule of an address: its status name, coloured (denying red, Allowed green). */
export function RuleBadge({ status }: { status: number | null | undefined }) {
  if (status === null || status === undefined) return <span className="text-secondary">—</span>;
  const bg = isDenyingStatus(status) ? 'danger' : status === IP_RULE_ALLOWED ? 'success' : status === IP_RULE_DELETED ? 'secondary' : 'warning';
  return <Badge bg={bg} data-rule={status}>{ipRuleStatusName(status)}</Badge>;
}

/**
 * Ban (000 §8 'Set ban ok!') and Allowed ('Save ok!') of one address; resolves the new status, or
 * undefined when refused (an allowlisted address: the server says why, shown as an error).
 */
export function useIpRuleActions(onChanged?: (ip: string, status: number) => void) {
  const { run, busy } = useAction();
  const ban = useCallback(
    async (ip: string) => {
      const r = await run(() => rpc('firewall.setIpBan', { ip }), withCount);
      if (r) onChanged?.(ip, 1);
      return r ? 1 : undefined;
    },
    [run, onChanged],
  );
  const allow = useCallback(
    async (ip: string) => {
      const r = await run(() => rpc('firewall.allowIpRules', { ip }), withCount);
      if (r) onChanged?.(ip, IP_RULE_ALLOWED);
      return r ? IP_RULE_ALLOWED : undefined;
    },
    [run, onChanged],
  );
  return { ban, allow, busy };
}

/** The question before a ban. */
export const banQuestion = (ip: string) => (
  <>
    Ban <strong className="app-mono">{ip}</strong>? Its requests are dropped on every proxy after the next iptables sync.
  </>
);

/** The whois viewer (000 §2): the registry's answer for one address, with the servers asked. */
export function WhoisModal({ ip, onHide }: { ip: string | null; onHide: () => void }) {
  const w = useRpc('firewall.getIpWhois', { ip: ip ?? '' }, { enabled: !!ip });
  const a = w.data && w.data.ip && ip ? w.data : undefined;
  return (
    <AppModal show={!!ip} onHide={onHide} title={`Whois ${ip ?? ''}`} footer={<Button size="sm" variant="secondary" onClick={onHide}>Close</Button>}>
      {w.error && !w.loading && <ErrorAlert error={w.error} onRetry={() => void w.reload()} />}
      {w.loading && <Loading text="Asking the whois servers…" />}
      {a && !w.loading && (
        <div data-testid="whois">
          <dl className="row mb-2 small">
            {([['Range', a.summary.range], ['Net name', a.summary.netname], ['Country', a.summary.country], ['Organisation', a.summary.org], ['Abuse', a.summary.abuse]] as const)
              .filter(([, v]) => v)
              .map(([k, v]) => (
                <Fragment key={k}>
                  <dt className="col-4 col-sm-3">{k}</dt>
                  <dd className="col-8 col-sm-9 text-break mb-1" data-whois={k}>{v}</dd>
                </Fragment>
              ))}
          </dl>
          {a.stale && (
            <div className="small text-warning-emphasis mb-1" data-testid="whois-stale">
              Stale: the lookup failed now ({a.error}); this is the answer of {fmtDateTime(a.fetched)}.
            </div>
          )}
          <div className="small text-secondary mb-1">
            {a.chain.join(' → ')} · {a.cached ? `cached, fetched ${fmtDateTime(a.fetched)}` : 'fetched now'}
          </div>
          <pre className="app-mono bg-light border rounded p-2 mb-0 small app-fw-whois-text">{a.text}</pre>
        </div>
      )}
    </AppModal>
  );
}

/**
 * The group of an address for the IP list's grouping (000 §2 "grouping by 2 or 3 decade levels"): its
 * first 2 or 3 octets (`203.0.*`, `203.0.113.*`); IPv6 by its first 2 or 3 hextets of the full form.
 */
export function groupOf(ip: string, levels: 2 | 3): string {
  if (ip.includes(':')) {
    const full = expandV6(ip);
    return `${full.slice(0, levels).join(':')}:*`;
  }
  return `${ip.split('.').slice(0, levels).join('.')}.*`;
}

function expandV6(ip: string): string[] {
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = ip.includes('::') && tail ? tail.split(':') : [];
  const fill = ip.includes('::') ? new Array(Math.max(0, 8 - h.length - t.length)).fill('0') : [];
  return [...h, ...fill, ...t].map((x) => x.replace(/^0+(?=.)/, ''));
}
