import { useEffect, useRef, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { useHost } from '../app/HostProvider';
import { readEventCursor } from '../db/event-cursor';
import { RUNS_DELETED_KEY } from '../db/delete-runs';

/** How often at most an answer is asked again while events keep arriving (a run in progress). */
const REASK_MS = 1_000;
/** Not asked yet (any `seen`, undefined included while the page's own query first runs, differs). */
const NEVER = Symbol('never asked');

interface Asking {
  key: string;
  /** The history as this page saw it when last asked. */
  seen: string | undefined | typeof NEVER;
  at: number;
  busy: boolean;
  again: boolean;
  live: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export interface HistoryAnswer<T> {
  /** The latest answer (kept while the next is asked); undefined until the first comes. */
  value?: T;
  /** Why the host could not answer, in words (the last answer, if any, is still shown). */
  problem?: string;
}

/**
 * An answer the host computes from its history (issue 26: the page does not mirror what it does not
 * show), asked when the connection opens and again as the history changes: when this page stores
 * new events or deletes runs, at most once a second, one request at a time. `key` names the
 * question (its parameters): a new key asks at once and drops the previous answer, unless both are of
 * one `group` (a list asked for more rows): then the previous answer stays until the new one comes.
 */
export function useHistoryAnswer<T>(key: string | undefined, ask: () => Promise<T>, options: { group?: string } = {}): HistoryAnswer<T> {
  const { db, connection } = useHost();
  const open = connection === 'open';
  // What moves when the history does, as this page sees it: two single-row reads, whatever the history's size.
  const seen = useLiveQuery(async () => `${(await readEventCursor(db))?.position ?? 0}:${JSON.stringify((await db.table('settings').get(RUNS_DELETED_KEY))?.value ?? '')}`, [db]);
  const [answer, setAnswer] = useState<HistoryAnswer<T> & { key?: string; group?: string }>({});
  const group = options.group;
  const asking = useRef<Asking>(undefined);
  const askRef = useRef(ask);
  // The latest `ask` (it closes over the caller's values), for the requests the effect makes.
  useEffect(() => {
    askRef.current = ask;
  });

  useEffect(() => {
    if (key === undefined || !open) return undefined;
    const state = asking.current?.key === key ? asking.current : (asking.current = { key, seen: NEVER, at: 0, busy: false, again: false, live: true });
    state.live = true;
    // The latest wanted state of the history: an answer in flight is followed by one more when it moved meanwhile.
    const run = (): void => {
      if (state !== asking.current || !state.live) return;
      if (state.busy) {
        state.again = true;
        return;
      }
      const wait = state.at + REASK_MS - Date.now();
      if (wait > 0) {
        state.timer ??= setTimeout(() => {
          state.timer = undefined;
          run();
        }, wait);
        return;
      }
      state.busy = true;
      state.again = false;
      state.at = Date.now();
      askRef.current()
        .then(
          (value) => {
            if (state === asking.current) setAnswer({ key, group, value });
          },
          (err: unknown) => {
            const problem = err instanceof Error ? err.message : String(err);
            if (state === asking.current) setAnswer((prior) => ({ key, group, ...(prior.key === key && prior.value !== undefined ? { value: prior.value } : {}), problem }));
          },
        )
        .finally(() => {
          state.busy = false;
          if (state.again) run();
        });
    };
    if (state.seen !== seen) {
      state.seen = seen;
      run();
    }
    return () => {
      state.live = false;
      if (state.timer) clearTimeout(state.timer);
      state.timer = undefined;
      // Asked again when the effect comes back (a new `seen`, the connection again).
      state.seen = NEVER;
    };
    // `group` only labels the answers the effect stores.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, open, seen]);

  const current = answer.key === key || (group !== undefined && answer.group === group && answer.problem === undefined) ? answer : {};
  if (key !== undefined && !open && current.value === undefined) return { problem: 'The host is not connected: these figures come from its history.' };
  return { ...(current.value !== undefined ? { value: current.value } : {}), ...(current.problem !== undefined ? { problem: current.problem } : {}) };
}
