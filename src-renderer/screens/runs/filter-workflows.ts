import { useEffect, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { StewardDb } from '../../db/db';
import type { HostClient } from '../../host/host-client';
import { useHost } from '../../app/HostProvider';

/** One choice of the Runs list's Workflow filter: a workflow id and the name a person knows it by. */
export interface WorkflowChoice {
  id: string;
  name: string;
}

/**
 * The choices from every source, one per id, by name. The first source that names an id wins: a
 * stored workflow's current name before the name an older run recorded.
 */
export function mergeWorkflowChoices(...sources: readonly (readonly WorkflowChoice[])[]): WorkflowChoice[] {
  const byId = new Map<string, WorkflowChoice>();
  for (const source of sources) for (const w of source) if (w.id !== '' && !byId.has(w.id)) byId.set(w.id, { id: w.id, name: w.name || w.id });
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/**
 * The workflows runs stored here were of (a run's workflow may since have been deleted or renamed,
 * or come from an imported trace), each with the name a run of it ran under. A loose index scan:
 * each step seeks past the workflow before it, so the cost grows with the workflows, not the runs.
 * (A unique-key cursor walks every run's index entry: 305 ms at 60,000 runs of one workflow in
 * Chromium, bench/idb-listing, and this list is asked again after every write to the runs.)
 */
export async function workflowsInHistory(db: StewardDb): Promise<WorkflowChoice[]> {
  return db.transaction('r', db.runs, async () => {
    const found: WorkflowChoice[] = [];
    // Strings above '' only: a run of no workflow ('') has no choice.
    for (let row = await db.runs.where('workflow_id').above('').first(); row; row = await db.runs.where('workflow_id').above(row.workflow_id).first()) {
      found.push({ id: row.workflow_id, name: row.spec_name });
    }
    return found;
  });
}

/** The user's own workflows as the host keeps them in its data folder (the ones `steward run NAME` runs). */
export async function storedWorkflows(client: HostClient): Promise<WorkflowChoice[]> {
  const { workflows } = await client.request('workflows.list', {});
  return workflows.map((w) => ({ id: w.id, name: w.name }));
}

/**
 * Every workflow the filter can narrow to: the user's stored ones, the demos, and any other that
 * runs here were of. The host's list is asked again when the history gains a workflow (a new
 * workflow's first run); without a host the others still fill the list.
 */
export function useFilterWorkflows(): WorkflowChoice[] {
  const { db, client, connection } = useHost();
  const demos = useLiveQuery(() => db.workflows.orderBy('name').toArray(), [db]);
  const history = useLiveQuery(() => workflowsInHistory(db), [db]);
  const [stored, setStored] = useState<WorkflowChoice[]>([]);
  const historyKey = (history ?? []).map((w) => w.id).join('\n');
  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    // A host that cannot list them leaves the demos and the history: the filter still works.
    storedWorkflows(client).then(
      (list) => live && setStored(list),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, connection, historyKey]);
  return mergeWorkflowChoices(stored, (demos ?? []).map((w) => ({ id: w.id, name: w.name })), history ?? []);
}
