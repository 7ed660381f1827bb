import { scsMachine, type ScsContext, type ScsInput } from '../machine';
import { abstractState, type PathEvent, type ScsPath } from './path-alphabet';
import { ScsHarness, type RoleName, type ScsJournalEntry } from './scripted-roles';

/**
 * Replays a generated path against a live SCS actor: each role answer on the path is given by the
 * scripted committee/monitor when the live machine asks for it, each run-loop event is sent, and
 * after every step the live state is compared with the path's, so the live machine decides every
 * step itself and a divergence is reported rather than followed.
 */

export interface ScsTrace {
  input: ScsInput;
  journal: ScsJournalEntry[];
  finalValue: string;
  status: string;
  context: ScsContext;
  /** Every state the live actor entered, transient ones included (from microsteps). */
  statesVisited: Set<string>;
  transitionsTaken: Set<string>;
  /** Where the live actor disagreed with the generated path (empty when they agree). */
  mismatches: string[];
}

function roleOf(event: PathEvent): RoleName | undefined {
  const m = /^xstate\.(?:done|error)\.actor\.(committee|monitor)$/.exec(event.type);
  return m?.[1] as RoleName | undefined;
}

async function apply(h: ScsHarness, event: PathEvent): Promise<void> {
  const role = roleOf(event);
  if (role && 'output' in event) return h.answer(role, event.output);
  if (role && 'error' in event) return h.fail(role, event.error.message);
  if (event.type === 'ROUND_DONE' || event.type === 'FINISH_REQUESTED') return h.send(event);
  throw new Error(`no way to replay ${event.type}`);
}

export async function replayScsPath(path: ScsPath, input: ScsInput, machine: typeof scsMachine = scsMachine): Promise<ScsTrace> {
  const h = await ScsHarness.start(input, machine);
  const mismatches: string[] = [];

  for (let i = 1; i < path.steps.length; i++) {
    const step = path.steps[i];
    if (!step) break;
    try {
      await apply(h, step.event);
    } catch (err) {
      mismatches.push(`step ${i}: ${err instanceof Error ? err.message : String(err)} (path expects ${step.event.type})`);
      break;
    }
    const live = h.actor.getSnapshot();
    if (abstractState(live) !== abstractState(step.state)) {
      mismatches.push(`step ${i}: live ${String(live.value)} ≠ path ${String(step.state.value)}: ${abstractState(live)} vs ${abstractState(step.state)}`);
      break;
    }
  }

  const final = h.actor.getSnapshot();
  h.stop();
  const statesVisited = new Set<string>(['planning']);
  const transitionsTaken = new Set<string>();
  for (const e of h.journal) {
    if (e.kind !== 'step') continue;
    statesVisited.add(e.value);
    for (const t of e.transitions) transitionsTaken.add(t);
  }
  return {
    input,
    journal: h.journal,
    finalValue: String(final.value),
    status: final.status,
    context: final.context,
    statesVisited,
    transitionsTaken,
    mismatches,
  };
}
