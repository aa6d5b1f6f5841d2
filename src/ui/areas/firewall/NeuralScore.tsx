/**
 * The neural score of the addresses on the traffic screen's page (firewall.getNeyronData with their
 * ips): the score, coloured at the decision threshold (0.97, 000 §9), with the features that pushed it
 * most ('0.98 · rate +0.41, ua_library +0.22'). A host without a model answers 422: 'no model', quietly.
 */
import { useMemo } from 'react';
import { NN_DECISION_THRESHOLD, type FeatureEffect, type NeyronScore } from '../../../contracts/firewall-train.js';
import { useAsync } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { fmtEffect, fmtScore, isNoModel } from './train-api.js';

/** Effects shown beside a score. */
export const TOP_EFFECTS = 3;

export function useNeyronScores(host: string, ips: string[], version = 0) {
  const key = JSON.stringify([host, ips, version]);
  const s = useAsync(
    async (signal) => {
      try {
        return { list: await rpc('firewall.getNeyronData', { host, ips }, { signal }), noModel: false };
      } catch (e) {
        if (isNoModel(e)) return { list: [] as NeyronScore[], noModel: true };
        throw e;
      }
    },
    key,
    { enabled: !!host && ips.length > 0 },
  );
  const scores = useMemo(() => new Map((s.data?.list ?? []).map((x) => [x.ip, x])), [s.data]);
  return { scores, noModel: !!s.data?.noModel, error: s.error, loading: s.loading };
}

export const effectsText = (top: FeatureEffect[], n = TOP_EFFECTS) =>
  top.slice(0, n).map((e) => `${e.feature} ${fmtEffect(e.effect)}`).join(', ');

/** One address's score with its top effects; '—' while none. */
export function ScoreCell({ s, noModel }: { s: NeyronScore | undefined; noModel: boolean }) {
  if (!s) return <span className="small text-secondary text-nowrap" data-score="">{noModel ? 'no model' : '—'}</span>;
  const high = s.score >= NN_DECISION_THRESHOLD;
  const effects = effectsText(s.top);
  return (
    <span className="small app-fw-score" data-score={fmtScore(s.score)} title={s.top.map((e) => `${e.feature} ${fmtEffect(e.effect)}`).join('\n')}>
      <span className={high ? 'badge text-bg-danger' : 'fw-semibold'}>{fmtScore(s.score)}</span>
      {effects && <span className="text-secondary"> · {effects}</span>}
    </span>
  );
}
