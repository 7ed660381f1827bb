import type { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { EffectClass } from '@shared/contracts/tool-effect';
import type { StewardDb } from './db';

/**
 * The effect class ("Irreversible write") of the tool a waiting decision calls, as the run recorded
 * it: the tools snapshot of the round the person is asked about, of the same agent (a workflow's
 * nodes each snapshot their own tools). Read from the trace, so it is the same before and after a
 * host restart, on any page, whether or not the run is live; undefined when nothing recorded it.
 */
export function recordedEffect(events: readonly RunEvent[], intervention: Intervention): EffectClass | undefined {
  const decision = intervention.decision;
  if (decision?.decision_type !== 'tool_call') return undefined;
  // Its request says which trace and node it belongs to (a node's intervention names its nested agent's run).
  const asked = events.find((e) => e.type === 'intervention.requested' && e.intervention.id === intervention.id);
  const runId = asked?.run_id ?? intervention.run_id;
  const invocation = asked?.invocation_id;
  let best: { round: number; effect: EffectClass | undefined } | undefined;
  for (const e of events) {
    if (e.type !== 'tools.snapshot' || e.run_id !== runId || e.invocation_id !== invocation || e.round > intervention.round) continue;
    // The asked round's own snapshot, else the latest before it (a resumed run snapshots anew).
    if (best === undefined || e.round >= best.round) best = { round: e.round, effect: e.tools.find((t) => t.name === decision.tool_name)?.effect };
  }
  return best?.effect;
}

/** recordedEffect over the run's events stored in this page's database. */
export async function storedEffect(db: StewardDb, intervention: Intervention): Promise<EffectClass | undefined> {
  if (intervention.decision?.decision_type !== 'tool_call') return undefined;
  // A workflow node's intervention names its nested agent's run (RUN:NODE); its events are the workflow run's.
  const runs = [...new Set([intervention.run_id, intervention.run_id.split(':')[0] ?? intervention.run_id])];
  const events = await db.events
    .where('run_id')
    .anyOf(runs)
    .filter((e) => e.type === 'tools.snapshot' || e.type === 'intervention.requested')
    .toArray();
  return recordedEffect(events, intervention);
}
