import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../../app/HostProvider';
import { routeHref } from '../../app/routing';
import type { RunRow } from '../../db/db';
import { laterChildren, restartedAs } from './restarted-as';

/**
 * On the page of a child run a stop cut off (issue 26's restart of a workflow node): the run its node started
 * in its place, with a link, so a person who opens the interrupted run finds the one that went on.
 */
export function RestartedAs({ run }: { run: RunRow }) {
  const { db } = useHost();
  const parentId = run.parent?.run_id;
  const cutOff = run.status === 'interrupted' && parentId !== undefined;
  const next = useLiveQuery(async () => {
    if (!cutOff) return undefined;
    const later = laterChildren(run, await db.runs.get(parentId));
    return later.length === 0 ? undefined : restartedAs(run, await db.runs.bulkGet(later));
  }, [db, cutOff, parentId, run.run_id, run.parent?.invocation_id]);
  if (next === undefined) return null;
  return (
    // A child's id starts with its parent's, so the link says what it is rather than a prefix that names the parent.
    <a className="muted" href={routeHref({ name: 'run', runId: next, tab: 'nodes' })} title={next} data-testid="run-restarted-as">
      its node started it again after the stop: open the run that went on
    </a>
  );
}
