import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@shared/contracts/events';
import type { RunOverrides } from '@shared/contracts/host-api';
import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import type { AgentSpec } from '@shared/contracts/spec';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../credentials/credential-store';
import type { SealKeys } from '../credentials/seal-keys';
import type { IdempotencyLedger } from '../mcp/idempotency-ledger';
import type { ElicitationAsk, ElicitationReply } from '../mcp/client-capabilities';
import type { ReviewSample } from '../mcp/reviewed-sampling';
import type { OAuthConsent } from '../mcp/mcp-tool-host';
import { resolveSpec } from '../spec/load-spec';
import type { ConfirmTool } from './boundary-actors';
import { HostStopping } from './host-stop';
import type { CheckpointStore } from './checkpoint';
import { checkEditedApproval } from './intervention';
import { checkServerInputAnswer } from './server-input';
import { runAgent, type RunAgentOptions } from './run-agent';
import { formatGraphProblem, validateGraph } from '@shared/workflow/validate-graph';
import { SpecError } from '../spec/spec-errors';
import type { LoadedWorkflow } from '../workflow/load-workflow';
import { checkInputs } from '../workflow/run-inputs';
import { shownAgentIntervention, shownWorkflowInterventions } from '../workflow/shown-waiting';
import { checkEditedNodeApproval } from '../workflow/agent-node';
import { checkOffered, runWorkflow, type LiveAnswer, type RunWorkflowOptions } from '../workflow/run-workflow';
import type { WorkflowCheckpointStore } from '../workflow/workflow-checkpoint';
import { resolveSupervision, supervisionAsked } from '../workflow/supervision/resolve-supervision';
import type { WorkflowSupervisionOptions } from '../workflow/supervision/workflow-supervision';
import type { WorkflowLibrary } from '../workflow/workflow-library';
import { waitingChildRunIds } from '../workflow/workflow-node';
import type { PriceList } from '@shared/accounting/price-list';

export interface RunManagerDeps {
  ledger: IdempotencyLedger;
  /** Where every event goes first (the outbox): durable before anyone sees it. */
  onEvent: (event: RunEvent) => void;
  /** Folder relative paths in app-held specs resolve against. */
  baseDir: string;
  /**
   * Where runs waiting for a person are kept (they survive a restart): on the history connection
   * `onEvent` writes through, so a checkpoint commits with the run's events before it (engine/waiting-stores.ts).
   */
  checkpoints: CheckpointStore;
  /** Where workflow runs parked for a person are kept (they survive a restart too). */
  workflowCheckpoints?: WorkflowCheckpointStore;
  /** Where the journal stands for a run still open in it (events may follow a workflow's checkpoint). */
  journalNextSeq?: (runId: string) => number | undefined;
  ollamaHost?: string;
  credentials?: CredentialStore;
  /** The keys that seal a waiting workflow run's sensitive values (issue 27); the OS keychain's when absent. */
  sealKeys?: SealKeys;
  log?: (line: string) => void;
  /** How a run's MCP servers ask the person (elicitation), in the page; a run's stop cancels its asks. */
  elicit?: (runId: string, signal: AbortSignal) => (ask: ElicitationAsk) => Promise<ElicitationReply>;
  /** How a person reviews sampling of servers with `sampling: "ask"`, in the page. */
  reviewSample?: (runId: string, signal: AbortSignal) => ReviewSample;
  /** How a remote server's wider scope mid-run (OAuth step-up) is put to the person, in the page (mcp/oauth/app-consent.ts). */
  oauthConsent?: (runId: string, signal: AbortSignal) => OAuthConsent;
  /** The app's price list as it is now (issue 31): a workflow supervisor's cost cap prices with it. */
  prices?: () => PriceList;
  /** The stored workflows a workflow node runs and an agent's workflow tools offer (issue 29). */
  library?: WorkflowLibrary;
}

interface ActiveRun {
  controller: AbortController;
  done: Promise<unknown>;
  workflow: boolean;
}

/**
 * Settings from the app (panel, profiles) over the spec's own. Tool effects and the privacy policy
 * are not page settings: the host expanded them from its own registry (expandWorkflow).
 */
export function applyOverrides(spec: AgentSpec, overrides: RunOverrides): AgentSpec {
  const supervision = overrides.supervision ?? spec.supervision;
  return {
    ...spec,
    supervision: { ...supervision, enabled: overrides.supervision_enabled ?? supervision.enabled },
    models: { student: overrides.student ?? spec.models.student, teacher: overrides.teacher ?? spec.models.teacher },
  };
}

/**
 * In the app a tool that needs confirmation is never decided by the host: the round ends waiting
 * and the person answers in the run view (see interventions).
 */
const askThePerson: ConfirmTool = async () => 'pending';

/** Runs started from the app: in the background, cancellable, resumable after waiting for a person. */
export class RunManager {
  private readonly active = new Map<string, ActiveRun>();
  /** Workflow runs still going on, by run id: how each takes an answer for a node that waits. */
  private readonly live = new Map<string, LiveAnswer>();

  constructor(private readonly deps: RunManagerDeps) {}

  /** `privacy` is the host's policy, never the page's. `replayOf`: the recorded run this run replays. */
  start(spec: AgentSpec, overrides: RunOverrides, privacy: PrivacyPolicy, extra: { replayOf?: string } = {}): { run_id: string } {
    const loaded = resolveSpec(applyOverrides(spec, overrides), this.deps.baseDir);
    const runId = randomUUID();
    this.launch(runId, {
      spec: loaded.spec,
      specDir: loaded.specDir,
      workspace: loaded.workspace,
      script: loaded.script,
      privacy,
      dryRun: overrides.dry_run,
      trace: overrides.trace,
      learning: overrides.learning,
      profiles: overrides.profiles,
      replayOf: extra.replayOf,
    });
    return { run_id: runId };
  }

  /**
   * A workflow run from the app: checked (graph, inputs) before it starts, so a problem is an
   * error here rather than a failed run. `privacy` is the host's policy, never the page's.
   */
  startWorkflow(loaded: LoadedWorkflow, inputs: Record<string, unknown>, privacy: PrivacyPolicy, extra: Pick<RunWorkflowOptions, 'trace' | 'traceProfile' | 'replay' | 'nodeProfiles'> = {}): { run_id: string } {
    const problems = validateGraph(loaded.graph);
    // The caller's graph or inputs are wrong, not the host: refused as invalid params, by name.
    if (problems.length > 0) throw new SpecError(`the workflow has ${problems.length} problem(s): ${problems.map(formatGraphProblem).join('; ')}`);
    const checked = checkInputs(loaded.graph, inputs);
    if (!checked.ok) throw new SpecError(checked.message);
    const runId = randomUUID();
    this.launchWorkflow(runId, { graph: loaded.graph, specDir: loaded.specDir, workspace: loaded.workspace, inputs: checked.inputs, privacy, ...extra });
    return { run_id: runId };
  }

  /** Runs waiting for a person, persisted (they are listed again after a restart): agent runs and workflow nodes. */
  pending(): Intervention[] {
    const agents = this.deps.checkpoints.list(this.deps.log).map((c) => c.intervention);
    const workflows = (this.deps.workflowCheckpoints?.list(this.deps.log) ?? []).flatMap((c) => Object.values(c.waiting).map((w) => w.intervention));
    return [...agents, ...workflows];
  }

  /** The same questions as a page is shown them: masked as the trace has them (the checkpoints keep the calls themselves). */
  pendingShown(): Intervention[] {
    const agents = this.deps.checkpoints.list(this.deps.log).map(shownAgentIntervention);
    const workflows = (this.deps.workflowCheckpoints?.list(this.deps.log) ?? []).flatMap(shownWorkflowInterventions);
    return [...agents, ...workflows];
  }

  waitingRunIds(): Set<string> {
    const ids = new Set(this.pending().map((i) => i.run_id));
    // A workflow node's child run waits inside its parent's checkpoint (issue 29): waiting too, never interrupted.
    for (const c of this.deps.workflowCheckpoints?.list(this.deps.log) ?? []) for (const id of waitingChildRunIds(c)) ids.add(id);
    return ids;
  }

  /**
   * A person answered: a workflow run still going on resumes the node in place; any other run
   * continues from its checkpoint. False when nothing waits for that.
   */
  answer(runId: string, interventionId: string, answer: HumanAnswer): boolean {
    const live = this.live.get(runId);
    if (live) return live(interventionId, answer);
    const active = this.active.get(runId);
    // A workflow run ending parked has its checkpoint stored before it stops taking answers live.
    if (active?.workflow) return this.answerWorkflow(runId, interventionId, answer);
    if (active) return false;
    // Claimed first (an atomic row update): another process answering the same run gets nothing.
    const claimed = this.deps.checkpoints.claim(runId);
    if (!claimed) return this.answerWorkflow(runId, interventionId, answer);
    const { checkpoint } = claimed;
    if (checkpoint.intervention.id !== interventionId) {
      claimed.restore();
      return false;
    }
    try {
      checkOffered(checkpoint.intervention, answer);
      // A tool's question (issue 30): the answer's entries fit its form, or the run keeps waiting.
      if (checkpoint.intervention.kind === 'server_input') checkServerInputAnswer(checkpoint.intervention, answer);
      else checkEditedApproval(checkpoint.intervention, answer, checkpoint.tool_snapshot);
    } catch (error) {
      claimed.restore();
      throw error;
    }
    try {
      this.launch(runId, {
        spec: checkpoint.spec,
        specDir: checkpoint.spec_dir,
        workspace: checkpoint.workspace,
        script: checkpoint.script,
        privacy: checkpoint.privacy,
        dryRun: checkpoint.dry_run,
        trace: checkpoint.trace,
        learning: checkpoint.learning,
        profiles: checkpoint.profiles,
        resume: { checkpoint, answer },
      });
    } catch (error) {
      claimed.restore();
      throw error;
    }
    // Removed only once the resumed run is under way: a crash before this point leaves the claim,
    // which the next start gives back (CheckpointStore), so the run is still waiting.
    claimed.remove();
    return true;
  }

  /** A person answered a workflow node that waits: the workflow continues from its checkpoint. */
  private answerWorkflow(runId: string, interventionId: string, answer: HumanAnswer): boolean {
    const claimed = this.deps.workflowCheckpoints?.claim(runId);
    if (!claimed) return false;
    const { checkpoint } = claimed;
    const found = Object.entries(checkpoint.waiting).find(([, w]) => w.intervention.id === interventionId);
    if (!found) {
      claimed.restore();
      return false;
    }
    const [invocation, waiting] = found;
    const { intervention } = waiting;
    try {
      checkOffered(intervention, answer);
      checkEditedNodeApproval(waiting, answer);
      const next_seq = this.deps.journalNextSeq?.(runId);
      const resume = { checkpoint, answer, invocation, ...(next_seq !== undefined ? { next_seq } : {}) };
      this.launchWorkflow(runId, { graph: checkpoint.graph, specDir: checkpoint.spec_dir, workspace: checkpoint.workspace, inputs: {}, privacy: checkpoint.privacy, resume });
    } catch (error) {
      claimed.restore();
      throw error;
    }
    claimed.remove();
    return true;
  }

  private launchWorkflow(runId: string, options: Omit<RunWorkflowOptions, 'ledger' | 'onEvent' | 'runId' | 'signal'>): void {
    const controller = new AbortController();
    let live: LiveAnswer | undefined;
    const start = (supervision?: WorkflowSupervisionOptions) => runWorkflow({
      ...options,
      ...(supervision ? { supervision } : {}),
      ...this.shared(runId, controller),
      // The person answers in the run view: an escalated tool call waits for them.
      parkEscalations: true,
      // One commit with the run's events before it (as for an agent run).
      persistWaiting: (checkpoint) => this.deps.workflowCheckpoints?.save(checkpoint),
      ...(this.deps.sealKeys ? { sealKeys: this.deps.sealKeys } : {}),
      ...(this.deps.library ? { library: this.deps.library } : {}),
      dropWaiting: () => this.deps.workflowCheckpoints?.delete(runId),
      liveAnswers: (answerLive) => {
        if (answerLive) this.live.set(runId, answerLive);
        else if (this.live.get(runId) === live) this.live.delete(runId);
        live = answerLive;
      },
    });
    // The workflow's supervisor settings (a resumed run: those it started with); a run that asks for none starts at once, as before.
    const source = { graph: options.graph, ...(options.resume ? { checkpoint: options.resume.checkpoint } : {}) };
    const run = supervisionAsked(source)
      ? resolveSupervision(source, { privacy: options.privacy, ollamaHost: this.deps.ollamaHost, credentials: this.deps.credentials, ...(this.deps.prices ? { prices: this.deps.prices() } : {}) }).then(start)
      : start();
    this.track(runId, controller, run, 'workflow run', true);
  }

  /** What every run from the app shares: the host's ledger, outbox, keychain, and the person as confirmer. */
  private shared(runId: string, controller: AbortController) {
    return {
      ledger: this.deps.ledger,
      onEvent: this.deps.onEvent,
      runId,
      signal: controller.signal,
      confirm: askThePerson,
      ollamaHost: this.deps.ollamaHost,
      credentials: this.deps.credentials,
      ...(this.deps.elicit ? { onElicit: this.deps.elicit(runId, controller.signal) } : {}),
      ...(this.deps.reviewSample ? { onReviewSample: this.deps.reviewSample(runId, controller.signal) } : {}),
      ...(this.deps.oauthConsent ? { oauthConsent: this.deps.oauthConsent(runId, controller.signal) } : {}),
      ...(this.deps.sealKeys ? { sealKeys: this.deps.sealKeys } : {}),
    };
  }

  private track(runId: string, controller: AbortController, run: Promise<{ status: string; message?: string }>, what: string, workflow = false): void {
    // A parked workflow answered while its previous run still closes its servers: both are awaited on close.
    const previous = this.active.get(runId)?.done;
    const logged = run.then((result) => {
      this.deps.log?.(`${what} ${runId} ${result.status}${result.message ? `: ${result.message}` : ''}`);
      return result;
    });
    const entry: ActiveRun = { controller, workflow, done: Promise.allSettled([previous, logged]).finally(() => this.active.get(runId) === entry && this.active.delete(runId)) };
    this.active.set(runId, entry);
  }

  cancel(runId: string): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    run.controller.abort();
    return true;
  }

  /** Resolves once the run going on here has ended or waits again (at once when none is). */
  async settled(runId: string): Promise<void> {
    await this.active.get(runId)?.done;
  }

  activeIds(): string[] {
    return [...this.active.keys()];
  }

  /**
   * The host stops: every run is cancelled and records its end, except a workflow run with a node
   * waiting for a person, which parks with its wait kept (HostStopping), to be answered after the restart.
   */
  async closeAll(): Promise<void> {
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort(new HostStopping());
    await Promise.allSettled(runs.map((r) => r.done));
  }

  private launch(runId: string, options: Omit<RunAgentOptions, 'ledger' | 'onEvent' | 'runId' | 'signal'>): void {
    const controller = new AbortController();
    const run = runAgent({
      ...options,
      ...this.shared(runId, controller),
      // The checkpoint commits with the run's pending events (intervention.requested among them):
      // one transaction, so a run is never resumed past a missing event.
      persistWaiting: (checkpoint) => this.deps.checkpoints.save(checkpoint),
      // A 2026-07-28 server's question waits like every other wait: across a restart, answered in the app or the CLI (issue 30).
      durableServerInput: true,
    });
    this.track(runId, controller, run, 'run');
  }
}
