import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@shared/contracts/events';
import type { HostParamsParsed, HostResult } from '@shared/contracts/host-api';
import type { TrialStatusResult } from '@shared/learning/trial-api';
import type { TrialReport } from '@shared/learning/trial-contract';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../../credentials/credential-store';
import { resolveCredentials } from '../../credentials/resolve-credentials';
import { SecretRegistry } from '../../credentials/secret-registry';
import { createEventStamper } from '../../engine/event-stamper';
import type { EventJournal } from '../../events/event-journal';
import type { ProfileStore } from '../../profiles/profile-store';
import { modelPlace } from '../../providers/record-calls';
import { credentialRefsOf, resolveProvider } from '../../providers/resolve-provider';
import type { ModelProvider } from '../../providers/provider';
import { RequestError } from '../../registry/request-error';
import { readTrialCases, trialNode, type TrialTarget } from './trial-cases';
import { deploymentFor } from './trial-deployment';
import { runTrial, trialTitle } from './run-trial';
import { replayTrial } from './replay-trial';

export interface TrialHostDeps {
  journal: Pick<EventJournal, 'runsPage' | 'runEvents' | 'hasRun'>;
  /** The host's journal writer (events reach the history and every page within a few ms). */
  onEvent: (event: RunEvent) => void;
  privacy: () => PrivacyPolicy;
  ollamaHost: string;
  credentials: CredentialStore;
  profiles: Pick<ProfileStore, 'list'>;
  log: (line: string) => void;
  /** Tests and the bench: the candidate as given instead of resolved from its ref (a model double). */
  resolve?: (ref: HostParamsParsed<'trial.start'>['student']) => Promise<ModelProvider>;
}

/**
 * `trial.start` / `trial.status` (issue 31): the Learning screen's "Try another student…". A start
 * refuses a model the privacy policy does not allow before any call, reads the node's recorded
 * rounds, answers with the trial's run id at once and runs it in the background; its progress is
 * kept here while it runs, and read back from the history (its `trial.*` events) afterwards.
 */
export function trialHandlers(deps: TrialHostDeps) {
  const live = new Map<string, TrialStatusResult>();
  const controllers = new Map<string, AbortController>();

  const candidateOf = async (ref: HostParamsParsed<'trial.start'>['student']): Promise<ModelProvider> => {
    if (deps.resolve) return deps.resolve(ref);
    const refs = credentialRefsOf(ref);
    const apiKeys = refs.length === 0 ? new Map<string, string>() : await resolveCredentials(refs, deps.credentials, new SecretRegistry(), new Map(refs.map((r) => [r, 'the API key of the candidate student'])));
    return resolveProvider(ref, 'student', { ollamaHost: deps.ollamaHost, privacy: deps.privacy(), apiKeys });
  };

  const fromHistory = (runId: string): TrialStatusResult | undefined => {
    if (!deps.journal.hasRun(runId)) return undefined;
    const events = deps.journal.runEvents(runId);
    let title = '';
    let total = 0;
    let done = 0;
    let result: TrialStatusResult | undefined;
    for (const e of events) {
      if (e.type === 'run.started') title = e.spec_name;
      else if (e.type === 'trial.started') total = e.rounds;
      else if (e.type === 'trial.round') done += 1;
      else if (e.type === 'trial.finished') result = { run_id: runId, state: e.report.stopped ? 'cancelled' : 'completed', title, done, total, report: e.report };
      else if (e.type === 'run.finished' && (!result || e.status === 'cancelled')) {
        result = { run_id: runId, state: e.status === 'cancelled' ? 'cancelled' : 'failed', title, done, total, ...(result?.report ? { report: result.report } : {}), ...(e.message !== undefined ? { message: e.message } : {}) };
      }
    }
    if (total === 0 && title === '') return undefined;
    // Started and never ended (the host stopped meanwhile): it ran out, with no report.
    return result ?? { run_id: runId, state: 'failed', title, done, total, message: 'The trial stopped before it ended (the app was closed meanwhile); start it again.' };
  };

  /** Cancels one running trial (its panel's Cancel, or the run view's Cancel run): false when none of that id runs here. */
  const cancel = (runId: string): boolean => {
    const controller = controllers.get(runId);
    if (!controller) return false;
    controller.abort();
    return true;
  };
  const handlers = {
    'trial.start': async (params: HostParamsParsed<'trial.start'>): Promise<HostResult<'trial.start'>> => {
      const target: TrialTarget = params.target;
      let candidate: ModelProvider;
      try {
        candidate = await candidateOf(params.student);
      } catch (error) {
        return { started: false, message: `This model cannot be tried as a student here: ${error instanceof Error ? error.message : String(error)}. Nothing was sent to it.` };
      }
      const cases = readTrialCases(deps.journal, target, params.rounds);
      const node = trialNode(target, cases.label);
      if (cases.inputs.length === 0) {
        return { started: false, message: `No reviewed rounds of ${node.label} are recorded yet, so there is nothing to put to ${candidate.label} and nothing was sent to it. Run it with supervision on (a phase where the teacher reviews the student) first.` };
      }
      const kept = deploymentFor(deps.profiles.list(), target);
      const promotion = params.promotion ?? kept.promotion;
      const currentPhase = params.phase ?? kept.phase ?? cases.phase ?? 2;
      const runId = randomUUID();
      const title = trialTitle(candidate.label, node);
      const stamper = createEventStamper(runId, deps.onEvent);
      const controller = new AbortController();
      controllers.set(runId, controller);
      let partial: TrialReport | undefined;
      live.set(runId, { run_id: runId, state: 'running', title, done: 0, total: cases.inputs.length });
      void runTrial({
        runId,
        node,
        candidate,
        place: modelPlace(params.student, deps.ollamaHost),
        inputs: cases.inputs,
        roundsAsked: params.rounds,
        currentPhase,
        settings: promotion,
        emit: (payload) => {
          // The report is there the moment it is recorded (the run's end follows it).
          if (payload.type === 'trial.finished') {
            if (payload.report.stopped) partial = payload.report;
            else live.set(runId, { run_id: runId, state: 'completed', title, done: payload.report.rounds, total: payload.report.rounds, report: payload.report });
          }
          // Ended otherwise: its status says so from that moment (a cancelled one with its partial report).
          if (payload.type === 'run.finished' && payload.status !== 'completed') {
            const state = payload.status === 'cancelled' ? 'cancelled' : 'failed';
            live.set(runId, { run_id: runId, state, title, done: partial?.rounds ?? live.get(runId)?.done ?? 0, total: cases.inputs.length, ...(payload.message !== undefined ? { message: payload.message } : {}), ...(partial ? { report: partial } : {}) });
          }
          return stamper.emit(payload);
        },
        emitted: () => stamper.count,
        signal: controller.signal,
        onRound: (_round, done, total) => live.set(runId, { run_id: runId, state: 'running', title, done, total }),
      })
        .then(
          (outcome) =>
            live.set(
              runId,
              outcome.ok
                ? { run_id: runId, state: 'completed', title, done: outcome.report.rounds, total: outcome.report.rounds, report: outcome.report }
                : { run_id: runId, state: outcome.status === 'cancelled' ? 'cancelled' : 'failed', title, done: outcome.report?.rounds ?? live.get(runId)?.done ?? 0, total: cases.inputs.length, message: outcome.message, ...(outcome.report ? { report: outcome.report } : {}) },
            ),
          (error: unknown) => {
            deps.log(`trial ${runId}: ${error instanceof Error ? error.message : String(error)}`);
            live.set(runId, { run_id: runId, state: 'failed', title, done: live.get(runId)?.done ?? 0, total: cases.inputs.length, message: `The trial failed: ${error instanceof Error ? error.message : String(error)}` });
          },
        )
        .finally(() => controllers.delete(runId));
      return { started: true, run_id: runId, rounds: cases.inputs.length, title };
    },
    'trial.cancel': async ({ run_id }: HostParamsParsed<'trial.cancel'>): Promise<HostResult<'trial.cancel'>> => ({ cancelled: cancel(run_id) }),
    'trial.status': async ({ run_id }: HostParamsParsed<'trial.status'>): Promise<HostResult<'trial.status'>> => {
      const status = live.get(run_id) ?? fromHistory(run_id);
      if (!status) throw new RequestError('not_found', `no trial "${run_id}" is running or recorded here`);
      return status;
    },
  };
  /** Stops the trials still running (the host is closing): each ends `cancelled` in the history. */
  const stop = () => {
    for (const controller of controllers.values()) controller.abort();
  };
  /** `runs.replay` of a trial run: replayed at once (no model is called), as a run of its own. */
  const replay = async (events: readonly RunEvent[]): Promise<{ run_id: string; gaps: string[] }> => {
    const runId = randomUUID();
    const stamper = createEventStamper(runId, deps.onEvent);
    const result = await replayTrial({ events, runId, runEvents: (id) => deps.journal.runEvents(id), emit: (payload) => stamper.emit(payload), emitted: () => stamper.count });
    return { run_id: runId, gaps: result.gaps };
  };
  return { handlers, stop, cancel, replay };
}
