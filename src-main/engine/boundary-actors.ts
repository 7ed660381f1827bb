import type { AuthorizationFacts } from '@shared/boundary/authorization';
import type {
  AuthorizeInput,
  CommitInput,
  DeliverInput,
  ExecuteInput,
  ProposeInput,
  ReviewInput,
} from '@shared/boundary/machine';
import type { ChatMessage, ModelReply } from '@shared/contracts/model';
import { OUTPUT_TOKEN_BOUNDS, PROPOSAL_OUTPUT_TOKENS } from '@shared/contracts/output-bound';
import { assertReplyDepth } from '@shared/boundary/parse-candidate';
import type { ToolExecution } from '@shared/contracts/round';
import { maskArguments } from '@shared/util/mask';
import { redactToolArguments } from '@shared/util/redact';
import type { IdempotencyLedger, KeptResult } from '../mcp/idempotency-ledger';
import { idempotencyKey } from '../mcp/idempotency-ledger';
import { storedWhole } from '@shared/util/trim-text';
import { toolCallTraceparent } from '../otlp/trace-ids';
import type { ToolHost, ToolProgress } from '../mcp/tool-host';
import { isInputRequiredPause, type InputContinuation, type InputRequiredPause } from '../mcp/input-pause';
import type { ModelProvider } from '../providers/provider';
import { buildStudentPrompt, buildTeacherPrompt, decisionJsonSchema, maskMessage, verdictJsonSchema, type BuiltPrompt } from '../providers/prompts';
import type { CanonicalHistory } from './canonical-history';
import { createCallSignals } from './call-signals';
import { StudentPromptCache } from './student-prompt';
import { withinDecisionTimeout } from './decision-timeout';
import type { ArgumentProvenance } from '@shared/boundary/provenance';

export type Confirmation = AuthorizationFacts['confirmation'];

/** Asks the user to confirm a tool call; shells without a way to ask answer `unavailable`. */
export type ConfirmTool = (request: {
  run_id: string;
  round: number;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** Values of the arguments that came from earlier tool results (issue 31): a terminal says where from. */
  provenance?: ArgumentProvenance[];
}) => Promise<Exclude<Confirmation, 'not_needed'>>;

export interface BoundaryActorDeps {
  runId: string;
  /** The id of the run whose trace this agent's events are in (a workflow's, for its nodes): each tool call then carries `traceparent` in `_meta`. */
  traceRunId?: string;
  /** The agent's instructions as of this round (SCS adds the supervisor's phase brief). */
  instructions: () => string;
  task: string;
  student: ModelProvider;
  teacher: ModelProvider;
  /** How each role wants its output: structured JSON (format) or native tool calls. */
  studentMode: 'structured' | 'tools';
  toolHost: ToolHost;
  ledger: IdempotencyLedger;
  history: CanonicalHistory;
  confirm: ConfirmTool;
  /** Feedback for the student about the previous round's problem (validation issues, a tool error). */
  feedback: () => string | undefined;
  /** Masks credential values in tool output before it reaches history (and so every prompt). */
  maskText?: (text: string) => string;
  /** Changes whenever what `maskText` masks changes: prompts are then rebuilt from what changed only (student-prompt.ts). */
  maskVersion?: () => number;
  /** Receives sensitive argument values found in candidates, so they are masked by value everywhere. */
  sensitiveFound?: (value: string) => void;
  onExecution: (execution: ToolExecution) => void;
  /** A call in flight reported progress (already thinned out by the tool host). */
  onToolProgress?: (round: number, idempotency_key: string, progress: ToolProgress) => void;
  /** The prompt each proposal was made from (the learning context of the round). */
  onPrompt?: (round: number, messages: ChatMessage[]) => void;
  /** SCS finish gate: asked before a `complete` is authorized; absent when SCS is not active. */
  finishGate?: (round: number) => Promise<{ allowed: boolean }>;
  /** Dry run: every step runs except the tool itself (no call, nothing in the ledger). */
  dryRun?: boolean;
  /**
   * The run's history records tool results whole (its trace profile keeps them): for a call's result small
   * enough to be recorded untrimmed, its key then names the run whose history holds it, so a node a stop cut
   * off is given it again when it starts again (history-ledger.ts keeps no copy of its own).
   */
  keepResults?: boolean;
  /**
   * The student is no model: it says a call someone already wrote (a workflow's tool node: its author's).
   * It reads no prompt, so none is built (the tools' schemas, the history, masked, for every call).
   */
  studentReadsNoPrompt?: boolean;
  /** Phase 1: while the teacher proposes, the student proposes the same round in the shadow. */
  shadow?: (round: number, outcome: { reply: ModelReply } | { error: string }) => void;
  /**
   * The run's own cancellation. The round waits for a tool call's answer (it is not cancelled while
   * executing), so the call itself is aborted: the server is told (`notifications/cancelled`).
   */
  runSignal?: AbortSignal;
  /** The Runtime group's decision timeout (ms): a proposal or a review taking longer fails in words. */
  decisionTimeoutMs?: number;
  /** The Runtime group's model reply bound (output tokens) for every reply; absent: Steward's own bounds. */
  maxOutputTokens?: number;
  /**
   * The run can wait durably (issue 30): a 2026-07-28 server's question for a person pauses the call
   * (its key stays claimed), `onInputPause` hears of it, and the round ends waiting for the person.
   */
  pauseForInput?: boolean;
  onInputPause?: (pause: InputRequiredPause, call: { round: number; idempotency_key: string; server: string; tool: string }) => void;
  /**
   * A paused call the person answered: taken once, by the round that continues it. Its key is the
   * paused round's (already claimed by this very call), so the retry is the same call continuing,
   * never a second write in the ledger.
   */
  continuation?: (server: string, tool: string) => PausedCall | undefined;
}

/** A paused call to continue: its key and what goes back to the server. */
export interface PausedCall {
  idempotency_key: string;
  continueWith: InputContinuation;
}

const MAX_RESULT_CHARS = 100_000;

function capContent(execution: ToolExecution): ToolExecution {
  if (execution.content.length <= MAX_RESULT_CHARS) return execution;
  const dropped = execution.content.length - MAX_RESULT_CHARS;
  return { ...execution, content: `${execution.content.slice(0, MAX_RESULT_CHARS)}\n… (${dropped} more characters not kept)` };
}

/**
 * What the ledger is told of a call's result: only one the history records whole (untrimmed), and the run
 * whose history records it (the history's ledger reads it back from there; one in memory keeps it).
 */
function keptResultOf(execution: ToolExecution, recordedIn: string): { result?: KeptResult; recorded_in?: string } {
  if (!storedWhole(execution.content) || (execution.error !== undefined && !storedWhole(execution.error))) return {};
  return { result: { ok: execution.ok, is_error: execution.is_error, content: execution.content, ...(execution.error !== undefined ? { error: execution.error } : {}) }, recorded_in: recordedIn };
}

/** A proposal request: one JSON decision (structured output) or a native tool call (tools mode). */
function proposalRequest(structured: boolean, snapshot: ProposeInput['snapshot'], messages: ChatMessage[], signal: AbortSignal, maxOutputTokens: number = PROPOSAL_OUTPUT_TOKENS) {
  return { messages, format: structured ? decisionJsonSchema() : undefined, tools: structured ? undefined : snapshot.tools, max_output_tokens: maxOutputTokens, signal };
}

/**
 * The host's effects for one boundary actor, each as XState's `fromPromise` takes it: a function of
 * the step's input and its abort signal. One set serves an agent's whole run (its prompt cache and
 * paused calls are the run's), or one tool node's call; `boundary-actor.ts` runs them.
 */
export interface BoundaryEffects {
  propose(args: { input: ProposeInput; signal: AbortSignal }): Promise<ModelReply>;
  review(args: { input: ReviewInput; signal: AbortSignal }): Promise<ModelReply>;
  authorize(args: { input: AuthorizeInput }): Promise<AuthorizationFacts>;
  commit(args: { input: CommitInput }): Promise<{ history_index: number }>;
  execute(args: { input: ExecuteInput; signal: AbortSignal }): Promise<ToolExecution>;
  deliver(args: { input: DeliverInput }): Promise<void>;
}

/** The host's effects for the boundary machine: models, ledger, history, MCP. */
export function boundaryEffects(deps: BoundaryActorDeps): BoundaryEffects {
  // Authorized continuations of paused calls, by key: the execute step that follows sends their answers.
  const continuing = new Map<string, InputContinuation>();
  // Results of calls made before a stop, found at authorization (read once): the execute step that follows gives them again.
  const givenBack = new Map<string, KeptResult>();

  /** A call made before a stop cut its node off: the result it gave then, as the model got it; nothing is called. */
  const givenAgain = (input: ExecuteInput): ToolExecution => {
    const { tool, decision, idempotency_key } = input;
    const kept = givenBack.get(idempotency_key);
    givenBack.delete(idempotency_key);
    // Authorized only with it found; fail closed all the same: nothing runs.
    if (!kept) throw new Error('the result this call gave before the stop is no longer kept, and the call is never made twice');
    const execution: ToolExecution = {
      server: tool.server,
      tool: tool.name,
      arguments: maskArguments(decision.arguments, tool.effect.sensitive_arguments),
      idempotency_key,
      ok: kept.ok,
      is_error: kept.is_error,
      content: kept.content,
      ...(kept.error !== undefined ? { error: kept.error } : {}),
      duration_ms: 0,
    };
    deps.history.settle(deps.history.length - 1, execution.content, execution.is_error);
    deps.onExecution(execution);
    return execution;
  };
  // Each tool call's signal: aborted when its step is stopped or the run is cancelled.
  const callSignals = createCallSignals(deps.runSignal);
  // With nothing to mask, or a mask that says when it changes, a round builds only what changed.
  const prompts = !deps.maskText ? new StudentPromptCache(undefined) : deps.maskVersion ? new StudentPromptCache({ text: deps.maskText, version: deps.maskVersion }) : undefined;
  return {
    propose: ({ input, signal: roundSignal }) => withinDecisionTimeout(deps.decisionTimeoutMs, 'decision', roundSignal, async (signal) => {
      const provider = input.proposer === 'student' ? deps.student : deps.teacher;
      if (input.proposer === 'student' && deps.studentReadsNoPrompt) return assertReplyDepth(await provider.complete({ role: 'student', messages: [], signal }));
      const structured = input.proposer === 'teacher' || deps.studentMode === 'structured';
      // Teacher and student propose from the same prompt: a teacher decision is a demonstration
      // of what the student should have said.
      const parts = {
        instructions: deps.instructions(),
        task: deps.task,
        snapshot: input.snapshot,
        // Feedback may quote a parse error, which may quote the candidate.
        feedback: redactToolArguments(input.feedback ?? deps.feedback(), input.snapshot, deps.sensitiveFound),
        mode: structured ? ('structured' as const) : ('tools' as const),
      };
      const sensitive = input.snapshot.tools.some((tool) => tool.effect.sensitive_arguments.length > 0);
      let prompt: BuiltPrompt;
      let messages: ChatMessage[];
      if (prompts && !sensitive) {
        prompt = prompts.build({ ...parts, history: deps.history.view() });
        messages = prompt.messages;
      } else {
        // Sensitive arguments are masked in every prompt, as in traces (the tool got the real values).
        prompt = buildStudentPrompt({ ...parts, history: redactToolArguments(deps.history.entries(), input.snapshot, deps.sensitiveFound) });
        messages = prompt.messages.map(maskMessage(deps.maskText));
      }
      deps.onPrompt?.(input.round, messages);
      const call = (caller: 'student' | 'teacher', purpose: 'propose' | 'shadow') => ({ caller, purpose, data: prompt.data, round: input.round });
      const shadowing = deps.shadow && input.proposer === 'teacher' && input.attempt === 0;
      const shadow = shadowing
        ? deps.student.complete({ role: 'student', ...proposalRequest(deps.studentMode === 'structured', input.snapshot, messages, signal, deps.maxOutputTokens), call: call('student', 'shadow') }).then(assertReplyDepth).then(
            (reply) => deps.shadow?.(input.round, { reply }),
            (err: unknown) => deps.shadow?.(input.round, { error: err instanceof Error ? err.message : String(err) }),
          )
        : undefined;
      try {
        return assertReplyDepth(await provider.complete({ role: input.proposer, ...proposalRequest(structured, input.snapshot, messages, signal, deps.maxOutputTokens), call: call(input.proposer, 'propose') }));
      } finally {
        await shadow;
      }
    }),

    review: ({ input, signal: roundSignal }) => withinDecisionTimeout(deps.decisionTimeoutMs, 'review', roundSignal, (signal) => {
      const prompt = buildTeacherPrompt({
        instructions: deps.instructions(),
        task: deps.task,
        snapshot: input.snapshot,
        history: redactToolArguments(deps.history.entries(), input.snapshot, deps.sensitiveFound),
        review: {
          reply: redactToolArguments(input.reply, input.snapshot, deps.sensitiveFound),
          parsed: redactToolArguments(input.parsed, input.snapshot, deps.sensitiveFound),
          validation: redactToolArguments(input.validation, input.snapshot, deps.sensitiveFound),
          rule: input.review.rule,
          ...(input.review.detail !== undefined ? { detail: input.review.detail } : {}),
          attempt: input.attempt,
          previous_problem: input.previous_problem,
          claims: input.claims,
          provenance: input.provenance,
        },
      });
      return deps.teacher
        .complete({
          role: 'teacher',
          messages: prompt.messages.map(maskMessage(deps.maskText)),
          format: verdictJsonSchema(),
          max_output_tokens: deps.maxOutputTokens ?? OUTPUT_TOKEN_BOUNDS.teacher,
          signal,
          call: { caller: 'teacher', purpose: 'review', data: prompt.data, round: input.round },
        })
        .then(assertReplyDepth);
    }),

    authorize: async ({ input }) => {
      const { decision, tool } = input;
      if (decision.decision_type === 'complete' && deps.finishGate) {
        const gate = await deps.finishGate(input.round);
        return { ledger: 'new', confirmation: 'not_needed', finish: gate.allowed ? 'allowed' : 'rejected' };
      }
      if (decision.decision_type !== 'tool_call' || !tool) return { ledger: 'new', confirmation: 'not_needed' };
      // The call a person's answer continues: its own key, claimed by it when it paused.
      const paused = input.preconfirmed ? deps.continuation?.(tool.server, tool.name) : undefined;
      if (paused) {
        continuing.set(paused.idempotency_key, paused.continueWith);
        return { idempotency_key: paused.idempotency_key, ledger: 'new', confirmation: tool.effect.requires_user_confirmation ? 'granted' : 'not_needed' };
      }
      const key = idempotencyKey({
        run_id: deps.runId,
        round: input.round,
        server: tool.server,
        tool: tool.name,
        arguments: decision.arguments,
      });
      // Made before a stop cut its node off, its result kept: given again (execute), nobody asked twice.
      const ledger = deps.ledger.state(key);
      const kept = ledger === 'executed' && !deps.dryRun ? deps.ledger.keptResult?.(key) : undefined;
      if (kept) {
        givenBack.set(key, kept);
        return { idempotency_key: key, ledger, confirmation: 'not_needed', result_kept: true };
      }
      if (!tool.effect.requires_user_confirmation) return { idempotency_key: key, ledger, confirmation: 'not_needed' };
      // A person who approved this exact decision (an answered intervention) has confirmed it.
      if (input.preconfirmed) return { idempotency_key: key, ledger, confirmation: 'granted' };
      const confirmation: Confirmation = await deps.confirm({ run_id: deps.runId, round: input.round, server: tool.server, tool: tool.name, arguments: decision.arguments, ...(input.provenance ? { provenance: input.provenance } : {}) });
      // Read again once the person answered: another process on the folder may have made the call meanwhile.
      return { idempotency_key: key, ledger: deps.ledger.state(key), confirmation };
    },

    commit: async ({ input }) => ({
      history_index: deps.history.commit(input.round, input.decision),
    }),

    execute: async ({ input, signal }) => {
      const { tool, decision, idempotency_key } = input;
      if (deps.dryRun) {
        const content = `(dry run: ${tool.server}/${tool.name} was not executed)`;
        deps.history.settle(deps.history.length - 1, content, false);
        const execution: ToolExecution = {
          server: tool.server,
          tool: tool.name,
          arguments: maskArguments(decision.arguments, tool.effect.sensitive_arguments),
          idempotency_key,
          ok: true,
          is_error: false,
          content,
          duration_ms: 0,
        };
        deps.onExecution(execution);
        return execution;
      }
      if (input.recorded_result) return givenAgain(input);
      // Reserve the key before the call: a crash mid-call leaves it in flight, never re-executed.
      // A call that continues after a pause holds its key already (the same call, not a second one).
      const continueWith = continuing.get(idempotency_key);
      continuing.delete(idempotency_key);
      if (!continueWith) deps.ledger.begin(idempotency_key, { run_id: deps.runId, round: input.round, server: tool.server, tool: tool.name, effect: tool.effect.effect });
      const index = deps.history.length - 1;
      try {
        const call = callSignals(signal);
        const onProgress = deps.onToolProgress && ((progress: ToolProgress) => deps.onToolProgress?.(input.round, idempotency_key, progress));
        const traceparent = deps.traceRunId === undefined ? undefined : toolCallTraceparent(deps.traceRunId, idempotency_key);
        let raw: ToolExecution;
        try {
          raw = await deps.toolHost.execute({ decision, tool, idempotency_key, signal: call.signal, ...(onProgress ? { onProgress } : {}), ...(traceparent ? { traceparent } : {}), ...(deps.pauseForInput ? { pauseForInput: true } : {}), ...(continueWith ? { continueWith } : {}) });
        } catch (err) {
          if (!isInputRequiredPause(err)) throw err;
          // Paused, not ended: the key stays claimed; the person's answer continues this call in a later round.
          deps.history.settle(index, `paused: MCP server "${tool.server}" asked for input; the call goes on once you answer`, false);
          deps.onInputPause?.(err, { round: input.round, idempotency_key, server: tool.server, tool: tool.name });
          throw err;
        } finally {
          call.done();
        }
        const execution = capContent({ ...raw, content: deps.maskText ? deps.maskText(raw.content) : raw.content });
        // A call that ended while its run was being stopped may have ended because of the stop (a workflow tool's
        // child run halts, say): what it gave back then is no result to give again, so none is kept.
        const stopping = signal.aborted || deps.runSignal?.aborted === true;
        deps.ledger.finish(idempotency_key, { ok: execution.ok, is_error: execution.is_error, ...(deps.keepResults && !stopping ? keptResultOf(execution, deps.traceRunId ?? deps.runId) : {}) });
        deps.history.settle(index, execution.content, execution.is_error);
        deps.onExecution(execution);
        return execution;
      } catch (err) {
        if (isInputRequiredPause(err)) throw err;
        const text = err instanceof Error ? err.message : String(err);
        const message = deps.maskText ? deps.maskText(text) : text;
        deps.ledger.finish(idempotency_key, { ok: false, is_error: true });
        deps.history.settle(index, `the tool call failed: ${message}`, true);
        deps.onExecution({
          server: tool.server,
          tool: tool.name,
          arguments: maskArguments(decision.arguments, tool.effect.sensitive_arguments),
          idempotency_key,
          ok: false,
          is_error: true,
          content: '',
          error: message,
          duration_ms: 0,
        });
        throw err;
      }
    },

    deliver: async () => {
      deps.history.settle(deps.history.length - 1, 'delivered', false);
    },
  };
}
