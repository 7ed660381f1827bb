import { JudgeVerdict, type CallerIdentity, type JudgmentVerdict, type MemberOutput, type VerifierSettings } from './contracts';

/**
 * The mandatory verifier: a judge's answer is usable only if it is a structured verdict (never free
 * text: a string is refused, not parsed), it matches the verdict schema, and an approval or a
 * rejection cites enough member outputs of the iteration it judges, including every required member.
 */

export interface Judged {
  /** The pattern's output under judgment: what an approval lets leave the node. */
  output: string;
  outputs: readonly MemberOutput[];
}

export type VerifierResult = { ok: true; verdict: JudgmentVerdict } | { ok: false; problem: string };

export function verifyVerdict(answer: unknown, judged: Judged, settings: VerifierSettings, caller: CallerIdentity): VerifierResult {
  if (typeof answer === 'string') return { ok: false, problem: 'the verdict was free text; answer with the structured verdict (approved, rejected or escalated)' };
  const parsed = JudgeVerdict.safeParse(answer);
  if (!parsed.success) {
    return { ok: false, problem: `the verdict does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'verdict'}: ${i.message}`).join('; ')}` };
  }
  const v = parsed.data;
  if (v.verdict === 'escalated') return { ok: true, verdict: { verdict: 'escalated', reason: v.reason, caller } };

  const byId = new Map(judged.outputs.map((o) => [o.id, o]));
  const unknown = v.evidence.filter((id) => !byId.has(id));
  if (unknown.length > 0) return { ok: false, problem: `the verdict cites outputs this iteration does not have: ${unknown.join(', ')}` };
  const cited = new Set(v.evidence);
  if (cited.size < settings.min_citations) return { ok: false, problem: `the verdict must cite at least ${settings.min_citations} member output(s); it cites ${cited.size}` };
  const citedMembers = new Set([...cited].map((id) => byId.get(id)?.member_id));
  const missing = settings.must_cite.filter((m) => !citedMembers.has(m));
  if (missing.length > 0) return { ok: false, problem: `the verdict must cite the output of ${missing.join(', ')}` };

  const evidence = [...cited];
  return v.verdict === 'approved'
    ? { ok: true, verdict: { verdict: 'approved', result: judged.output, evidence, caller } }
    : { ok: true, verdict: { verdict: 'rejected', feedback: v.feedback, evidence, caller } };
}
