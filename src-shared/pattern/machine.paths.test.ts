import { beforeAll, describe, expect, it } from 'vitest';
import { assign } from 'xstate';
import { patternMachine, type PatternInput } from './machine';
import { PIPELINE_MEMBERS, patternInput } from './testing/fixtures';
import { checkPatternInvariants } from './testing/invariants';
import { allStateKeys, allTransitionKeys, describePath, generatePaths, maximalPaths, replay, type Trace } from './testing/paths';

/**
 * Model-based proof of the pattern driver: a path to every (state, last event) pair over every
 * answer the members, the judges, a person and the expiry timer could give (xstate/graph), each
 * maximal path replayed against a live actor with scripted effects, and P1–P7 checked on it.
 */

const HUMAN = { kind: 'human' as const, expiry_seconds: 3600 };
const CASES: { name: string; input: PatternInput }[] = [
  { name: 'SUPERVISOR · one model judge · fail on exhaustion', input: patternInput() },
  { name: 'escalate on exhaustion · retry then fail', input: patternInput({ on_exhaustion: 'escalate', judgment: { on_verification_failure: 'retry_then_fail' } }) },
  { name: 'best_unapproved on exhaustion · 3 iterations', input: patternInput({ on_exhaustion: 'best_unapproved', max_iterations: 3 }) },
  { name: 'a person judges · no fallback', input: patternInput({ judgment: { callers: [HUMAN] } }) },
  { name: 'a person judges · a model stands in on expiry', input: patternInput({ max_iterations: 1, judgment: { callers: [{ ...HUMAN, fallback: { kind: 'llm', profile: 'backup' } }] } }) },
  {
    name: 'two model judges · majority · one iteration',
    input: patternInput({ max_iterations: 1, judgment: { agreement: 'majority', callers: [{ kind: 'llm', profile: 'a' }, { kind: 'llm', profile: 'b' }] } }),
  },
  { name: 'two judges · any · a person and a model', input: patternInput({ max_iterations: 1, on_exhaustion: 'best_unapproved', judgment: { agreement: 'any', callers: [HUMAN, { kind: 'llm', profile: 'b' }] } }) },
  { name: 'below confidence 0.5', input: patternInput({ judgment: { trigger: { kind: 'below_confidence', threshold: 0.5 } } }) },
  { name: 'every 2nd iteration · 3 iterations', input: patternInput({ max_iterations: 3, on_exhaustion: 'best_unapproved', judgment: { trigger: { kind: 'every_n', n: 2 } } }) },
  { name: 'PIPELINE of two steps judged after each', input: patternInput({ type: 'PIPELINE', members: PIPELINE_MEMBERS, judgment: { callers: [{ kind: 'llm', profile: 'gate' }] } }) },
  {
    name: 'PIPELINE · below confidence · best_unapproved',
    input: patternInput({ type: 'PIPELINE', members: PIPELINE_MEMBERS, max_iterations: 1, on_exhaustion: 'best_unapproved', judgment: { callers: [{ kind: 'llm', profile: 'gate' }], trigger: { kind: 'below_confidence', threshold: 0.5 } } }),
  },
];

const TOTAL_AT_LEAST = 500;
const results = new Map<string, { replayed: number; failures: string[]; ends: Set<string> }>();
const statesVisited = new Set<string>();
const transitionsTaken = new Set<string>();

describe('every generated path through the pattern driver', () => {
  beforeAll(async () => {
    for (const c of CASES) {
      const paths = maximalPaths(generatePaths(c.input));
      const failures: string[] = [];
      const ends = new Set<string>();
      for (const path of paths) {
        const trace: Trace = await replay(path, c.input);
        for (const s of trace.statesVisited) statesVisited.add(s);
        for (const t of trace.transitionsTaken) transitionsTaken.add(t);
        ends.add(trace.output?.status ?? `unfinished:${trace.finalValue}`);
        const violations = [...trace.mismatches, ...checkPatternInvariants(trace)];
        if (violations.length > 0) failures.push(`${describePath(path)}\n    ${violations.join('\n    ')}`);
      }
      results.set(c.name, { replayed: paths.length, failures, ends });
    }
  }, 180_000);

  for (const c of CASES) {
    it(`keeps P1–P7 and replays live as generated: ${c.name}`, () => {
      const r = results.get(c.name);
      expect(r?.replayed).toBeGreaterThan(5);
      expect(r?.failures.slice(0, 3)).toEqual([]);
    });
  }

  it('replays hundreds of paths', () => {
    expect([...results.values()].reduce((n, r) => n + r.replayed, 0)).toBeGreaterThan(TOTAL_AT_LEAST);
  });

  it('every ending occurs: approved, accepted, unapproved, escalated, failed', () => {
    // A path may also end before a final state: every way on from there is another path's.
    const ends = new Set([...results.values()].flatMap((r) => [...r.ends].filter((e) => !e.startsWith('unfinished'))));
    expect([...ends].sort()).toEqual(['accepted', 'approved', 'escalated', 'failed', 'unapproved']);
  });

  it('reaches every state of the driver, transient ones included', () => {
    expect(allStateKeys().filter((s) => !statesVisited.has(s))).toEqual([]);
  });

  it('takes every transition of the driver', () => {
    expect(allTransitionKeys().filter((t) => !transitionsTaken.has(t))).toEqual([]);
  });
});

/** Mutants of the driver: the invariant checks must catch each, or they prove nothing. */
describe('the invariant checks catch a broken driver', () => {
  async function violationsOf(machine: typeof patternMachine, input: PatternInput): Promise<string[]> {
    const found = new Set<string>();
    for (const path of maximalPaths(generatePaths(input, machine))) for (const v of checkPatternInvariants(await replay(path, input, machine))) found.add(v.replace(/\b\d+\b/g, 'N'));
    return [...found];
  }

  it('a driver that lets a rejected output leave is caught by P1', async () => {
    const mutant = patternMachine.provide({ guards: { approved: ({ context }) => context.agreement?.decision !== 'escalated' } });
    expect((await violationsOf(mutant, patternInput())).some((v) => v.startsWith('P1:'))).toBe(true);
  });

  it('a driver that ignores the iteration bound is caught by P2', async () => {
    const mutant = patternMachine.provide({ guards: { iterationsLeft: ({ context }) => context.iteration <= context.settings.max_iterations } });
    expect(await violationsOf(mutant, patternInput())).toContain('P2: step N dispatched N times (max N)');
  });

  it('a driver that keeps going after an escalation is caught by P3', async () => {
    const mutant = patternMachine.provide({ guards: { callerEscalated: () => false, escalated: () => false } });
    expect((await violationsOf(mutant, patternInput())).some((v) => v.startsWith('P3:'))).toBe(true);
  });

  it('a driver that fails instead of escalating on exhaustion is caught by P4', async () => {
    const mutant = patternMachine.provide({ guards: { exhaustEscalates: () => false } });
    const found = await violationsOf(mutant, patternInput({ on_exhaustion: 'escalate' }));
    expect(found).toContain('P4: exhausted under escalate but ended unapproved');
  });

  it('a driver that never retries an unverifiable verdict is caught by P5', async () => {
    const mutant = patternMachine.provide({ guards: { retryLeft: () => false } });
    expect((await violationsOf(mutant, patternInput())).some((v) => v.startsWith('P5: a failed verification'))).toBe(true);
  });

  it('a driver that drops the feedback is caught by P6', async () => {
    const mutant = patternMachine.provide({ actions: { carryFeedback: assign({ feedback: undefined }) } });
    expect(await violationsOf(mutant, patternInput())).toContain("P6: iteration N's prompt lacks the previous feedback");
  });
});
