import { agreeKinds } from '../agreement';
import type { JudgmentRecord, VerdictKind } from '../contracts';
import { FEEDBACK_HEADING } from '../prompt';
import type { JournalEntry, Trace } from './paths';

/**
 * The pattern driver's invariants (issue 12) as checks over one replayed trace. Each re-derives
 * what it needs from the calls and answers (which round rejected, which feedback was given) rather
 * than trusting the machine's context. Returns the violations; empty means all held.
 *
 * P1 a rejected output never leaves the node (only best_unapproved returns one, marked unapproved)
 * P2 iterations never exceed the bound, per judged unit; a caller is asked at most twice per round
 * P3 an escalation ends the loop: nothing is dispatched or judged after it, and the node ends escalated
 * P4 exhaustion follows its policy
 * P5 a verification failure retries the judge once with the problem, then escalates or fails as configured
 * P6 a rejection's feedback reaches the next iteration's member prompt and judge prompt
 * P7 every judgment is recorded once, with a unique id, a caller, a verification outcome and timing, and announced
 */

const calls = <K extends 'dispatch' | 'judge'>(j: JournalEntry[], kind: K): Extract<JournalEntry, { kind: K }>[] =>
  j.filter((e): e is Extract<JournalEntry, { kind: K }> => e.kind === kind);

const unit = (step: number, iteration: number): string => `${step}.${iteration}`;

export function checkPatternInvariants(trace: Trace): string[] {
  const v: string[] = [];
  const { settings } = trace.input;
  const out = trace.output;
  const records = trace.judgments;
  if (out && JSON.stringify(out.judgments) !== JSON.stringify(records)) v.push('P7: the outcome does not carry every recorded judgment');
  const dispatches = calls(trace.journal, 'dispatch');

  // The decision of every judged round, recomputed from the verified verdicts.
  const rounds = new Map<string, VerdictKind[]>();
  for (const r of records) if (r.verdict) rounds.set(unit(r.step, r.iteration), [...(rounds.get(unit(r.step, r.iteration)) ?? []), r.verdict.verdict]);
  const decisionOf = (key: string): string | undefined => {
    const kinds = rounds.get(key);
    if (!kinds) return undefined;
    // A round cut short by an escalation, or by a verification that ran out, is decided by what it has.
    return agreeKinds(kinds, settings.judgment.agreement);
  };

  // P1
  if (out?.result !== undefined) {
    const from = out.from ? unit(out.from.step, out.from.iteration) : '?';
    const d = decisionOf(from);
    if (out.approved && d !== 'approved') v.push(`P1: a result marked approved came from round ${from}, decided ${d ?? 'never'}`);
    if (d === 'rejected' && !(out.status === 'unapproved' && !out.approved)) v.push(`P1: the rejected output of round ${from} left the node as ${out.status}`);
    if (out.status === 'accepted' && (d !== undefined || settings.judgment.trigger.kind !== 'below_confidence')) v.push('P1: an output was accepted unjudged outside a confidence threshold');
  }
  if ((out?.status === 'escalated' || out?.status === 'failed') && out.result !== undefined) v.push(`P1: a ${out.status} node let a result out`);

  // P2
  const perStep = new Map<number, number>();
  for (const d of dispatches) perStep.set(d.input.step, (perStep.get(d.input.step) ?? 0) + 1);
  for (const [step, n] of perStep) if (n > settings.max_iterations) v.push(`P2: step ${step} dispatched ${n} times (max ${settings.max_iterations})`);
  if (dispatches.some((d) => d.input.iteration > settings.max_iterations)) v.push('P2: an iteration beyond the bound was dispatched');
  const asks = new Map<string, number>();
  for (const r of records) {
    const key = `${r.step}.${r.iteration}.${r.id.split('.').at(-2) ?? ''}.${r.id.endsWith('f') ? 'f' : ''}`;
    asks.set(key, (asks.get(key) ?? 0) + 1);
  }
  for (const [key, n] of asks) if (n > 2) v.push(`P2: caller ${key} was asked ${n} times in one round`);

  // P3
  const firstEscalation = records.findIndex((r) => r.verdict?.verdict === 'escalated');
  if (firstEscalation >= 0) {
    if (out?.status !== 'escalated') v.push(`P3: an escalation did not end the node escalated (${out?.status ?? 'unfinished'})`);
    if (firstEscalation !== records.length - 1) v.push('P3: a judgment followed an escalation');
    const esc = records[firstEscalation];
    if (esc && dispatches.some((d) => d.input.step > esc.step || (d.input.step === esc.step && d.input.iteration > esc.iteration))) v.push('P3: members were dispatched after an escalation');
  }

  // P4
  const last = dispatches.at(-1);
  if (last && last.input.iteration === settings.max_iterations && decisionOf(unit(last.input.step, last.input.iteration)) === 'rejected' && out) {
    const expected = { fail: 'failed', escalate: 'escalated', best_unapproved: 'unapproved' }[settings.on_exhaustion];
    const lastRecord = records.at(-1);
    // A round that ran out of verification retries ends by that policy instead.
    if (lastRecord?.verification.ok !== false && out.status !== expected) v.push(`P4: exhausted under ${settings.on_exhaustion} but ended ${out.status}`);
    if (out.status === 'unapproved' && (out.result === undefined || out.approved)) v.push('P4: best_unapproved returned no result, or did not mark it unapproved');
  }

  // P5
  records.forEach((r, i) => {
    if (r.verification.ok) return;
    const next = records[i + 1];
    const sameCaller = next && next.step === r.step && next.iteration === r.iteration && next.id.split('.').at(-2) === r.id.split('.').at(-2);
    if (r.attempt === 1) {
      // The person asked again may let it expire: then the fallback model answers in their place.
      const retried = sameCaller === true && (next?.attempt === 2 || next?.id.endsWith('f') === true);
      // A person asked again may stop the run instead of answering.
      const cancelled = next === undefined && out?.status === 'failed' && out.reason === 'user pressed stop';
      if (out && !retried && !cancelled) v.push(`P5: a failed verification (${r.id}) was not retried`);
      if (retried && !retriedWithProblem(trace.journal, r)) v.push(`P5: the retry of ${r.id} was not told the problem`);
    } else {
      const expected = settings.judgment.on_verification_failure === 'retry_then_escalate' ? 'escalated' : 'failed';
      if (i !== records.length - 1 || out?.status !== expected) v.push(`P5: a second verification failure did not end the node ${expected}`);
    }
  });

  // P6
  dispatches.forEach((d) => {
    if (d.input.iteration < 2) return;
    const prev = decisionOf(unit(d.input.step, d.input.iteration - 1));
    if (prev !== 'rejected') return;
    const feedback = records.filter((r) => r.step === d.input.step && r.iteration === d.input.iteration - 1 && r.verdict?.verdict === 'rejected');
    const texts = feedback.map((r) => (r.verdict?.verdict === 'rejected' ? r.verdict.feedback : ''));
    if (!d.input.prompt.includes(FEEDBACK_HEADING) || texts.some((t) => !d.input.prompt.includes(t))) v.push(`P6: iteration ${d.input.iteration}'s prompt lacks the previous feedback`);
    for (const j of calls(trace.journal, 'judge')) {
      if (j.input.step === d.input.step && j.input.iteration === d.input.iteration && texts.some((t) => !j.input.prompt.includes(t))) v.push(`P6: the judge of iteration ${d.input.iteration} was not shown the previous feedback`);
    }
  });

  // P7
  const ids = new Set(records.map((r) => r.id));
  if (ids.size !== records.length) v.push('P7: two judgments share an id');
  if (records.some((r) => !r.started_at && r.verification.ok)) v.push('P7: a verified judgment has no timing');
  const announced = trace.journal.flatMap((e) => (e.kind === 'emitted' && e.event.type === 'pattern.judgment_recorded' ? [e.event.record] : []));
  if (JSON.stringify(announced) !== JSON.stringify(records)) v.push('P7: the announced judgments differ from the recorded ones');
  const answered = calls(trace.journal, 'judge').filter((j) => j.answer !== undefined || j.error !== undefined).length;
  const humans = trace.journal.filter((e) => e.kind === 'sent' && e.event.type === 'HUMAN_ANSWERED').length;
  const expiries = records.filter((r) => r.caller.kind === 'system').length;
  if (out && records.length !== answered + humans + expiries) v.push(`P7: ${records.length} records for ${answered + humans + expiries} answers`);
  const ended = trace.journal.filter((e) => e.kind === 'emitted' && e.event.type === 'pattern.ended');
  if (out && (ended.length !== 1 || JSON.stringify((ended[0] as { event: { outcome: unknown } }).event.outcome) !== JSON.stringify(out))) v.push('P7: pattern.ended was not announced once with the outcome');
  return v;
}

/** The call after a failed verification carries its problem (a model's input, or the person's waiting notice). */
function retriedWithProblem(journal: JournalEntry[], r: JudgmentRecord): boolean {
  const problem = r.verification.ok ? '' : r.verification.problem;
  return journal.some(
    (e) =>
      (e.kind === 'judge' && e.input.attempt === 2 && e.input.step === r.step && e.input.iteration === r.iteration && e.input.problem === problem) ||
      (e.kind === 'emitted' && e.event.type === 'pattern.waiting' && e.event.waiting.problem === problem),
  );
}
