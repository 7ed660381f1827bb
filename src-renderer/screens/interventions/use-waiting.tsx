import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import Dexie from 'dexie';
import { useLiveQuery } from 'dexie-react-hooks';
import type { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { PendingAsk } from '@shared/contracts/person-ask';
import { useHost } from '../../app/HostProvider';
import type { RunRow, StewardDb } from '../../db/db';
import { usePersonAsks } from '../asks/use-person-asks';
import { askedIn, mergeWaiting, titleWithCount, waitingByWorkflow, type AskedQuestion, type WaitingItem } from './waiting';

export interface WaitingState {
  items: WaitingItem[];
  /** MCP servers' questions to the person (elicitation, sampling to allow), held by the host while their call waits. */
  asks: PendingAsk[];
  /** Everything that waits for the person: the sidebar's badge and the page title. */
  count: number;
  /** Per workflow id: how many of its questions wait. */
  byWorkflow: Map<string, number>;
}

/** Events after which what waits may have changed: the host's list is asked again. */
const CHANGES_WAITING = new Set<RunEvent['type']>(['intervention.requested', 'intervention.answered', 'run.finished']);

const EMPTY: WaitingState = { items: [], asks: [], count: 0, byWorkflow: new Map() };
const WaitingContext = createContext<WaitingState>(EMPTY);

/** What the host holds waiting; undefined while it is not connected or has not answered. */
function useHostPending(): Intervention[] | undefined {
  const { client, connection } = useHost();
  const [pending, setPending] = useState<Intervention[]>();
  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    let asked = 0;
    const fetch = () => {
      const mine = ++asked;
      client.request('interventions.pending', {}).then(
        // Only the latest answer counts: an earlier one may predate an answer given since.
        (r) => live && mine === asked && setPending(r.interventions),
        (err: unknown) => console.warn('[steward] interventions.pending', err),
      );
    };
    fetch();
    const off = client.onEvents((events) => {
      if (events.some((e) => CHANGES_WAITING.has(e.type))) fetch();
    });
    return () => {
      live = false;
      off();
    };
  }, [client, connection]);
  // Disconnected, the host's last word may be stale: the page's own record stands in.
  return connection === 'open' ? pending : undefined;
}

/** The page's side: runs stored as waiting (and the runs the host named), their open questions, workflow names. */
async function readStored(db: StewardDb, hostRunIds: readonly string[]) {
  const waiting = await db.runs.where('status').equals('waiting').toArray();
  const known = new Set(waiting.map((r) => r.run_id));
  const others = (await db.runs.bulkGet(hostRunIds.filter((id) => !known.has(id)))).filter((r): r is RunRow => r !== undefined);
  const runs = [...waiting, ...others];
  const asked = new Map<string, AskedQuestion[]>();
  const answered = new Set<string>();
  for (const run of runs) {
    const events = await db.events
      .where('[run_id+seq]')
      .between([run.run_id, Dexie.minKey], [run.run_id, Dexie.maxKey])
      .filter((e) => e.type === 'node.invocation' || e.type === 'intervention.requested' || e.type === 'intervention.answered')
      .toArray();
    asked.set(run.run_id, askedIn(events));
    for (const e of events) if (e.type === 'intervention.answered') answered.add(e.intervention_id);
  }
  const workflowNames = new Map((await db.workflows.toArray()).map((w) => [w.id, w.name]));
  return { runs, asked, answered, workflowNames };
}

/** Keeps what waits for a person, for the sidebar, the title, the workflow cards and the Interventions view. */
export function WaitingProvider({ children }: { children: ReactNode }) {
  const { db } = useHost();
  const pending = useHostPending();
  const hostRunIds = useMemo(() => [...new Set((pending ?? []).map((i) => i.run_id))].sort(), [pending]);
  const stored = useLiveQuery(() => readStored(db, hostRunIds), [db, hostRunIds.join('\n')]);
  const asks = usePersonAsks();
  const state = useMemo<WaitingState>(() => {
    const items = mergeWaiting({ pending, runs: stored?.runs ?? [], asked: stored?.asked ?? new Map(), answered: stored?.answered, workflowNames: stored?.workflowNames ?? new Map() });
    return { items, asks, count: items.length + asks.length, byWorkflow: waitingByWorkflow(items) };
  }, [pending, stored, asks]);

  const count = state.count;
  useEffect(() => {
    document.title = titleWithCount(document.title, count);
  }, [count]);

  return <WaitingContext.Provider value={state}>{children}</WaitingContext.Provider>;
}

export function useWaiting(): WaitingState {
  return useContext(WaitingContext);
}
