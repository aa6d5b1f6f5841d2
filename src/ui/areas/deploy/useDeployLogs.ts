/**
 * The log cards' state (000 §4 Deploy): per server name, the lines of `deploy_logs_{name}`, a spinner
 * between the start and end markers, and the card's colour: in a test pass the test marker turns it
 * green ('Test deploy: OK!') and any other output red; a deploy goes green or red by its end marker.
 * Logs clear when the deploy type changes (the page's type, or a deploy of the other type arriving).
 */
import { useCallback, useEffect, useState } from 'react';
import { DEPLOY_CARD_LINES, deployLogEvent, type DeployLogEvent, type DeployType } from '../../../contracts/deploy.js';
import { on } from '../../api/socket.js';

export interface CardState {
  type: DeployType | null;
  lines: string[];
  running: boolean;
  /** null until known (shown as '--'). */
  status: 'ok' | 'fail' | null;
  testOk: boolean;
  /** The node's outcome from the end marker: 'ok', the exit code or the error. */
  result: string | null;
}

export const emptyCard = (type: DeployType | null = null): CardState => ({ type, lines: [], running: false, status: null, testOk: false, result: null });

/** One event applied to a card (pure, for the hook and for tests). */
export function applyDeployEvent(prev: CardState, e: DeployLogEvent): CardState {
  const c = prev.type === e.type ? { ...prev } : emptyCard(e.type);
  if (e.marker === 'start') return { ...c, running: true, status: null, testOk: false, result: null, lines: [...c.lines, '—— start ——'].slice(-DEPLOY_CARD_LINES) };
  if (e.marker === 'end') {
    const status = e.type === 'web_test' ? (c.testOk && e.ok ? 'ok' : 'fail') : e.ok ? 'ok' : 'fail';
    const result = e.ok ? 'ok' : (e.error ?? (e.code !== undefined && e.code !== null ? `exit code ${e.code}` : 'failed'));
    return { ...c, running: false, status, result };
  }
  if (e.marker === 'test') return { ...c, testOk: true, status: 'ok' };
  const lines = [...c.lines, e.line].slice(-DEPLOY_CARD_LINES);
  // A test pass: output other than the test marker turns the card red (000 §4).
  return e.type === 'web_test' ? { ...c, lines, status: 'fail', testOk: false } : { ...c, lines };
}

export function useDeployLogs(names: string[], type: DeployType) {
  const [cards, setCards] = useState<Record<string, CardState>>({});
  /** End markers seen (any type, any admin's deploy): the history reloads after them. */
  const [ends, setEnds] = useState(0);
  const key = names.join('\u0000');

  // The page's type changed: every card starts empty.
  useEffect(() => setCards({}), [type]);

  useEffect(() => {
    const offs = names.map((n) =>
      on(deployLogEvent(n), (e: DeployLogEvent) => {
        setCards((all) => ({ ...all, [n]: applyDeployEvent(all[n] ?? emptyCard(e.type), e) }));
        if (e.marker === 'end') setEnds((x) => x + 1);
      }),
    );
    return () => offs.forEach((off) => off());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  const clear = useCallback(() => setCards({}), []);
  return { cards, clear, ends };
}
