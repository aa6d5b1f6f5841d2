import { useMemo } from 'react';
import Form from 'react-bootstrap/Form';
import { actionName, parseCronCmd, type CronAction } from '../../../contracts/cron.js';
import { useRpc } from '../../api/hooks.js';
import { plural } from '../../kit/format.js';
import './api.js';

const HTTP_EXAMPLE = 'curl=https://example.com/hook|method=POST|arg=a=1&&b=2';

/** The console's methods a task can run (`cron.getActions`: the RPC registry's state-changing methods). */
export function useCronActions() {
  return useRpc('cron.getActions', undefined);
}

/** The cmd a pick puts in the form: the action, plus `arg=` with the names it requires (`arg=Id=`). */
export const cmdOfAction = (a: CronAction) => (a.args.length ? `${a.cmd}|arg=${a.args.map((k) => `${k}=`).join('&&')}` : a.cmd);

/** The cmd field's example: an action that exists and saves as it is (the first without arguments), or an HTTP request. */
export function cmdPlaceholder(actions: CronAction[] | undefined): string {
  const example = actions?.find((a) => a.args.length === 0);
  return example ? `${example.cmd}   or   ${HTTP_EXAMPLE}` : HTTP_EXAMPLE;
}

/** The action a cmd names (and whether it has an `arg=` part), or null for an HTTP task or a cmd that does not parse. */
function actionOf(cmd: string): { name: string; hasArgs: boolean } | null {
  try {
    const c = parseCronCmd(cmd);
    return c.kind === 'action' ? { name: actionName(c), hasArgs: !!c.args?.length } : null;
  } catch {
    return null;
  }
}

/**
 * A select of the actions that exist (from the registry, grouped by path), which fills the cmd; and a
 * warning when the cmd names an action the console does not have (saving would be refused).
 */
export function CronActionPicker({ actions, error, cmd, onPick }: { actions: CronAction[] | undefined; error?: unknown; cmd: string; onPick: (cmd: string) => void }) {
  const named = actionOf(cmd);
  const current = named?.name ?? null;
  const groups = useMemo(() => {
    const m = new Map<string, CronAction[]>();
    for (const a of actions ?? []) {
      const path = a.name.slice(0, a.name.lastIndexOf('.'));
      m.set(path, [...(m.get(path) ?? []), a]);
    }
    return [...m.entries()];
  }, [actions]);
  const known = !!current && !!actions?.some((a) => a.name === current);
  const picked = known ? actions!.find((a) => a.name === current) : undefined;
  return (
    <Form.Group className="mt-3 mb-1" controlId="f-cron-action">
      <Form.Label className="mb-1 small fw-semibold">Action of the console</Form.Label>
      <Form.Select
        size="sm"
        value={known ? current! : ''}
        disabled={!actions}
        onChange={(e) => {
          const a = actions?.find((x) => x.name === e.currentTarget.value);
          if (a) onPick(cmdOfAction(a));
        }}
        data-testid="cron-action-select"
      >
        <option value="">{actions ? `Choose one of ${plural(actions.length, 'action')} to fill the command…` : error ? 'The actions could not be loaded' : 'Loading the actions…'}</option>
        {groups.map(([path, list]) => (
          <optgroup key={path} label={path}>
            {list.map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}{a.args.length ? ` (needs ${a.args.join(', ')})` : ''}
              </option>
            ))}
          </optgroup>
        ))}
      </Form.Select>
      {picked?.summary && <Form.Text className="text-secondary d-block" data-testid="cron-action-summary">{picked.summary}</Form.Text>}
      {picked && picked.args.length > 0 && !named?.hasArgs && (
        // What the server refuses on save (the method's input schema): say it before the operator saves.
        <div className="small text-danger mt-1" data-testid="cron-action-needs">
          <code>{picked.name}</code> does not run without arguments: it needs {picked.args.join(', ')} (<code>{cmdOfAction(picked)}</code>…).
        </div>
      )}
      {current && actions && !known && (
        <div className="small text-danger mt-1" data-testid="cron-action-unknown">
          This console has no action <code>{current}</code>: choose one from the list.
        </div>
      )}
    </Form.Group>
  );
}
