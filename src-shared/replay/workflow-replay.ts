import { z } from 'zod';
import type { RunEvent, RunEventOf } from '../contracts/events';
import { ToolExecution } from '../contracts/round';
import { ModelScript, ScriptEntry } from '../contracts/script';
import { SupervisionSpec } from '../contracts/spec';
import { ScsMode } from '../scs/contracts';
import { recordedScript, scriptEntryOf } from './replay-script';
import { isPatternRecord, planPatternReplay, PatternReplay } from '../pattern/replay-plan';
import { ReplayError } from './replay-spec';

/**
 * What one node invocation of a recorded workflow run gives its replay: an agent node its recorded
 * answers (a replay script, with the supervision, SCS mode and task it ran with, to check the replay
 * rebuilds the same agent); a tool node its recorded result (given back by a dry replay) and the
 * recorded verdicts of its reviewer.
 */
export const InvocationReplay = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('agent'), script: ModelScript, supervision: SupervisionSpec, task: z.string(), scs_mode: ScsMode.optional() }).strict(),
  /** `executions`: a streaming node's, by round (element); `execution`: a single call's. */
  z.object({ kind: z.literal('tool'), execution: ToolExecution.optional(), executions: z.array(ToolExecution.nullable()).optional(), review: z.array(ScriptEntry) }).strict(),
  /** A pattern node: its member runs' answers and its judgments, a person's included (pattern/replay-plan.ts). */
  PatternReplay,
  /**
   * A workflow node: the child run it started last (a start cut off by a stop is followed by another), the
   * one a person replays on its own. Read from the recorded `subworkflow.started`, never from the id's text.
   */
  z.object({ kind: z.literal('workflow'), child_run_id: z.string().min(8) }).strict(),
]);
export type InvocationReplay = z.infer<typeof InvocationReplay>;

/** A recorded workflow run made ready to run again (kept in a waiting replay's checkpoint). */
export const WorkflowReplayPlan = z
  .object({
    /** The recorded run (for a replay of a replay: that replay's recorded run). */
    replay_of: z.string().min(1),
    /** Tools execute (through the boundary, as any run); otherwise tool nodes give back their recorded results and agents execute nothing. */
    live: z.boolean(),
    invocations: z.record(z.string(), InvocationReplay),
  })
  .strict();
export type WorkflowReplayPlan = z.infer<typeof WorkflowReplayPlan>;

/** The workflow.started of a finished workflow run; anything else is refused, saying why. */
export function replayableWorkflowStart(events: readonly RunEvent[], runId: string): RunEventOf<'workflow.started'> | undefined {
  if (events.length === 0) throw new ReplayError('not_found', `no events of run "${runId}" were found`);
  const started = events.find((e): e is RunEventOf<'workflow.started'> => e.type === 'workflow.started');
  if (!started) return undefined;
  if (!events.some((e) => e.type === 'run.finished')) {
    throw new ReplayError('unsupported', `run "${runId}" has not ended (it is running or waits for a person): replay it once it has ended`);
  }
  return started;
}

/** One invocation's events as its own run's: its agent.started read as run.started, the invocation id dropped. */
export function invocationEvents(events: readonly RunEvent[], invocationId: string): RunEvent[] {
  return events.flatMap((e): RunEvent[] => {
    if (e.invocation_id !== invocationId) return [];
    const { invocation_id: _id, ...own } = e;
    return [own.type === 'agent.started' ? { ...own, type: 'run.started' } : own];
  });
}

/** Invocation ids in the order the run first named them. */
function invocationIds(events: readonly RunEvent[]): string[] {
  return [...new Set(events.flatMap((e) => (e.type === 'node.invocation' && e.invocation_id !== undefined ? [e.invocation_id] : [])))];
}

/**
 * The replay of a recorded workflow run: per agent invocation its recorded answers, per tool
 * invocation its recorded result and review verdicts. `live` is refused for answers stored masked or
 * trimmed (a live tool would get the mask, or half a file), as for an agent run.
 */
export function planWorkflowReplay(events: readonly RunEvent[], started: RunEventOf<'workflow.started'>, options: { live: boolean }): { plan: WorkflowReplayPlan; gaps: string[] } {
  const gaps: string[] = [];
  const liveProblems: string[] = [];
  const invocations: Record<string, InvocationReplay> = {};
  for (const id of invocationIds(events)) {
    const own = invocationEvents(events, id);
    if (isPatternRecord(own)) {
      const recorded = planPatternReplay(id, own);
      gaps.push(...recorded.gaps);
      liveProblems.push(...recorded.liveProblems);
      invocations[id] = recorded.replay;
      continue;
    }
    const agent = own.find((e): e is RunEventOf<'run.started'> => e.type === 'run.started');
    if (agent) {
      const recorded = recordedScript(own);
      gaps.push(...recorded.gaps.map((g) => `${id}: ${g}`));
      liveProblems.push(...recorded.liveProblems.map((p) => `${id}: ${p}`));
      const scs = own.find((e) => e.type === 'scs.enabled');
      invocations[id] = { kind: 'agent', script: recorded.script, supervision: agent.supervision, task: agent.task, ...(scs?.type === 'scs.enabled' ? { scs_mode: scs.mode } : {}) };
      continue;
    }
    // A workflow node's own child runs (an agent's workflow tool calls carry their tool and belong to the agent).
    const children = own.flatMap((e) => (e.type === 'subworkflow.started' && e.tool === undefined ? [e.child_run_id] : []));
    const lastChild = children.at(-1);
    if (lastChild !== undefined) {
      invocations[id] = { kind: 'workflow', child_run_id: lastChild };
      continue;
    }
    const executed = own.find((e): e is RunEventOf<'tool.executed'> => e.type === 'tool.executed');
    const review = own.flatMap((e) => (e.type === 'verdict.received' ? [e.attempt.reply ? scriptEntryOf(e.attempt.reply) : { error: e.attempt.problem ?? 'the teacher call failed' }] : []));
    if (!executed && review.length === 0) continue;
    if (executed && !options.live && executed.execution.content.startsWith('(not kept by the trace profile')) {
      gaps.push(`${id}: its result was not kept by the trace profile; a dry replay gives back that note instead`);
    }
    // A stream executed once per element, each in its own round: a dry replay gives each back in turn.
    const rounds = own.flatMap((e) => (e.type === 'tool.executed' ? [e] : []));
    const executions = rounds.length > 1 ? Array.from({ length: Math.max(...rounds.map((e) => e.round)) + 1 }, (_, r) => rounds.find((e) => e.round === r)?.execution ?? null) : undefined;
    invocations[id] = { kind: 'tool', review, ...(executed ? { execution: executed.execution } : {}), ...(executions ? { executions } : {}) };
  }
  if (options.live && liveProblems.length > 0) {
    const more = liveProblems.length > 1 ? ` and ${liveProblems.length - 1} more` : '';
    throw new ReplayError('not_rebuildable', `live tools would execute what the trace stored, not what the model said (${liveProblems[0]}${more}): replay it as a dry run`);
  }
  return { plan: { replay_of: started.replay_of ?? started.run_id, live: options.live, invocations }, gaps };
}
