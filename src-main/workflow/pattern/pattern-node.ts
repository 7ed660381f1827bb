import { createActor, fromPromise, type SnapshotFrom } from 'xstate';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { JudgmentRecord, PatternOutcome } from '@shared/pattern/contracts';
import { patternMachine, waitingFor, type JudgeAnswer, type JudgeInput, type DispatchInput, type PatternEvent, type WaitingFor } from '@shared/pattern/machine';
import { preferencePairs, type JudgedIteration } from '@shared/pattern/preference';
import type { PatternReplay } from '@shared/pattern/replay-plan';
import { substituteVars } from '@shared/util/substitute';
import { patternSettingsOf, type NodeOf } from '@shared/workflow/document';
import { renderTemplate } from '@shared/workflow/template';
import type { RunCheckpoint } from '../../engine/checkpoint';
import type { FetchFn } from '../../providers/http-call';
import { errorText, failed, type NodeOutcome, type NodeRun } from '../node-outcome';
import { answerJudgment, parkForJudgment, PatternPark } from './human-judgment';
import { isVerifierCaller, verifierJudgment } from '@shared/pattern/verifier-judge';
import { createA2aJudge } from './a2a-judge';
import { createJudge, judgeMessages } from './judge-caller';
import type { ChatMessage } from '@shared/contracts/model';
import { ReplayCursor } from './replay-cursor';
import { RecordedPattern } from './recorded-pattern';
import { createDispatch, MemberWaitsError, type MemberDeps, type MemberPark, type MemberResume } from './member-dispatch';

/**
 * Runs a pattern node (issue 12): the shared loop machine (src-shared/pattern/machine.ts) with the
 * host's effects — members run as agents through their own decision boundary (member-dispatch.ts),
 * `llm` judges answer schema-bound through the provider layer (judge-caller.ts), and a `human`
 * judge goes to `judgeHuman`. Everything is journalled under the node's invocation: each
 * iteration, each judgment, the end, and a preference pair for each rejection an approval fixed.
 */

import type { JudgeHuman } from './judge-human';
export type { HumanJudgment, JudgeHuman } from './judge-human';

export interface PatternNodeDeps extends MemberDeps {
  judgeHuman?: JudgeHuman;
  /**
   * A person answers later (the app, `steward answer`, a terminal): at a human judgment the loop
   * parks with its snapshot and the node waits persisted (human-judgment.ts), instead of judgeHuman.
   */
  parkHuman?: boolean;
  /** For the judges' remote models (tests: a fake server). */
  fetch?: FetchFn;
  /** A replay of a recorded run: members, judges and the person answer as recorded (recorded-pattern.ts); nobody is asked. */
  replay?: { recorded: PatternReplay; replayOf: string };
}

export const NO_PERSON = 'no person can answer here';

/** The models of a pattern node that are not replay scripts: a replay of its recorded run would call them live. */
export function liveModelsOf(node: NodeOf<'pattern'>): string[] {
  const members = node.members.flatMap((m) => (['student', 'teacher'] as const).filter((r) => m.models[r].provider !== 'script').map((r) => `${m.id}.${r}`));
  const judges = Object.entries(node.judge_models).flatMap(([profile, ref]) => (ref.provider !== 'script' ? [`judge ${profile}`] : []));
  const agents = node.judgment.callers.flatMap((c) => (c.kind === 'a2a' ? [`the A2A judge at ${c.url}`] : []));
  return [...members, ...judges, ...agents];
}

/** The node's task: its own `${…}` variables first, then its inputs (text from an input stays text). */
function taskOf(node: NodeOf<'pattern'>, inputs: Record<string, unknown>, deps: MemberDeps): { ok: true; task: string } | { ok: false; message: string } {
  const vars: Record<string, string> = { specDir: deps.specDir, ...(deps.workspace !== undefined ? { workspace: deps.workspace } : {}) };
  let own: string;
  try {
    own = substituteVars(node.task, vars, `pattern node ${node.id}`);
  } catch (err) {
    return { ok: false, message: errorText(err) };
  }
  const task = renderTemplate(own, inputs);
  return task.ok ? { ok: true, task: String(task.value) } : { ok: false, message: `task: ${task.message}` };
}

/** A human judgment that cannot be had here: the system escalates in the person's place, recorded like any judgment. */
function noPersonRecord(waiting: WaitingFor): JudgmentRecord {
  const at = new Date().toISOString();
  return {
    id: waiting.judgment_id,
    step: waiting.step,
    iteration: waiting.iteration,
    attempt: 1,
    caller: { kind: 'system' },
    verdict: { verdict: 'escalated', reason: NO_PERSON, caller: { kind: 'system' } },
    evidence: [],
    verification: { ok: true },
    started_at: at,
    ended_at: at,
  };
}

/** A parked judgment and the person's answer (or the expiry): the loop resumes at the judgment. */
export interface PatternResume {
  /** `checkpoint`: a parked member agent's own (when a member, not a judgment, waited for a person). */
  parked: { intervention: Intervention; pattern?: PatternPark; checkpoint?: RunCheckpoint };
  answer: HumanAnswer;
}

export async function runPatternNode(node: NodeOf<'pattern'>, run: NodeRun, deps: PatternNodeDeps, resume?: PatternResume): Promise<NodeOutcome> {
  const built = taskOf(node, run.invocation.inputs, deps);
  if (!built.ok) return failed('invalid_input', built.message);
  const task = built.task;
  let resumed: { snapshot: PatternPark['snapshot']; event?: PatternEvent } | undefined;
  let memberResume: MemberResume | undefined;
  const parkedMember = resume?.parked.pattern?.member;
  try {
    if (resume && parkedMember) {
      // A member agent waited for a person: the loop resumes mid-dispatch, the member from its own checkpoint.
      if (!resume.parked.checkpoint) throw new Error(`the waiting member ${parkedMember.tag} has no checkpoint to resume (${resume.parked.intervention.id})`);
      memberResume = { ...parkedMember, checkpoint: resume.parked.checkpoint, answer: resume.answer };
      resumed = { snapshot: resume.parked.pattern?.snapshot ?? {} };
    } else {
      resumed = resume ? answerJudgment(run, resume.parked, resume.answer, new Date()) : undefined;
    }
  } catch (err) {
    return failed('internal_error', errorText(err));
  }
  const iterations: JudgedIteration[] = [...(resume?.parked.pattern?.iterations ?? [])];
  let memberWaits: MemberWaitsError | undefined;
  // Replay scripts go on where they stood when the loop parked (members' and judges').
  const replays = new ReplayCursor(resume?.parked.pattern?.replay);
  const recorded = deps.replay ? new RecordedPattern(run.invocation.id, deps.replay.recorded) : undefined;
  // Set while the loop runs: parks it where a member waits for a person (only where the node can wait persisted).
  let parkMember: ((park: MemberPark) => void) | undefined;
  const dispatch = createDispatch(
    node,
    run,
    {
      ...deps,
      ...(recorded && deps.replay ? { recorded: { pattern: recorded, replayOf: deps.replay.replayOf } } : {}),
      // A replay waits again where its member waited (as an agent node's replay does); the answer resumes it on its record.
      ...(deps.parkHuman ? { parkMember: (park: MemberPark) => parkMember?.(park) } : {}),
    },
    replays,
    memberResume,
  );
  // The prompt each judgment put (or would put) to a model judge, by judgment and attempt: recorded with
  // its event, so past judgments can be put to a candidate teacher (issue 31). A replay records none.
  const contexts = new Map<string, ChatMessage[]>();
  const contextKey = (id: string, attempt: number) => `${id}#${attempt}`;
  const prompted = (input: JudgeInput, messages: ChatMessage[]) => void contexts.set(contextKey(input.judgment_id, input.attempt), messages);
  const modelJudge = createJudge(node, task, { privacy: deps.privacy, ollamaHost: deps.ollamaHost, credentials: deps.credentials, fetch: deps.fetch, emit: run.emit, onPrompt: prompted }, replays);
  const a2aJudge = createA2aJudge(node, task, { privacy: deps.privacy, ...(deps.fetch ? { fetch: deps.fetch } : {}), emit: run.emit });
  // A verifier judges the same candidate the same way (a replay too); a model or an A2A agent answers live, or as recorded in a replay.
  const judge = (input: JudgeInput, signal: AbortSignal): Promise<JudgeAnswer> => {
    const caller = input.caller;
    if (isVerifierCaller(caller)) return Promise.resolve().then(() => verifierJudgment(caller, input));
    if (recorded) return Promise.resolve().then(() => recorded.judge(input));
    // An A2A agent is sent its own message: its case is the prompt a model judge gets (the model judge records its own).
    if (caller.kind === 'a2a') prompted(input, judgeMessages(node, task, input));
    return caller.kind === 'a2a' ? a2aJudge(input, caller, signal) : modelJudge(input, signal);
  };
  // A replay's person answers as recorded, at once: the loop does not park.
  const judgeHuman: JudgeHuman | undefined = recorded ? (waiting) => Promise.resolve().then(() => recorded.human(waiting)) : deps.judgeHuman;
  const parkHuman = recorded ? false : deps.parkHuman;
  const machine = patternMachine.provide({
    actors: {
      dispatch: fromPromise<unknown, DispatchInput>(async ({ input, signal }) => {
        const result = await dispatch(input, signal).catch((err: unknown) => {
          if (err instanceof MemberWaitsError) memberWaits = err;
          throw err;
        });
        iterations.push({ step: input.step, iteration: input.iteration, prompt: input.prompt, output: result.output });
        run.emit({ type: 'pattern.iteration', step: input.step, iteration: input.iteration, outputs: result.outputs.map(({ id, member_id }) => ({ id, member_id })), output: result.output });
        return result;
      }),
      judge: fromPromise<JudgeAnswer, JudgeInput>(({ input, signal }) => judge(input, signal)),
    },
  });
  const input = { settings: patternSettingsOf(node), task, id_prefix: run.invocation.id };
  // Resumed: the loop goes on from its parked snapshot (at the judgment), not from scratch.
  const actor = createActor(machine, resumed ? { snapshot: resumed.snapshot as unknown as SnapshotFrom<typeof machine>, input } : { input });
  const human = new AbortController();
  const onAbort = () => actor.send({ type: 'CANCEL', reason: 'the run was cancelled' });
  let parked: NodeOutcome | undefined;
  const outcome = await new Promise<PatternOutcome | undefined>((resolve, reject) => {
    parkMember = (park) => {
      // The machine rests in `dispatching` with the member's dispatch pending: its snapshot re-runs that dispatch on resume.
      queueMicrotask(() => {
        const snapshot = actor.getPersistedSnapshot();
        actor.stop();
        const member = { tag: park.tag, outputs: park.outputs, confidences: park.confidences };
        const pattern = PatternPark.parse(JSON.parse(JSON.stringify({ snapshot, iterations, replay: replays.positions(), member })));
        parked = { status: 'waiting', checkpoint: park.checkpoint, intervention: park.intervention, pattern };
        resolve(undefined);
      });
    };
    actor.on('pattern.judgment_recorded', ({ record }) => {
      const key = contextKey(record.id, record.attempt);
      const context = contexts.get(key) ?? (record.caller.kind === 'human' ? contexts.get(contextKey(record.id, 0)) : undefined);
      contexts.delete(key);
      run.emit({ type: 'pattern.judgment', judgment: record, ...(context ? { context } : {}) });
    });
    actor.on('pattern.ended', ({ outcome: ended }) => resolve(ended));
    actor.on('pattern.waiting', ({ waiting }) => {
      // A person's judgment is a case too: the prompt a model judge would have had for it.
      if (!recorded) contexts.set(contextKey(waiting.judgment_id, 0), judgeMessages(node, task, waiting));
      if (parkHuman) {
        // The loop yields: once the machine rests in `waiting` (nothing runs), its snapshot is parked.
        queueMicrotask(() => {
          const { context } = actor.getSnapshot();
          const snapshot = actor.getPersistedSnapshot();
          actor.stop();
          parked = parkForJudgment(run, { runId: deps.runId, invocationId: run.invocation.id, node, waiting, steps: context.steps.length, previousFeedback: context.feedback, now: new Date() }, snapshot, iterations, replays.positions());
          resolve(undefined);
        });
        return;
      }
      if (!judgeHuman) {
        // The switch point for a person's judgment: without one, the loop ends escalated, recorded.
        const record = noPersonRecord(waiting);
        const { context } = actor.getSnapshot();
        actor.stop();
        run.emit({ type: 'pattern.judgment', judgment: record });
        resolve({ status: 'escalated', approved: false, iterations: context.iterations, judgments: [...context.judgments, record], reason: NO_PERSON });
        return;
      }
      judgeHuman(waiting, human.signal).then(
        (answer) => actor.send(answer.kind === 'expired' ? { type: 'JUDGMENT_EXPIRED', at: answer.at } : { type: 'HUMAN_ANSWERED', answer: answer.answer, started_at: answer.started_at, ended_at: answer.ended_at, ...(answer.who !== undefined ? { who: answer.who } : {}) }),
        (err: unknown) => actor.send({ type: 'CANCEL', reason: `the human judgment failed: ${errorText(err)}` }),
      );
    });
    actor.subscribe({ error: reject });
    run.signal.addEventListener('abort', onAbort, { once: true });
    // A person's answer to a parked judgment: the prompt a model judge would have had, from the parked loop.
    if (resumed && !memberResume && !recorded) {
      const waiting = waitingFor(actor.getSnapshot().context);
      contexts.set(contextKey(waiting.judgment_id, 0), judgeMessages(node, task, waiting));
    }
    actor.start();
    if (resumed?.event) actor.send(resumed.event);
    if (run.signal.aborted) onAbort();
  }).finally(() => {
    run.signal.removeEventListener('abort', onAbort);
    human.abort();
    actor.stop();
  });

  if (!outcome) return parked ?? failed('internal_error', 'the pattern stopped without an end');
  for (const pair of preferencePairs(iterations, outcome.judgments, node.judgment.agreement)) run.emit({ type: 'pattern.preference', ...pair });
  run.emit({ type: 'pattern.ended', status: outcome.status, approved: outcome.approved, iterations: outcome.iterations, ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}) });
  // The replay left its record: what it came to is not the recorded run's, whatever it is.
  if (recorded?.mismatch !== undefined) return failed('replay_mismatch', recorded.mismatch);
  switch (outcome.status) {
    case 'approved':
    case 'accepted':
    case 'unapproved':
      return { status: 'done', outputs: { output: outcome.result ?? '', approved: outcome.approved, iterations: outcome.iterations } };
    case 'escalated':
      return failed('pattern_escalated', outcome.reason ?? 'the judgment escalated');
    case 'failed':
      if (memberWaits && !run.signal.aborted) return failed(MemberWaitsError.code, memberWaits.message);
      return failed(run.signal.aborted ? 'cancelled' : 'pattern_failed', outcome.reason ?? 'the pattern failed');
  }
}
