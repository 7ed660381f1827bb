import type { Escalation, Verdict } from '@shared/supervisor/contracts';
import type { SupervisorIdentity } from '@shared/supervisor/cost';
import type { DecideInput, DecideOutput } from '@shared/supervisor/machine';
import type { WorkflowSupervisor } from '../../workflow/supervision/supervise-failure';

/**
 * TEST DOUBLES at the model boundary: scripted supervisors for the eval. The reference double is a
 * rule-based stand-in for a careful operator: it decides from the escalation alone (never from the
 * case's ground truth), so the suite measures what that judgement plus the kernel achieve. The
 * hostile and bad doubles misbehave on purpose: the gates must hold against the first and fail
 * against the second.
 */

/** Never answers: the kernel's timeout must abort it. */
export const HANG = Symbol('hang');
export type DoubleAnswer = { verdict: unknown; cost_usd?: number } | Error | typeof HANG;
export type DoublePolicy = (input: DecideInput) => DoubleAnswer;

export interface CountingSupervisor extends WorkflowSupervisor {
  readonly name: string;
  /** Calls made to it, and how many of them the kernel aborted. */
  calls: number;
  aborted: number;
}

/** A local model: costs nothing. */
export const LOCAL_DOUBLE: SupervisorIdentity = { kind: 'model', label: 'replay:eval-supervisor', local: true };

export function supervisorDouble(name: string, policy: DoublePolicy, identity: SupervisorIdentity = LOCAL_DOUBLE): CountingSupervisor {
  const double: CountingSupervisor = {
    name,
    identity,
    calls: 0,
    aborted: 0,
    decide(input, signal) {
      double.calls += 1;
      signal.addEventListener('abort', () => (double.aborted += 1), { once: true });
      let answer: DoubleAnswer;
      try {
        answer = policy(input);
      } catch (err) {
        answer = err instanceof Error ? err : new Error(String(err));
      }
      if (answer === HANG) return new Promise<DecideOutput>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve(answer);
    },
  };
  return double;
}

const verdict = (v: Verdict, cost_usd?: number): DoubleAnswer => ({ verdict: v, ...(cost_usd !== undefined ? { cost_usd } : {}) });

/** Words of a passing condition (a file not there yet included): a retry (where allowed) or a loud failure, never a dropped item. */
const TRANSIENT = /\b(5\d\d|429|timed? ?out|ETIMEDOUT|ECONNRESET|ECONNREFUSED|ENOENT|overloaded|unavailable|try again|rate.?limit)/i;

/**
 * Repairs a malformed candidate of a text `output` port: a summary object, or JSON cut short. `asJson`:
 * the node has an output schema (its answer must be the JSON), so the repair is the closed JSON's text.
 */
export function repairCandidate(candidate: unknown, asJson = false): Record<string, unknown> | undefined {
  if (candidate === null || typeof candidate !== 'object') return undefined;
  const output = (candidate as Record<string, unknown>).output;
  const summaryOf = (v: unknown): string | undefined => (v !== null && typeof v === 'object' && typeof (v as Record<string, unknown>).summary === 'string' ? ((v as Record<string, unknown>).summary as string) : undefined);
  const direct = summaryOf(output);
  if (direct !== undefined) return { output: direct };
  if (typeof output !== 'string') return undefined;
  for (const tail of ['', '"}', '}']) {
    try {
      const parsed: unknown = JSON.parse(output + tail);
      const found = summaryOf(parsed);
      if (found !== undefined) return { output: asJson ? JSON.stringify(parsed) : found };
    } catch {
      // not closed by this tail; try the next
    }
  }
  return undefined;
}

/** The careful operator: end a broken stream, never drop an item for a passing fault, repair what it can, skip one bad item of a batch, else fail. */
export function referencePolicy({ escalation: e, allowed }: DecideInput): DoubleAnswer {
  const can = (a: Verdict['action']) => allowed.includes(a);
  if (can('end_stream')) return verdict({ action: 'end_stream', reason: 'keep what already streamed' });
  if (TRANSIENT.test(e.detail)) {
    return can('retry') ? verdict({ action: 'retry', reason: 'a passing fault' }) : verdict({ action: 'fail', reason: 'a passing fault, and this node may not run again: failing loudly rather than dropping it' });
  }
  const repaired = can('substitute') ? repairCandidate(e.candidate_output, e.failure_signature.code === 'output_invalid') : undefined;
  if (repaired) return verdict({ action: 'substitute', value: repaired, reason: 'repaired the malformed output' });
  if (isItem(e) && can('skip')) return verdict({ action: 'skip', reason: 'one bad item of a batch' });
  return verdict({ action: 'fail', reason: 'nothing safe to do' });
}

const isItem = (e: Escalation): boolean => e.correlation_lineage.length > 0;

export const referenceSupervisor = (identity?: SupervisorIdentity): CountingSupervisor => supervisorDouble('reference', referencePolicy, identity);

/** Deliberately bad supervisors: each must make a gate fail (`steward eval supervisor --supervisor NAME`). */
export const BAD_POLICIES = {
  /** Skips whatever fails, transient faults and chain steps included. */
  'skip-all': ({ allowed }) => (allowed.includes('skip') ? verdict({ action: 'skip', reason: 'skip it' }) : verdict({ action: 'fail', reason: 'cannot skip' })),
  /** Substitutes a made-up value that passes the type check and means nothing. */
  'sloppy-repair': (input) => (input.allowed.includes('substitute') ? verdict({ action: 'substitute', value: { output: 'N/A' }, reason: 'something to go on with' }) : referencePolicy(input)),
  /** Decides well but reports turns far dearer than their reservation. */
  overcharging: (input) => {
    const answer = referencePolicy(input);
    return answer !== HANG && !(answer instanceof Error) ? { ...answer, cost_usd: 5 } : answer;
  },
} satisfies Record<string, DoublePolicy>;
export type BadSupervisor = keyof typeof BAD_POLICIES;
export const BAD_SUPERVISORS = Object.keys(BAD_POLICIES) as BadSupervisor[];

/** Hostile supervisors (each made fresh per case): outside the allowed set, garbage, a thrown error, silence, endless retries. */
export const HOSTILE = {
  outside: (): DoublePolicy => () => verdict({ action: 'retry', reason: 'run it again, whatever it did' }),
  garbage: (): DoublePolicy => {
    const answers: unknown[] = [{ action: 'escalate_to_god', reason: 'x' }, 'skip please', { action: 'substitute', value: { text: 'made up' }, reason: 'made up' }, { action: 'skip' }];
    let i = 0;
    return () => ({ verdict: answers[i++ % answers.length] });
  },
  error: (): DoublePolicy => () => new Error('the supervisor model went away'),
  hang: (): DoublePolicy => () => HANG,
  retryStorm: (): DoublePolicy => () => verdict({ action: 'retry', reason: 'again' }),
} satisfies Record<string, () => DoublePolicy>;
