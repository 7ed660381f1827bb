import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ModelRef } from '@shared/contracts/model';
import { roundNumber } from '@shared/contracts/round-number';
import { createKeychainStore } from '../../credentials/keychain-store';
import { resolveCredentials } from '../../credentials/resolve-credentials';
import { SecretRegistry } from '../../credentials/secret-registry';
import { credentialRefsOf, resolveProvider } from '../../providers/resolve-provider';
import type { ModelProvider } from '../../providers/provider';
import { ProviderError } from '../../providers/provider';
import { HostRegistry } from '../../registry/host-registry';
import { SpecError } from '../../spec/spec-errors';
import type { CliIo } from '../../shells/cli/cli-io';
import { historyToRead } from '../../shells/cli/history-to-read';
import { parseModelFlag } from '../../shells/cli/supervision-flags';
import { typedPath } from '../../shells/cli/typed-path';
import { defaultDataDir } from '../../util/data-dir';
import { readChangedRules, replayProfile, type ChangedRules } from './profile-replay';
import { flipWords, judgmentFlipWords, judgmentWhere, unreviewedWords, where } from './verdict-words';
import type { RecordedRound } from './recorded-rounds';
import { collectCases, collectRounds } from './collect-rounds';
import { judgmentFlipOrder, replayJudgment, type JudgmentCaseResult } from './replay-judgments';
import { flipOrder, isProtectedCatchLost, replayVerdict, type VerdictCaseResult } from './replay-verdicts';
import { wrapUsage } from '@shared/util/wrap-usage';

/** `steward eval verdicts`: past verdicts as a regression suite for a new teacher or new review rules (issue 31). */

export const VERDICTS_USAGE = wrapUsage(`Usage:
  steward eval verdicts --teacher MODEL [--json] [--limit N] [--allow-host HOST]... [--data-dir DIR]
  steward eval verdicts --profile FILE [--json] [--limit N] [--data-dir DIR]

  --teacher  put every teacher verdict the history recorded (and every escalation or confirmation a
             person approved, edited, rejected or stopped: the person's answer is that round's
             verdict) to a candidate teacher: each review's recorded, redacted context (task,
             instructions, tools offered, history, the student's candidate and its validation) goes
             to MODEL through the engine's own review prompt; no tool is executed. Each pattern
             node's judgment (by a model judge, an A2A agent or a person) goes to MODEL too, as a
             model judge is asked: the task, the judgment prompt and the member outputs. Lists every
             verdict that flips, protected-effect catches first.
             MODEL: ollama:MODEL | URL#MODEL | a model ref as JSON; it must be one the data
             folder's privacy policy allows (plus --allow-host)
  --profile  no model is called: which past reviewed rounds a changed supervision profile (its
             review rules; a profile file, a profile bundle with one, or supervision settings)
             would no longer send to the teacher, the rounds the teacher stopped first
  --limit    the newest N cases only (default: every one)
  --json     one JSON object: the cases, the flips (or rounds no longer reviewed), the exit code
Exit codes: 0 nothing the old teacher stopped on a protected effect gets through
            · 1 --teacher: a past block, replacement or escalation of a protected effect would now
              be accepted · --profile: a round the teacher blocked, replaced or escalated would no
              longer be reviewed · 2 bad input, or the candidate teacher cannot be reached`);

const CODE = { ok: 0, caughtLost: 1, badInput: 2 } as const;

const OPTIONS = {
  teacher: { type: 'string' },
  profile: { type: 'string' },
  json: { type: 'boolean', default: false },
  limit: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function verdictsCommand(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true });
  } catch (error) {
    throw new SpecError(`${(error as Error).message}\n\n${VERDICTS_USAGE}`);
  }
  const { values } = parsed;
  if (values.help) {
    io.stdout(`${VERDICTS_USAGE}\n`);
    return CODE.ok;
  }
  if ((values.teacher === undefined) === (values.profile === undefined)) throw new SpecError(`eval verdicts takes --teacher MODEL or --profile FILE (one of them)\n\n${VERDICTS_USAGE}`);
  const limit = limitOf(values.limit);
  const dataDir = io.hosted ? io.hosted.dataDir : values['data-dir'] !== undefined ? typedPath(io, values['data-dir']) : defaultDataDir(io.env);
  if (values.profile !== undefined) {
    if (values['allow-host'] !== undefined) throw new SpecError('--allow-host applies to --teacher (--profile calls no model)');
    const changed = readChangedRules(typedPath(io, values.profile));
    return profileMode(changed, limit, values.json, values['data-dir'], io);
  }
  const ref = teacherRef(values.teacher ?? '');
  const allowed = [...new Set([...(existsSync(dataDir) ? new HostRegistry(dataDir).privacy().allowed_hosts : []), ...(values['allow-host'] ?? [])])];
  let teacher: ModelProvider;
  try {
    teacher = await candidateTeacher(ref, allowed, io);
  } catch (error) {
    io.stderr(`steward eval verdicts: the candidate teacher cannot be used: ${error instanceof Error ? error.message : String(error)}\n`);
    return CODE.badInput;
  }
  return teacherMode(teacher, limit, values.json, values['data-dir'], io);
}

function limitOf(text: string | undefined): number {
  if (text === undefined) return Number.POSITIVE_INFINITY;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1) throw new SpecError(`--limit takes a whole number of 1 or more (got "${text}")`);
  return n;
}

function teacherRef(raw: string): ModelRef {
  let ref: ModelRef;
  try {
    ref = parseModelFlag(raw);
  } catch (error) {
    throw new SpecError((error as Error).message.replaceAll('--supervisor-model', '--teacher'));
  }
  if (ref.provider === 'script') throw new SpecError('--teacher replay: a replay model has no answers for these reviews; name a model: ollama:MODEL, URL#MODEL or a model ref as JSON');
  return ref;
}

/** The candidate resolved like any model: the privacy policy decides on its address, its key comes from the keychain by reference. */
async function candidateTeacher(ref: ModelRef, allowedHosts: string[], io: CliIo): Promise<ModelProvider> {
  const refs = credentialRefsOf(ref);
  let apiKeys = new Map<string, string>();
  if (refs.length > 0) {
    const store = io.hosted ? io.hosted.credentials : io.credentials ? io.credentials() : createKeychainStore();
    apiKeys = await resolveCredentials(refs, store, new SecretRegistry(), new Map(refs.map((r) => [r, 'the API key of the candidate teacher'])));
  }
  return resolveProvider(ref, 'teacher', { ollamaHost: io.env.OLLAMA_HOST, privacy: { allowed_hosts: allowedHosts }, apiKeys });
}

/** The recorded rounds `keep` takes, newest runs first, until `limit` of them are kept; the history is let go before any model is called. */
async function readRounds(io: CliIo, dataDirFlag: string | undefined, keep: (round: RecordedRound) => boolean, limit: number): Promise<{ ok: true; rounds: RecordedRound[]; runs: number } | { ok: false; code: number }> {
  const history = await historyToRead(io, dataDirFlag);
  if (!history.ok) {
    if (history.missing) {
      io.stderr(`steward: there is no data folder at ${history.dataDir}, so no recorded verdicts (is --data-dir right?)\n`);
      return { ok: true, rounds: [], runs: 0 };
    }
    io.stderr(`steward eval verdicts: ${history.message}\n`);
    return { ok: false, code: CODE.badInput };
  }
  try {
    const { rounds, runs } = collectRounds(history.journal, keep, limit);
    return { ok: true, rounds, runs };
  } finally {
    history.close();
  }
}

/** Every case for a candidate teacher (recorded reviews and pattern judgments), newest runs first; the history is let go before any model is called. */
async function readCases(io: CliIo, dataDirFlag: string | undefined, limit: number): Promise<({ ok: true } & ReturnType<typeof collectCases>) | { ok: false; code: number }> {
  const history = await historyToRead(io, dataDirFlag);
  if (!history.ok) {
    if (history.missing) {
      io.stderr(`steward: there is no data folder at ${history.dataDir}, so no recorded verdicts (is --data-dir right?)\n`);
      return { ok: true, rounds: [], judgments: [], unasked: 0, runs: 0, reviewRuns: 0, truncated: false };
    }
    io.stderr(`steward eval verdicts: ${history.message}\n`);
    return { ok: false, code: CODE.badInput };
  }
  try {
    return { ok: true, ...collectCases(history.journal, limit) };
  } finally {
    history.close();
  }
}

async function teacherMode(teacher: ModelProvider, limit: number, json: boolean, dataDirFlag: string | undefined, io: CliIo): Promise<number> {
  const read = await readCases(io, dataDirFlag, limit);
  if (!read.ok) return read.code;
  const { rounds, judgments } = read;
  const total = rounds.length + judgments.length;
  if (!json) {
    const byPerson = rounds.filter((r) => r.decided_by === 'person').length;
    const kinds = byPerson > 0 ? ` verdict${rounds.length === 1 ? '' : 's'} (${rounds.length - byPerson} of the teacher, ${byPerson} of a person who answered)` : ` teacher verdict${rounds.length === 1 ? '' : 's'}`;
    const judged = `${judgments.length} pattern judgment${judgments.length === 1 ? '' : 's'}`;
    const cases = judgments.length === 0 ? `${rounds.length} recorded${kinds}` : rounds.length === 0 ? `${judgments.length} recorded ${judged.slice(judged.indexOf(' ') + 1)}` : `${rounds.length} recorded${kinds} and ${judged}`;
    io.stdout(`steward eval verdicts · candidate teacher ${teacher.label} · ${cases} from ${read.runs} run${read.runs === 1 ? '' : 's'} · no tool is executed\n`);
    if (read.unasked > 0) io.stdout(`  ${read.unasked} pattern judgment${read.unasked === 1 ? ' was' : 's were'} recorded before Steward kept a judge's prompt: not asked\n`);
  }
  const results: VerdictCaseResult[] = [];
  const judged: JudgmentCaseResult[] = [];
  const stopped = (i: number, error: unknown) => {
    const message = error instanceof ProviderError ? error.message : error instanceof Error ? error.message : String(error);
    io.stderr(`steward eval verdicts: the candidate teacher ${teacher.label} stopped answering at case ${i + 1} of ${total}: ${message}\n`);
    return CODE.badInput;
  };
  for (const [i, round] of rounds.entries()) {
    try {
      const result = await replayVerdict(round, teacher, io.signal);
      results.push(result);
      io.stderr(`  ${i + 1}/${total} ${where(round)} · ${result.flip === undefined ? 'same verdict' : result.flip === 'no_verdict' ? 'no usable verdict' : `${result.past.verdict} → ${result.now?.verdict ?? '?'}`}\n`);
    } catch (error) {
      return stopped(i, error);
    }
  }
  for (const [k, judgment] of judgments.entries()) {
    const i = rounds.length + k;
    try {
      const result = await replayJudgment(judgment, teacher, io.signal);
      judged.push(result);
      io.stderr(`  ${i + 1}/${total} ${judgmentWhere(judgment)} · ${result.flip === undefined ? 'same judgment' : result.flip === 'no_verdict' ? 'no usable judgment' : `${judgment.past.verdict} → ${result.now?.verdict ?? '?'}`}\n`);
    } catch (error) {
      return stopped(i, error);
    }
  }
  const flips = results.filter((r) => r.flip !== undefined).sort(flipOrder);
  const judgmentFlips = judged.filter((r) => r.flip !== undefined).sort(judgmentFlipOrder);
  const lost = flips.filter(isProtectedCatchLost);
  const code = lost.length > 0 ? CODE.caughtLost : CODE.ok;
  if (json) {
    io.stdout(
      `${JSON.stringify(
        {
          teacher: teacher.label,
          cases: results.length + judged.length,
          agreeing: results.length - flips.length + judged.length - judgmentFlips.length,
          protected_catches_lost: lost.length,
          judgments: { cases: judged.length, agreeing: judged.length - judgmentFlips.length, not_asked: read.unasked },
          judgment_flips: judgmentFlips.map((r) => ({
            run_id: r.judgment.run_id,
            invocation_id: r.judgment.invocation_id,
            spec_name: r.judgment.spec_name,
            judgment_id: r.judgment.judgment_id,
            step: r.judgment.step + 1,
            iteration: r.judgment.iteration,
            kind: r.flip,
            past: r.judgment.past,
            ...(r.now ? { now: r.now } : {}),
            ...(r.problem !== undefined ? { problem: r.problem } : {}),
            words: judgmentFlipWords(r),
          })),
          flips: flips.map((r) => ({
            run_id: r.round.run_id,
            ...(r.round.invocation_id !== undefined ? { invocation_id: r.round.invocation_id } : {}),
            spec_name: r.round.spec_name,
            round: roundNumber(r.round.round),
            kind: r.flip,
            protected: r.round.protected,
            ...(r.round.tool ? { tool: r.round.tool } : {}),
            rule: r.round.record.review?.rule,
            past: r.past,
            decided_by: r.round.decided_by ?? 'teacher',
            ...(r.round.teacher_verdict ? { teacher_verdict: r.round.teacher_verdict } : {}),
            ...(r.now ? { now: r.now } : {}),
            ...(r.problem !== undefined ? { problem: r.problem } : {}),
            context: r.round.context,
            ...(r.round.person !== undefined ? { person: r.round.person } : {}),
            words: flipWords(r),
          })),
          exit_code: code,
        },
        null,
        2,
      )}\n`,
    );
    return code;
  }
  for (const r of flips) io.stdout(`${isProtectedCatchLost(r) ? '✗' : '·'} ${where(r.round)}: ${flipWords(r)}\n`);
  for (const r of judgmentFlips) io.stdout(`· ${judgmentWhere(r.judgment)}: ${judgmentFlipWords(r)}\n`);
  if (results.length + judged.length === 0) io.stdout('no recorded teacher verdicts or pattern judgments in this history: nothing to compare (a supervised run records one for each review)\n');
  else {
    if (results.length > 0) {
      if (flips.length === 0) io.stdout(`no verdict flips: the candidate ruled as the recorded teacher on all ${results.length} case${results.length === 1 ? '' : 's'}\n`);
      else {
        const worst = lost.length > 0 ? ` · ${lost.length} past catch${lost.length === 1 ? '' : 'es'} of a protected effect would now be accepted: do not switch to this teacher as it is` : '';
        io.stdout(`${flips.length} of ${results.length} verdicts flip${worst}\n`);
      }
    }
    if (judged.length > 0) {
      const lostJudged = judgmentFlips.filter((r) => r.flip === 'catch_lost').length;
      const worst = lostJudged > 0 ? ` · ${lostJudged} output${lostJudged === 1 ? '' : 's'} a judge or a person stopped would now be approved` : '';
      io.stdout(judgmentFlips.length === 0 ? `no judgment flips: the candidate judged as recorded on all ${judged.length} pattern judgment${judged.length === 1 ? '' : 's'}\n` : `${judgmentFlips.length} of ${judged.length} pattern judgments flip${worst}\n`);
    }
  }
  return code;
}


async function profileMode(changed: ChangedRules, limit: number, json: boolean, dataDirFlag: string | undefined, io: CliIo): Promise<number> {
  const read = await readRounds(io, dataDirFlag, (r) => r.record.review !== undefined, limit);
  if (!read.ok) return read.code;
  const replay = replayProfile(read.rounds, changed);
  const lost = replay.unreviewed.filter((u) => u.catch_lost);
  const code = lost.length > 0 ? CODE.caughtLost : CODE.ok;
  if (json) {
    io.stdout(
      `${JSON.stringify(
        {
          profile: changed.label,
          model_calls: 0,
          rounds: read.rounds.length,
          reviewed: replay.reviewed,
          newly_reviewed: replay.newly_reviewed,
          catches_lost: lost.length,
          no_longer_reviewed: replay.unreviewed.map((u) => ({
            run_id: u.round.run_id,
            ...(u.round.invocation_id !== undefined ? { invocation_id: u.round.invocation_id } : {}),
            spec_name: u.round.spec_name,
            round: roundNumber(u.round.round),
            protected: u.round.protected,
            then_rule: u.then.rule,
            now_rule: u.now.rule,
            ...(u.round.verdict ? { verdict: u.round.verdict } : {}),
            catch_lost: u.catch_lost,
            words: unreviewedWords(u),
          })),
          exit_code: code,
        },
        null,
        2,
      )}\n`,
    );
    return code;
  }
  io.stdout(`steward eval verdicts · supervision profile ${changed.label} · ${read.rounds.length} recorded rounds, ${replay.reviewed} reviewed · no model is called\n`);
  for (const u of replay.unreviewed) io.stdout(`${u.catch_lost ? '✗' : '·'} ${where(u.round)}: ${unreviewedWords(u)}\n`);
  const more = replay.newly_reviewed > 0 ? ` · ${replay.newly_reviewed} round${replay.newly_reviewed === 1 ? '' : 's'} not reviewed then would be` : '';
  if (replay.unreviewed.length === 0) io.stdout(`every round reviewed then would still be reviewed${more}\n`);
  else {
    const worst = lost.length > 0 ? ` · ${lost.length} of them the teacher stopped (blocked, replaced or escalated): with these rules that would have gone through` : '';
    io.stdout(`${replay.unreviewed.length} of ${replay.reviewed} reviewed rounds would no longer be reviewed${worst}${more}\n`);
  }
  return code;
}
