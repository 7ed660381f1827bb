import type { RunEvent, RunEventOf } from '../contracts/events';
import type { ModelScript } from '../contracts/script';
import type { AgentSpec } from '../contracts/spec';
import { substituteVars } from '../util/substitute';

export const REPLAY_PROBLEMS = ['not_found', 'unsupported', 'not_rebuildable'] as const;
export type ReplayProblem = (typeof REPLAY_PROBLEMS)[number];

/**
 * Why a run cannot be replayed: its events are not there (`not_found`), it is a kind of run replay
 * does not handle yet (`unsupported`), or its spec cannot be rebuilt as it ran (`not_rebuildable`).
 */
export class ReplayError extends Error {
  override name = 'ReplayError';
  constructor(
    readonly problem: ReplayProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The run.started of an agent run; a workflow run or a trace without its start is refused by name. */
export function replayableStart(events: readonly RunEvent[], runId: string): RunEventOf<'run.started'> {
  if (events.length === 0) throw new ReplayError('not_found', `no events of run "${runId}" were found`);
  if (events.some((e) => e.type === 'workflow.started')) {
    throw new ReplayError('unsupported', `run "${runId}" is a workflow run: replay handles agent runs only for now (run the workflow again instead)`);
  }
  const started = events.find((e): e is RunEventOf<'run.started'> => e.type === 'run.started');
  if (!started) throw new ReplayError('not_found', `the events of run "${runId}" do not include its start (run.started): the trace is incomplete`);
  if (!events.some((e) => e.type === 'run.finished')) {
    throw new ReplayError('unsupported', `run "${runId}" has not ended (it is running or waits for a person): replay it once it has ended`);
  }
  return started;
}

/**
 * The spec a recorded run ran, rebuilt from the workflow it names as that workflow is now: the
 * recorded supervision and SCS mode, both models the replay script (`script`). What the run recorded must
 * match (the workflow's id, its task with variables filled in, its workspace); otherwise the
 * workflow changed since and the replay would not be of that run. Instructions, servers and limits
 * are not recorded on the run: they are the workflow's current ones.
 */
export function replaySpec(
  events: readonly RunEvent[],
  started: RunEventOf<'run.started'>,
  spec: AgentSpec,
  vars: { specDir: string; workspace?: string },
  script: ModelScript,
): AgentSpec {
  const changed = (what: string) =>
    new ReplayError('not_rebuildable', `workflow "${spec.id}" changed since run ${started.run_id} (${what}): a replay would not repeat that run`);
  if (spec.id !== started.spec_id) throw changed(`the run was of "${started.spec_id}"`);
  let task: string;
  try {
    task = substituteVars(spec.task, { ...vars }, 'task');
  } catch (err) {
    throw changed(err instanceof Error ? err.message : String(err));
  }
  if (task !== started.task) throw changed('its task is not the one the run had');
  if (started.workspace !== undefined && vars.workspace !== started.workspace) throw changed(`the run worked in ${started.workspace}, the workflow now in ${vars.workspace ?? 'no folder'}`);
  const scs = events.find((e): e is RunEventOf<'scs.enabled'> => e.type === 'scs.enabled');
  return {
    ...spec,
    supervision: started.supervision,
    scs: scs ? { ...spec.scs, mode: scs.mode } : spec.scs,
    models: { student: { provider: 'script' }, teacher: { provider: 'script' } },
    script,
    script_file: undefined,
  };
}
