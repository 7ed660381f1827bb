import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { Profile, ProfileBundle } from '@shared/contracts/profiles';
import { SupervisionSpec } from '@shared/contracts/spec';
import { decideReview, type ReviewDecision } from '@shared/policy/review-policy';
import { untrustedMarks } from '@shared/boundary/provenance';
import { isSampled } from '@shared/policy/sampler';
import { SpecError } from '../../spec/spec-errors';
import type { RecordedRound } from './recorded-rounds';

/**
 * A changed supervision profile (review rules) put to the recorded rounds with no model call: the
 * shared review policy decides each round again on the facts it decided on then (validation,
 * decision, effect, proposer, the seeded sample draw), and the rounds that were reviewed and would
 * no longer be are listed.
 */

/** The review settings a file gives: the phase only when it names one (a supervision profile has none: each run keeps its own). */
export interface ChangedRules {
  label: string;
  supervision: Omit<SupervisionSpec, 'phase'> & { phase?: SupervisionSpec['phase'] };
}

const PlainSupervision = SupervisionSpec.omit({ phase: true }).extend({ phase: SupervisionSpec.shape.phase.unwrap().optional() });

/** Reads FILE: a supervision profile, a profile bundle holding one, or supervision settings as a spec's `supervision` writes them. */
export function readChangedRules(file: string): ChangedRules {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SpecError(`--profile ${file}: ${error instanceof SyntaxError ? 'not valid JSON' : 'cannot be read'} (${(error as Error).message})`);
  }
  const profile = Profile.safeParse(raw);
  if (profile.success) {
    if (profile.data.kind !== 'supervision') throw new SpecError(`--profile ${file}: this is a ${profile.data.kind} profile; give a supervision profile (its review rules)`);
    return { label: `${profile.data.name} v${profile.data.version}`, supervision: profile.data.supervision };
  }
  const bundle = ProfileBundle.safeParse(raw);
  if (bundle.success) {
    const found = bundle.data.profiles.flatMap((p) => (p.kind === 'supervision' ? [p] : []));
    const [only, second] = found;
    if (only === undefined || second !== undefined) throw new SpecError(`--profile ${file}: the bundle holds ${found.length} supervision profiles; export the one you mean on its own`);
    return { label: `${only.name} v${only.version}`, supervision: only.supervision };
  }
  const holder = z.object({ supervision: z.unknown() }).loose().safeParse(raw);
  const plain = PlainSupervision.safeParse(holder.success ? holder.data.supervision : raw);
  if (plain.success) return { label: file, supervision: plain.data };
  const issues = plain.error.issues.map((i) => `${i.path.join('.') || 'supervision'}: ${i.message}`).join('; ');
  throw new SpecError(`--profile ${file}: neither a supervision profile nor supervision settings (${issues})`);
}

export interface UnreviewedRound {
  round: RecordedRound;
  then: ReviewDecision;
  now: ReviewDecision;
  /** The teacher stopped it then (block, replace, escalate): a catch the new rules would lose. */
  catch_lost: boolean;
}

export interface ProfileReplay {
  reviewed: number;
  unreviewed: UnreviewedRound[];
  /** Rounds not reviewed then that the new rules would review. */
  newly_reviewed: number;
}

export function replayProfile(rounds: readonly RecordedRound[], changed: ChangedRules): ProfileReplay {
  let reviewed = 0;
  let newly = 0;
  const unreviewed: UnreviewedRound[] = [];
  for (const round of rounds) {
    const then = round.record.review;
    if (then === undefined) continue;
    const supervision = { ...changed.supervision, phase: changed.supervision.phase ?? round.supervision.phase };
    const now = decideReview({
      supervision,
      validationOk: round.record.validation?.ok === true,
      ...(round.decision ? { decision: round.decision } : {}),
      ...(round.tool && round.decision?.decision_type === 'tool_call' ? { effect: round.tool.effect } : {}),
      proposer: round.record.proposer,
      sampled: isSampled(supervision.rules.sample_rate, supervision.rules.sample_seed, round.sampler_run, round.round),
      afterRefusal: then.rule === 'after_refusal',
      // The round's recorded provenance (issue 31): the same marks, judged by the new rules.
      untrusted: untrustedMarks(round.record.provenance ?? []),
    });
    if (then.required) reviewed += 1;
    if (then.required && !now.required) {
      const verdict = round.verdict?.verdict;
      unreviewed.push({ round, then, now, catch_lost: verdict !== undefined && verdict !== 'accept' });
    }
    if (!then.required && now.required) newly += 1;
  }
  unreviewed.sort((a, b) => rank(a) - rank(b) || (a.round.started_at < b.round.started_at ? 1 : a.round.started_at > b.round.started_at ? -1 : a.round.round - b.round.round));
  return { reviewed, unreviewed, newly_reviewed: newly };
}

const rank = (u: UnreviewedRound) => (u.catch_lost ? 0 : 2) + (u.round.protected ? 0 : 1);
