import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { HostParamsParsed, HostResult } from '@shared/contracts/host-api';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { AgentSpec } from '@shared/contracts/spec';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import { ReplayError } from '@shared/replay/replay-spec';
import { RequestError } from '../registry/request-error';
import { replayableWorkflowStart } from '@shared/replay/workflow-replay';
import type { LoadedWorkflow } from '../workflow/load-workflow';
import type { RunWorkflowOptions } from '../workflow/run-workflow';
import { planReplay } from './replay-plan';
import { planWorkflowRun } from './workflow-replay-plan';
import { replayableTrial } from '../learning/trial/replay-trial';

export interface HostReplayDeps {
  /** The run's events from the host's journal, in order. */
  events: (runId: string) => RunEvent[];
  /** The demo workflows (the host knows them by id). */
  demos: () => Promise<HostedWorkflow[]>;
  /** The page's workflow expanded from the host's registry (throws the request's error). */
  expand: (workflow: HostedWorkflow) => AgentSpec;
  /** Folder the host's specs resolve against. */
  dataDir: string;
  privacy: () => PrivacyPolicy;
  start: (spec: AgentSpec, overrides: { dry_run: boolean }, privacy: PrivacyPolicy, extra: { replayOf: string }) => { run_id: string };
  /** A workflow (graph) the host keeps, ready to run; undefined when it keeps none of that id. */
  workflow: (id: string) => LoadedWorkflow | undefined;
  startWorkflow: (loaded: LoadedWorkflow, inputs: Record<string, unknown>, privacy: PrivacyPolicy, extra: Pick<RunWorkflowOptions, 'replay'>) => { run_id: string };
  /** A student trial's run replayed on its recorded candidate replies (issue 31; learning/trial/replay-trial.ts). */
  trial?: (events: readonly RunEvent[]) => Promise<{ run_id: string; gaps: string[] }>;
}

/** `runs.replay`: a recorded agent run started again on its answers; a run that cannot be is refused, saying why. */
export async function replayHostRun(params: HostParamsParsed<'runs.replay'>, deps: HostReplayDeps): Promise<HostResult<'runs.replay'>> {
  const events = deps.events(params.run_id);
  try {
    // A student trial: no model, no tool; its rounds compared again by today's code.
    if (deps.trial && replayableTrial(events, params.run_id)) return await deps.trial(events);
    const graphStart = replayableWorkflowStart(events, params.run_id);
    if (graphStart) {
      const plan = planWorkflowRun(events, graphStart, deps.workflow(graphStart.workflow_id), { live: params.tools === 'live' });
      return { run_id: deps.startWorkflow(plan.workflow, plan.inputs, deps.privacy(), { replay: plan.replay }).run_id, gaps: plan.gaps };
    }
    const specId = events.find((e): e is RunEventOf<'run.started'> => e.type === 'run.started')?.spec_id;
    const workflow = params.workflow ?? (await deps.demos()).find((w) => w.id === specId);
    const plan = planReplay(events, params.run_id, workflow ? { spec: deps.expand(workflow), specDir: deps.dataDir } : undefined, { live: params.tools === 'live' });
    const started = deps.start(plan.spec, { dry_run: params.tools === 'dry_run' }, deps.privacy(), { replayOf: plan.replayOf });
    return { run_id: started.run_id, gaps: plan.gaps };
  } catch (err) {
    if (err instanceof ReplayError) throw new RequestError(err.problem === 'not_found' ? 'not_found' : 'invalid_params', err.message);
    throw err;
  }
}
