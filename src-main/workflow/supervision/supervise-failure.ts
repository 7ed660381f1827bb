import { createActor, fromPromise, toPromise } from 'xstate';
import type { Escalation, FailureSignature, SupervisorSettings, SupervisorVerdict } from '@shared/supervisor/contracts';
import { attemptSpend, type ModelCallTally, type SupervisorIdentity } from '@shared/supervisor/cost';
import { buildEscalation } from '@shared/supervisor/escalation';
import { emptyLedger, recordVerdict, retriesExhausted, type SupervisorLedger } from '@shared/supervisor/ledger';
import { supervisorMachine, type DecideInput, type DecideOutput, type SubstituteCheck, type ValidateInput } from '@shared/supervisor/machine';
import type { Invocation, NodeFailure } from '@shared/workflow/invocation';
import type { SecretRegistry } from '../../credentials/secret-registry';
import type { InvocationRecord } from '../workflow-checkpoint';
import type { ModelAnswered, ModelCalled } from '@shared/contracts/model-call';

/**
 * The host side of the workflow supervisor (issue 11): a failed node invocation becomes a redacted
 * Escalation, the decision machine runs with the run's supervisor as its `decide` actor, and the
 * verdict comes back as what the run does next. One `RunSupervision` per run; it keeps the ledger
 * (persist `ledger` with the run's checkpoint) and decides one escalation at a time, so concurrent
 * failures never race the bounds and a sticky verdict reaches the items queued behind it.
 *
 * Where run-workflow.ts calls it: in `start()`, where an executor's outcome is `failed` and before
 * that failure is fed to the scheduler — `supervision.superviseFailure(...)`, then by `next.kind`:
 * `run_again` → `start(invocation)` again (same inputs); `done` → feed `done` with the outputs;
 * `skip` → feed a skip (the scheduler needs a `skipped` event for hosted nodes that settles the
 * invocation `skipped` with no value and without failing the run; until it has one, `done` with
 * `{}` prunes the same nodes, see skip-pruning.ts); `end_stream` → feed `done` with what streamed;
 * `failed` → feed `failed` as today. A run without supervision never constructs this.
 */

/** The run's supervisor: a model behind the boundary's provider, or a person's queue in the app. */
export interface WorkflowSupervisor {
  identity: SupervisorIdentity;
  /** Must stop (and reject) when `signal` aborts: that is how a timeout cancels a model call. */
  decide(input: DecideInput, signal: AbortSignal): Promise<DecideOutput>;
  /** Handed the run's state once the run starts (a model supervisor's read-only tools read it). */
  attach?(run: SupervisedRunView): void;
  /** A replay supervisor's place in its script, kept in the checkpoint so a resumed run goes on there. */
  position?(): number;
  /**
   * What its own calls cost in this run so far (a resumed run's ledger included), each at its
   * reported usage or its worst case. The kernel charges a stopped turn one reservation; a model
   * that had already made calls in that turn cost more, and the ledger is squared with this.
   */
  spentUsd?(): number;
}

/** What a supervisor may read of its run: the invocations so far, and the run's secret registry to mask what it reads. */
export interface SupervisedRunView {
  invocations(): readonly InvocationRecord[];
  secrets: Pick<SecretRegistry, 'mask' | 'maskText'>;
  /** The run's privacy log: a model supervisor's every call is recorded as `model.called`. */
  onModelCall?: (call: ModelCalled) => void;
  /** How each of those calls ended: its tokens and latency (`model.answered`, issue 31). */
  onModelAnswer?: (answer: ModelAnswered) => void;
}

/** What the executor knows about the failed invocation, beyond the scheduler's NodeFailure. */
export interface FailedInvocation {
  invocation: Invocation;
  failure: NodeFailure;
  /** Structured fields of the error, when the executor has them (never parsed from the message). */
  http_status?: number;
  errno?: string;
  attempt: number;
  retry_safe: boolean;
  /** Spend known by other means (an eval's probe); the attempt's model calls are added to it. */
  spent_usd: number;
  /** The attempt's model calls per label (AttemptTrail), priced with the run's pricing table. */
  model_calls?: readonly ModelCallTally[];
  created_assets: string[];
  candidate_output?: Record<string, unknown>;
  validator_covers_output: boolean;
  streaming: boolean;
  emitted: boolean;
}

export type NodeNext =
  | { kind: 'run_again' }
  | { kind: 'done'; outputs: Record<string, unknown> }
  | { kind: 'skip'; reason: string }
  | { kind: 'end_stream'; reason: string }
  | { kind: 'failed'; failure: NodeFailure };

export interface SupervisionResult {
  escalation: Escalation;
  verdict: SupervisorVerdict;
  next: NodeNext;
}

export interface SupervisionDeps {
  settings: SupervisorSettings;
  supervisor: WorkflowSupervisor;
  /** Checks a substitute against the node's whole declared output (types, refs that resolve). */
  validate: (input: ValidateInput) => Promise<SubstituteCheck>;
  secrets: Pick<SecretRegistry, 'mask' | 'maskText'>;
  now?: () => Date;
}

/**
 * Failure codes every failure of a kind of node carries: they say nothing about which failure it
 * was, so they make no signature (two unrelated tool errors must not share a sticky verdict).
 */
export const GENERIC_FAILURE_CODES: ReadonlySet<string> = new Set(['tool_error', 'agent_failed', 'internal_error']);

export function failureSignature(f: Pick<FailedInvocation, 'failure' | 'http_status' | 'errno'>): FailureSignature {
  return {
    ...(GENERIC_FAILURE_CODES.has(f.failure.code) ? {} : { code: f.failure.code }),
    ...(f.http_status !== undefined ? { http_status: f.http_status } : {}),
    ...(f.errno !== undefined ? { errno: f.errno } : {}),
  };
}

export function nextOf(verdict: SupervisorVerdict, failure: NodeFailure): NodeNext {
  const v = verdict.verdict;
  switch (v.action) {
    case 'retry':
      return { kind: 'run_again' };
    case 'substitute':
      return { kind: 'done', outputs: v.value };
    case 'skip':
      return { kind: 'skip', reason: v.reason };
    case 'end_stream':
      return { kind: 'end_stream', reason: v.reason };
    case 'fail':
      // The node's own failure stays the failure; the verdict's reason says why it was not recovered.
      return { kind: 'failed', failure: { code: failure.code, message: `${failure.message} (supervisor: ${v.reason})`.slice(0, 4000) } };
  }
}

export class RunSupervision {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly machine: typeof supervisorMachine;

  constructor(
    readonly deps: SupervisionDeps,
    public ledger: SupervisorLedger = emptyLedger(),
  ) {
    this.machine = supervisorMachine.provide({
      actors: {
        decide: fromPromise<DecideOutput, DecideInput>(({ input, signal }) => deps.supervisor.decide(input, signal)),
        validateSubstitute: fromPromise<SubstituteCheck, ValidateInput>(({ input }) => deps.validate(input)),
      },
    });
  }

  /**
   * Decides one failure; waits for the decisions queued before it. `signal`: the run's own.
   * `onEscalated` hears the escalation as soon as it is built, before the supervisor decides, so the
   * host can put it in the trace while a model thinks (the app shows "deciding…" until the verdict).
   */
  superviseFailure(failed: FailedInvocation, signal: AbortSignal, onEscalated?: (escalation: Escalation) => void): Promise<SupervisionResult> {
    return this.serial(() => this.decide(failed, signal, onEscalated));
  }

  /** One decision at a time (a person's too): each sees the ledger the one before it left. */
  serial<T>(decide: () => Promise<T>): Promise<T> {
    const turn = this.queue.then(decide);
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** The redacted escalation of a failed invocation, with the allowed set as the ledger stands now. */
  escalationOf(failed: FailedInvocation): Escalation {
    const { invocation } = failed;
    const spend = attemptSpend(failed.model_calls ?? [], this.deps.settings.pricing);
    // The host's registry masks every resolved secret (in all its encodings) first; the kernel then masks credential-named fields.
    return buildEscalation(
      {
        node: invocation.node,
        lineage: invocation.lineage,
        detail: this.deps.secrets.maskText(failed.failure.message),
        failure_signature: failureSignature(failed),
        ...(failed.candidate_output !== undefined ? { candidate_output: this.deps.secrets.mask(failed.candidate_output) } : {}),
        attempt: failed.attempt,
        retry_safe: failed.retry_safe,
        spent_usd: failed.spent_usd + spend.usd,
        unpriced_models: spend.unpriced,
        created_assets: this.deps.secrets.mask(failed.created_assets),
        has_candidate: failed.candidate_output !== undefined,
        validator_covers_output: failed.validator_covers_output,
        streaming: failed.streaming,
        emitted: failed.emitted,
        retries_exhausted: retriesExhausted(this.ledger, this.deps.settings, invocation.id),
        now: (this.deps.now?.() ?? new Date()).toISOString(),
      },
      [],
    );
  }

  private async decide(failed: FailedInvocation, signal: AbortSignal, onEscalated?: (escalation: Escalation) => void): Promise<SupervisionResult> {
    const escalation = this.escalationOf(failed);
    onEscalated?.(escalation);
    if (signal.aborted) return this.stopped(escalation, failed.failure);
    const actor = createActor(this.machine, { input: { escalation, settings: this.deps.settings, ledger: this.ledger, who: this.deps.supervisor.identity } });
    const done = toPromise(actor);
    // Stopping the actor stops the supervisor's call (its signal aborts).
    const onAbort = () => actor.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    actor.start();
    try {
      const out = await Promise.race([done, new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }))]);
      if (!out) return this.stopped(escalation, failed.failure);
      const settled = squared(out, this.deps.supervisor.spentUsd?.());
      this.ledger = settled.ledger;
      return { escalation, verdict: settled.verdict, next: nextOf(settled.verdict, failed.failure) };
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** The run was stopped while deciding: the node fails as it would have, nothing is recorded as decided. */
  private stopped(escalation: Escalation, failure: NodeFailure): SupervisionResult {
    const verdict: SupervisorVerdict = { escalation_id: escalation.id, verdict: { action: 'fail', reason: 'the run was stopped' }, decided_by: 'default', turns: 0, cost_usd: 0 };
    this.ledger = recordVerdict(this.ledger, escalation, verdict);
    return { escalation, verdict, next: { kind: 'failed', failure } };
  }
}

/**
 * The decision as charged, when the supervisor's own calls cost more than the kernel knew (a turn
 * stopped by its timeout after tool steps): the difference is charged to this verdict, so the
 * ledger the next reservation reads and the cost the run reports are what was spent.
 */
function squared(out: { verdict: SupervisorVerdict; ledger: SupervisorLedger }, spent: number | undefined): { verdict: SupervisorVerdict; ledger: SupervisorLedger } {
  const extra = spent === undefined ? 0 : spent - out.ledger.spent_usd;
  if (!(extra > 1e-12)) return out;
  return { verdict: { ...out.verdict, cost_usd: out.verdict.cost_usd + extra }, ledger: { ...out.ledger, spent_usd: out.ledger.spent_usd + extra } };
}

export type SupervisionSetup =
  | { kind: 'on'; supervision: RunSupervision }
  /** Asked for and not available: the run goes on unsupervised and shows the notice. */
  | { kind: 'unavailable'; notice: string }
  /** Not asked for: nothing is constructed, so the run's events are exactly an unsupervised run's. */
  | { kind: 'off' };

/**
 * A run that asks for supervision it cannot get (no supervisor model resolved, the privacy policy
 * refused it) still runs, unsupervised, and says so with the notice.
 */
export function setUpSupervision(settings: SupervisorSettings, supervisor: WorkflowSupervisor | { unavailable: string }, rest: Omit<SupervisionDeps, 'settings' | 'supervisor'>, ledger?: SupervisorLedger): SupervisionSetup {
  if (!settings.enabled) return { kind: 'off' };
  if ('unavailable' in supervisor) return { kind: 'unavailable', notice: `this run is not supervised: ${supervisor.unavailable}` };
  return { kind: 'on', supervision: new RunSupervision({ settings, supervisor, ...rest }, ledger) };
}
