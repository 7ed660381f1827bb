import type { HostParamsParsed, HostResult } from '@shared/contracts/host-api';
import type { ModelRef } from '@shared/contracts/model';
import { MAX_LISTED_FLIPS, MAX_TEACHER_REPLAY_CASES, type TeacherReplayResult, type TeacherReplayStatus } from '@shared/contracts/profile-replay';
import { roundNumber } from '@shared/contracts/round-number';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../../credentials/credential-store';
import { resolveCredentials } from '../../credentials/resolve-credentials';
import { SecretRegistry } from '../../credentials/secret-registry';
import type { EventJournal } from '../../events/event-journal';
import { credentialRefsOf, resolveProvider } from '../../providers/resolve-provider';
import { ProviderError, type ModelProvider } from '../../providers/provider';
import { collectCases } from './collect-rounds';
import type { RecordedJudgment } from './recorded-judgments';
import type { RecordedRound } from './recorded-rounds';
import { MAX_REPLAYED_RUNS } from './profile-replay-handler';
import { judgmentFlipOrder, replayJudgment, type JudgmentCaseResult } from './replay-judgments';
import { flipOrder, isProtectedCatchLost, replayVerdict, type VerdictCaseResult } from './replay-verdicts';
import { flipWords, judgmentFlipWords } from './verdict-words';

export interface TeacherReplayDeps {
  journal: Pick<EventJournal, 'runsPage' | 'runEvents'>;
  privacy: () => PrivacyPolicy;
  ollamaHost: string;
  credentials: CredentialStore;
  log: (line: string) => void;
}

interface Job {
  profile_id: string;
  profile: string;
  teacher: string;
  state: TeacherReplayStatus['state'];
  total: number;
  runs: number;
  truncated: boolean;
  results: VerdictCaseResult[];
  judged: JudgmentCaseResult[];
  /** Judgments recorded before their prompt was kept. */
  unasked: number;
  message?: string;
  controller: AbortController;
}

/**
 * `verdicts.replay_teacher.start` / `.status` / `.cancel` (issue 31): "Replay past verdicts" on a
 * teacher profile, the check `steward eval verdicts --teacher MODEL` makes, over the host's history.
 * The candidate is resolved as the CLI resolves it (the data folder's privacy policy decides on its
 * address, its key comes from the keychain by reference; a replay model is refused) before any case
 * is read; each recorded review's redacted context goes to it through the engine's review prompt, no
 * tool is executed. One at a time, in the background; the host closing stops it.
 */
export function teacherReplayHandlers(deps: TeacherReplayDeps) {
  let job: Job | undefined;
  let finished: Promise<void> = Promise.resolve();

  const candidateOf = async (ref: ModelRef): Promise<ModelProvider> => {
    const refs = credentialRefsOf(ref);
    const apiKeys = refs.length === 0 ? new Map<string, string>() : await resolveCredentials(refs, deps.credentials, new SecretRegistry(), new Map(refs.map((r) => [r, 'the API key of the candidate teacher'])));
    return resolveProvider(ref, 'teacher', { ollamaHost: deps.ollamaHost, privacy: deps.privacy(), apiKeys });
  };

  const resultOf = (j: Job): TeacherReplayResult => {
    const flips = j.results.filter((r) => r.flip !== undefined).sort(flipOrder);
    return {
      profile: j.profile,
      teacher: j.teacher,
      cases: j.results.length,
      runs: j.runs,
      agreeing: j.results.length - flips.length,
      flipped: flips.length,
      protected_catches_lost: flips.filter(isProtectedCatchLost).length,
      flips: flips.slice(0, MAX_LISTED_FLIPS).map((r) => ({
        run_id: r.round.run_id,
        ...(r.round.invocation_id !== undefined ? { invocation_id: r.round.invocation_id } : {}),
        spec_name: r.round.spec_name,
        started_at: r.round.started_at,
        round: roundNumber(r.round.round),
        kind: r.flip ?? 'no_verdict',
        protected: r.round.protected,
        protected_catch_lost: isProtectedCatchLost(r),
        past: r.past,
        decided_by: r.round.decided_by ?? 'teacher',
        ...(r.now ? { now: r.now } : {}),
        ...(r.problem !== undefined ? { problem: r.problem } : {}),
        ...(r.round.person !== undefined ? { person: r.round.person } : {}),
        words: flipWords(r),
      })),
      truncated: j.truncated,
      judgments: judgmentsOf(j),
    };
  };

  const judgmentsOf = (j: Job): NonNullable<TeacherReplayResult['judgments']> => {
    const flips = j.judged.filter((r) => r.flip !== undefined).sort(judgmentFlipOrder);
    return {
      cases: j.judged.length,
      agreeing: j.judged.length - flips.length,
      flipped: flips.length,
      approvals_gained: flips.filter((r) => r.flip === 'catch_lost').length,
      not_asked: j.unasked,
      flips: flips.slice(0, MAX_LISTED_FLIPS).map((r) => ({
        run_id: r.judgment.run_id,
        invocation_id: r.judgment.invocation_id,
        spec_name: r.judgment.spec_name,
        started_at: r.judgment.started_at,
        judgment_id: r.judgment.judgment_id,
        step: r.judgment.step + 1,
        iteration: r.judgment.iteration,
        kind: r.flip ?? 'no_verdict',
        judge: r.judgment.caller.kind,
        past: r.judgment.past,
        ...(r.now ? { now: r.now } : {}),
        ...(r.problem !== undefined ? { problem: r.problem } : {}),
        words: judgmentFlipWords(r),
      })),
    };
  };

  const run = async (j: Job, rounds: RecordedRound[], judgments: RecordedJudgment[], candidate: ModelProvider) => {
    // Reviews first, then the pattern judgments: one list of cases, counted together.
    const cases = [...rounds.map((round) => ({ round })), ...judgments.map((judgment) => ({ judgment }))];
    for (const [i, c] of cases.entries()) {
      if (j.controller.signal.aborted) break;
      try {
        if ('round' in c) j.results.push(await replayVerdict(c.round, candidate, j.controller.signal));
        else j.judged.push(await replayJudgment(c.judgment, candidate, j.controller.signal));
      } catch (error) {
        if (j.controller.signal.aborted || (error instanceof ProviderError && error.code === 'cancelled')) break;
        j.state = 'failed';
        j.message = `${candidate.label} stopped answering at case ${i + 1} of ${cases.length}: ${error instanceof Error ? error.message : String(error)}. The verdicts compared before it are listed; check the model and replay again.`;
        deps.log(`eval verdicts (app): ${j.message}`);
        return;
      }
    }
    if (j.controller.signal.aborted) {
      j.state = 'cancelled';
      j.message = `Cancelled after ${j.results.length + j.judged.length} of ${cases.length} cases: only those were compared.`;
      return;
    }
    j.state = 'completed';
  };

  const handlers = {
    'verdicts.replay_teacher.start': async ({ profile, limit }: HostParamsParsed<'verdicts.replay_teacher.start'>): Promise<HostResult<'verdicts.replay_teacher.start'>> => {
      // The contract lets only a teacher profile through; narrowed here for its model.
      if (profile.kind !== 'teacher') throw new Error('only a teacher profile has a model to put the past verdicts to');
      if (job?.state === 'running') {
        return { started: false, message: `Past verdicts are already being replayed under ${job.teacher} (${job.results.length + job.judged.length} of ${job.total} done). Wait for it or cancel it, then start again.` };
      }
      const name = `${profile.name} v${profile.version}`;
      if (profile.model.provider === 'script') {
        return { started: false, message: `${name} uses the replay model, which only repeats the answers a demo scripted: it has nothing to say about these reviews. Choose a teacher profile with a real model (Ollama or an OpenAI-compatible server).` };
      }
      let candidate: ModelProvider;
      try {
        candidate = await candidateOf(profile.model);
      } catch (error) {
        return { started: false, message: `The model of ${name} cannot be used as a candidate teacher here: ${error instanceof Error ? error.message : String(error)}. Nothing was sent to it.` };
      }
      const read = collectCases(deps.journal, limit ?? MAX_TEACHER_REPLAY_CASES, MAX_REPLAYED_RUNS);
      const j: Job = { profile_id: profile.id, profile: name, teacher: candidate.label, state: 'running', total: read.rounds.length + read.judgments.length, runs: read.reviewRuns, truncated: read.truncated, results: [], judged: [], unasked: read.unasked, controller: new AbortController() };
      job = j;
      finished = run(j, read.rounds, read.judgments, candidate).catch((error: unknown) => {
        j.state = 'failed';
        j.message = `The replay failed: ${error instanceof Error ? error.message : String(error)}`;
        deps.log(`eval verdicts (app): ${j.message}`);
      });
      return { started: true, total: j.total };
    },
    'verdicts.replay_teacher.status': async (): Promise<HostResult<'verdicts.replay_teacher.status'>> => {
      if (!job) return { state: 'idle', done: 0, total: 0 };
      return {
        state: job.state,
        profile_id: job.profile_id,
        done: job.results.length + job.judged.length,
        total: job.total,
        teacher: job.teacher,
        ...(job.state === 'running' ? {} : { result: resultOf(job) }),
        ...(job.message !== undefined ? { message: job.message } : {}),
      };
    },
    'verdicts.replay_teacher.cancel': async (): Promise<HostResult<'verdicts.replay_teacher.cancel'>> => {
      if (job?.state !== 'running') return { cancelled: false };
      job.controller.abort();
      return { cancelled: true };
    },
  };
  /** Stops the replay under way after its current call (the host is closing); resolves when it has ended. */
  const stop = async () => {
    job?.controller.abort();
    await finished;
  };
  return { handlers, stop, settled: () => finished };
}
