import { useCallback, useEffect, useRef, useState } from 'react';
import type { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { useHost } from '../../app/HostProvider';
import { HostRequestError } from '../../host/host-client';
import type { Draft } from './graph-edit';
import { newWorkflowDraft } from './workflow-file';

/** What the editor opened: the stored document and when it was saved (absent for a new one). */
export interface Opened {
  doc: Draft;
  /** The id it is stored under (a rename saves with `replaces`). */
  storedId?: string;
  updatedAt?: string;
}

export type LoadState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; opened: Opened; generation: number };

export type SaveOutcome = { ok: true; opened: Opened } | { ok: false; conflict: boolean; message: string };

/** The route key of a new workflow (no stored id can be empty). */
const NEW = '';

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Loads the workflow to edit (or starts a new one) once the host is connected, and saves it back. */
export function useStoredWorkflow(workflowId: string | undefined) {
  const { client, connection } = useHost();
  const [state, setState] = useState<LoadState>({ status: 'loading' });
  const open = connection === 'open';
  /**
   * What the editor holds now, by route: loaded once, so a reconnect keeps unsaved edits, and an id
   * the editor itself saved under (a new workflow, a rename) is adopted as the route follows it.
   */
  const holding = useRef<string>(undefined);
  const loads = useRef(0);
  const key = workflowId ?? NEW;

  useEffect(() => {
    if (!open || key === holding.current) return;
    let live = true;
    const load = workflowId === undefined
      ? client.request('workflows.list', {}).then((r): Opened => ({ doc: newWorkflowDraft(r.workflows.map((w) => w.id)) }))
      : client.request('workflows.get', { id: workflowId }).then((r): Opened => ({ doc: r.workflow, storedId: r.workflow.id, updatedAt: r.updated_at }));
    load.then(
      (opened) => {
        if (!live) return;
        holding.current = key;
        setState({ status: 'ready', opened, generation: ++loads.current });
      },
      (err: unknown) => live && setState({ status: 'error', message: err instanceof HostRequestError && err.code === 'not_found' ? `There is no workflow “${workflowId}” on this host.` : errorText(err) }),
    );
    return () => {
      live = false;
    };
  }, [client, open, workflowId, key]);

  /** `force`: overwrite what someone else saved since (after a conflict, on the person's say). */
  const save = useCallback(
    async (doc: HostedWorkflowGraph, from: Opened, force = false): Promise<SaveOutcome> => {
      try {
        if (from.storedId === undefined || from.storedId !== doc.id) {
          // A new id must not silently replace another workflow stored under it.
          const { workflows } = await client.request('workflows.list', {});
          if (workflows.some((w) => w.id === doc.id)) return { ok: false, conflict: false, message: `A workflow with the id “${doc.id}” already exists. Choose another id in the Workflow panel.` };
        }
        const r = await client.request('workflows.save', {
          workflow: doc,
          ...(from.storedId !== undefined && from.storedId !== doc.id ? { replaces: from.storedId } : {}),
          ...(from.updatedAt !== undefined && !force ? { if_updated_at: from.updatedAt } : {}),
        });
        return { ok: true, opened: { doc, storedId: r.id, updatedAt: r.updated_at } };
      } catch (err) {
        const conflict = err instanceof HostRequestError && err.code === 'conflict';
        return {
          ok: false,
          conflict,
          message: conflict ? 'Someone else saved this workflow since you opened it (another window or the CLI). Overwrite it with yours, or reload to see theirs.' : `Not saved: ${errorText(err)}`,
        };
      }
    },
    [client],
  );

  const adopt = useCallback((id: string) => {
    holding.current = id;
  }, []);

  return { state, save, adopt };
}
