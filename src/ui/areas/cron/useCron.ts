import { useCallback, useEffect, useRef, useState } from 'react';
import { CRON_LIST_DEBOUNCE_MS } from '../../../contracts/constants.js';
import type { CronServiceStatus, CronStatusEvent, CronTaskState, CronTaskView } from '../../../contracts/cron.js';
import { useRest } from '../../api/hooks.js';
import { useSocketEvent, useSocketResync, useSocketStatus } from '../../api/socket.js';
import { cronAsk } from './api.js';

const merge = (t: CronTaskView, s: CronTaskState): CronTaskView => {
  const { Id: _, ...state } = s;
  return { ...t, ...state };
};

/**
 * The task list of /cfg/app_cron kept live: `cron.status` events update each card's state (running,
 * start, end, outcome, next run); a list change or the service switch re-reads the list, at most once
 * per 400 ms (000 §9 task-list refresh debounce); a reconnect re-reads it too.
 */
export function useCronList() {
  const list = useRest<CronTaskView[]>('/cfg/app_cron');
  const [service, setService] = useState<CronServiceStatus | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const { reload } = list;

  const reloadSoon = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void reload(), CRON_LIST_DEBOUNCE_MS);
  }, [reload]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const loadService = useCallback(async () => {
    try {
      setService(await cronAsk('cron.getServiceStatus'));
    } catch {
      /* shown as unknown; the toggle stays disabled */
    }
  }, []);
  useEffect(() => void loadService(), [loadService]);

  useSocketEvent('cron.status', (e: CronStatusEvent) => {
    if (e.tasks?.length) {
      const byId = new Map(e.tasks.map((s) => [s.Id, s]));
      list.setData((d) => d?.map((t) => (byId.has(t.Id) ? merge(t, byId.get(t.Id)!) : t)));
    }
    if (e.service !== undefined) {
      setService((s) => (s ? { ...s, service: e.service! } : s));
      reloadSoon();
    }
    if (e.reload) reloadSoon();
  });

  const socket = useSocketStatus();
  useSocketResync(() => {
    reloadSoon();
    void loadService();
  });

  return { list, service, setService, reloadSoon, socket };
}
