import { useMemo } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunEvent } from '@shared/contracts/events';
import { useHost } from '../../app/HostProvider';
import { runEvents } from '../../db/db';
import { deriveInvocations, nodeStates } from '../../db/derive-invocations';
import type { NodeRunState } from './flow-convert';
import { deriveSupervision, type SupervisionView } from '../../workflow-supervisor/derive-supervision';
import { useHeldRun } from '../run/use-held-run';

export interface RunView {
  states: Record<string, NodeRunState>;
  /** The workflow supervisor's escalations and verdicts in the run (badges, "deciding…"). */
  supervision: SupervisionView;
  /** The run's end, once run.finished is in. */
  finished?: Extract<RunEvent, { type: 'run.finished' }>;
}

/** A run's node states, live from the events the page stores (Dexie). */
export function useRunStates(runId: string | undefined): RunView {
  const { db } = useHost();
  const events = useLiveQuery(() => (runId ? runEvents(db, runId) : Promise.resolve([])), [db, runId]);
  // Its events come from the host's history when this browser does not keep them (issue 26).
  useHeldRun(runId);
  return useMemo(() => {
    const list = events ?? [];
    const finished = list.find((e): e is Extract<RunEvent, { type: 'run.finished' }> => e.type === 'run.finished');
    return { states: nodeStates(deriveInvocations(list)), supervision: deriveSupervision(list), ...(finished ? { finished } : {}) };
  }, [events]);
}

