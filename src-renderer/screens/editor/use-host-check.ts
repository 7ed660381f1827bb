import { useEffect, useState } from 'react';
import type { GraphProblem } from '@shared/workflow/validate-graph';
import { useHost } from '../../app/HostProvider';
import type { Draft } from './graph-edit';

/** Quiet time after the last edit before the host checks the draft. */
export const CHECK_DEBOUNCE_MS = 350;

/** Where the problems shown come from: the host's check of this very draft, or the page's own while the host checks. */
export type CheckState = 'checked' | 'checking' | 'offline';

export interface HostCheck {
  problems: GraphProblem[];
  /** The schema holds: the draft can be saved. */
  valid: boolean;
  state: CheckState;
}

/**
 * The editor's problems are the host's (workflows.validate: the checks `steward validate` makes,
 * tool arguments against the schemas its servers list included), asked for shortly after the
 * last edit. Until the answer for this exact draft is in, the page's own check is shown and the
 * state says so: "No problems" is claimed only once the host has said it.
 */
export function useHostCheck(draft: Draft, local: { problems: GraphProblem[]; valid: boolean }): HostCheck {
  const { client, connection } = useHost();
  const key = JSON.stringify(draft);
  const [answer, setAnswer] = useState<{ key: string; problems: GraphProblem[]; saveable: boolean }>();
  const [failed, setFailed] = useState<string>();
  useEffect(() => {
    if (connection !== 'open') return;
    let current = true;
    const timer = setTimeout(() => {
      client
        .request('workflows.validate', { workflow: JSON.parse(key) as unknown })
        .then((r) => current && setAnswer({ key, problems: r.problems, saveable: r.saveable }))
        // A host that cannot check leaves the page's own problems in place, saying they are unchecked (never a lasting "checking…").
        .catch(() => current && setFailed(key));
    }, CHECK_DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, connection, key]);
  if (answer?.key === key) return { problems: answer.problems, valid: answer.saveable, state: 'checked' };
  return { ...local, state: connection !== 'open' || failed === key ? 'offline' : 'checking' };
}
