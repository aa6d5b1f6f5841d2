/**
 * Training marks of 000 §4 (Ok = 0, Ne = 0.5, Bad = 1) on the traffic screen: the current mark of each
 * address (firewall.getTrainDataLog of the host) and the 'Train: Ok Ne Bad' button group
 * (firewall.setTrainDataLog, 'Set train: {n}' of 000 §8). Bad also bans on the server (000 §4 "Training
 * with ban value 1 also bans the IP"), so it asks first like every ban of the screen.
 */
import { useCallback, useMemo } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { TRAIN_MARK_LABELS, trainSetMessage, type TrainMark } from '../../../contracts/firewall-train.js';
import { useRpc } from '../../api/hooks.js';
import { rpc } from '../../api/rpc.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { notify } from '../../kit/notify.js';
import { useAction } from '../../kit/useAction.js';
import './train-api.js';

export const markVariant = (bal: TrainMark) => (bal === 1 ? 'danger' : bal === 0 ? 'success' : 'secondary');

/** The mark of 1 bans too: the question before it. */
export const badQuestion = (ip: string) => (
  <>
    Mark <strong className="app-mono">{ip}</strong> Bad (1)? It is banned too: its requests are dropped on every proxy after the next iptables sync.
  </>
);

/** 'Set train: 1 · Set ban ok!': the mark's message, and for a mark 1 the ban's. */
const markMessage = (bal: TrainMark) => (x: { message?: string; banned?: boolean; ban_message?: string }) =>
  [x.message ?? trainSetMessage(bal), x.banned ? x.ban_message : ''].filter(Boolean).join(' · ');

/**
 * The marks of a host's addresses (the newest per address) and the action that sets one. `onBanned`
 * follows a mark of 1 (the server banned the address: status 1).
 */
export function useTrainMarks(host: string, onBanned?: (ip: string) => void) {
  const log = useRpc('firewall.getTrainDataLog', { host }, { enabled: !!host });
  const { run, busy } = useAction();
  const marks = useMemo(() => {
    const m = new Map<string, TrainMark>();
    const rows = [...(log.data ?? [])].sort((a, b) => a.Id - b.Id);
    for (const r of rows) m.set(r.ip, r.bal);
    return m;
  }, [log.data]);

  const setMark = useCallback(
    async (ip: string, bal: TrainMark) => {
      const r = await run(() => rpc('firewall.setTrainDataLog', { ip, host, bal }), markMessage(bal));
      if (!r) return undefined;
      log.setData((prev) => [...(prev ?? []).filter((x) => x.ip !== ip), { Id: r.Id, ip, host, bal, data: {} as never, time: new Date().toISOString() }]);
      if (bal === 1 && r.banned !== false) onBanned?.(ip);
      // A mark of 1 that could not ban (allowlisted, or an Allowed rule): the server says why.
      if (bal === 1 && r.banned === false && r.ban_message) notify.info(r.ban_message);
      return r;
    },
    [run, host, log, onBanned],
  );
  return { marks, setMark, busy, error: log.error };
}

/** The current mark of an address ('—' without one). */
export function MarkBadge({ bal }: { bal: TrainMark | undefined }) {
  if (bal === undefined) return <span className="text-secondary" data-mark="">—</span>;
  return <Badge bg={markVariant(bal)} data-mark={bal} title={`Train mark ${bal}`}>{TRAIN_MARK_LABELS[bal]}</Badge>;
}

/** 'Train: Ok Ne Bad' for one address (a group named 'Train {ip}'); the current mark is pressed. */
export function TrainButtons({ ip, current, onMark, busy }: {
  ip: string; current: TrainMark | undefined; onMark: (bal: TrainMark) => Promise<unknown>; busy: boolean;
}) {
  const v = (bal: TrainMark) => `${current === bal ? '' : 'outline-'}${markVariant(bal)}`;
  return (
    <div className="d-inline-flex align-items-center gap-1 app-fw-train" role="group" aria-label={`Train ${ip}`} data-mark={current ?? ''}>
      <span className="small text-secondary">Train:</span>
      <Button size="sm" variant={v(0)} aria-pressed={current === 0} disabled={busy} onClick={() => void onMark(0)}>Ok</Button>
      <Button size="sm" variant={v(0.5)} aria-pressed={current === 0.5} disabled={busy} onClick={() => void onMark(0.5)}>Ne</Button>
      <ConfirmButton
        label="Bad" title={`Mark ${ip} Bad`} text={badQuestion(ip)} confirmLabel="Yes"
        variant={v(1)} onConfirm={() => onMark(1)} disabled={busy}
      />
    </div>
  );
}
