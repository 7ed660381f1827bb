import { beforeAll, describe, expect, it } from 'vitest';
import { assign } from 'xstate';
import type { ScsSettings } from './contracts';
import { scsMachine, type ScsContext, type ScsInput } from './machine';
import { scsInput } from './testing/fixtures';
import { checkScsInvariants } from './testing/invariants';
import { describePath, eventKey, generateScsPaths, maximalPaths, scsEdges, type AlphabetOptions, type ScsPath } from './testing/path-alphabet';
import { replayScsPath, type ScsTrace } from './testing/replay';
import { allStateKeys, allTransitionKeys } from './testing/scripted-roles';

/**
 * Model-based proof of the SCS controller: generate a path to every (state, last event) pair over
 * the full alphabet of committee and monitor answers and run-loop events (xstate/graph), replay each
 * path that no other path extends against a live actor with scripted roles, and check S1–S8 on what
 * the live actor asked, decided and emitted. Settings are tight so every bound runs out on some path.
 */

const TIGHT: Partial<ScsSettings> = {
  max_committee_retries: 1,
  max_replans: 1,
  max_extensions: 1,
  extension_rounds: 1,
  monitor_every: 2,
  budget_warning: 1,
  loop_guard: 2,
  max_phases: 2,
};

/**
 * Every decision kind at every review for write work; the other cases (read-only, other settings)
 * answer each review with its right kinds and one wrong kind, which takes the same transition.
 */
const CASES: { name: string; input: ScsInput; alphabet: AlphabetOptions }[] = [
  // One phase (max_phases 1) except in the rolling-phases case, which keeps the suite fast.
  { name: 'write work · tight bounds · one phase · budget 2', input: scsInput({ writeWork: true, budget: 2, settings: { ...TIGHT, max_phases: 1 } }), alphabet: { answers: 'every' } },
  {
    name: 'write work · rolling phases (max 2) · no retries or extensions · budget 2',
    input: scsInput({ writeWork: true, budget: 2, settings: { ...TIGHT, max_committee_retries: 0, max_extensions: 0 } }),
    alphabet: { answers: 'representative' },
  },
  { name: 'read-only work · tight bounds · one phase · budget 2', input: scsInput({ writeWork: false, budget: 2, settings: { ...TIGHT, max_phases: 1 } }), alphabet: { answers: 'representative' } },
  {
    name: 'write work · no retries, replans or extensions',
    input: scsInput({ writeWork: true, budget: 2, settings: { ...TIGHT, max_committee_retries: 0, max_replans: 0, max_extensions: 0 } }),
    alphabet: { answers: 'representative' },
  },
  {
    // Alternative plans (chosen, edited, refused) and the file batch: one phase, a batch of one file.
    name: 'write work · alternative plans · file batch 1 · budget 2',
    input: scsInput({ writeWork: true, budget: 2, settings: { ...TIGHT, max_phases: 1, max_replans: 0, max_extensions: 0, monitor_every: 5, file_batch: 1, alternatives: 2 } }),
    alphabet: { answers: 'representative', alternatives: true },
  },
  {
    name: 'read-only work · a review every round · loop guard 3 · extensions of 2',
    input: scsInput({ writeWork: false, budget: 2, settings: { ...TIGHT, monitor_every: 1, loop_guard: 3, extension_rounds: 2, max_replans: 0, max_committee_retries: 0, max_phases: 1 } }),
    alphabet: { answers: 'representative' },
  },
];

interface CaseResult {
  generated: number;
  replayed: number;
  paths: ScsPath[];
  failures: string[];
  ends: Record<string, number>;
}

const results = new Map<string, CaseResult>();
const statesVisited = new Set<string>();
const transitionsTaken = new Set<string>();
const finalContexts: { input: ScsInput; context: ScsContext; value: string }[] = [];

function record(trace: ScsTrace, path: ScsPath, result: CaseResult): void {
  for (const s of trace.statesVisited) statesVisited.add(s);
  for (const t of trace.transitionsTaken) transitionsTaken.add(t);
  result.ends[trace.finalValue] = (result.ends[trace.finalValue] ?? 0) + 1;
  finalContexts.push({ input: trace.input, context: trace.context, value: trace.finalValue });
  const violations = [...trace.mismatches, ...checkScsInvariants(trace)];
  if (violations.length > 0) result.failures.push(`${describePath(path)}\n    ${violations.join('\n    ')}`);
}

describe('every generated path through the SCS controller', () => {
  beforeAll(async () => {
    for (const c of CASES) {
      const paths = generateScsPaths(c.input, scsMachine, c.alphabet);
      const replay = maximalPaths(paths);
      const result: CaseResult = { generated: paths.length, replayed: replay.length, paths: replay, failures: [], ends: {} };
      for (const path of replay) record(await replayScsPath(path, c.input), path, result);
      results.set(c.name, result);
    }
  }, 180_000);

  for (const c of CASES) {
    it(`keeps S1–S8 and replays live as generated: ${c.name}`, () => {
      const result = results.get(c.name);
      expect(result?.replayed).toBeGreaterThan(50);
      expect(result?.failures.slice(0, 5)).toEqual([]);
    });
  }

  it('replays thousands of paths, ending blocked, finished, and with the budget spent', () => {
    const replayed = [...results.values()].reduce((n, r) => n + r.replayed, 0);
    const ends = new Set([...results.values()].flatMap((r) => Object.keys(r.ends)));
    expect(replayed).toBeGreaterThan(1500);
    for (const end of ['blocked', 'finished', 'executing']) expect(ends).toContain(end);
    expect(finalContexts.some((f) => f.value === 'executing' && f.context.facts.length >= f.context.budget)).toBe(true);
  });

  it('runs every bound out on some path: drafts, replans and extensions each reach their maximum', () => {
    const reached = (pred: (f: (typeof finalContexts)[number]) => boolean): boolean => finalContexts.some(pred);
    expect(reached((f) => f.value === 'blocked' && f.context.attempts === f.input.settings.max_committee_retries + 1 && f.context.blockedReasons.some((r) => r.startsWith('no plan was approved')))).toBe(true);
    expect(reached((f) => f.value === 'blocked' && f.context.blockedReasons.some((r) => r.startsWith('no replans left')))).toBe(true);
    expect(reached((f) => f.value === 'blocked' && f.context.phase === f.input.settings.max_phases && f.context.blockedReasons.some((r) => r.startsWith('no phases left')))).toBe(true);
    expect(reached((f) => f.input.settings.max_extensions > 0 && f.context.extensions === f.input.settings.max_extensions)).toBe(true);
  });

  it('every answer and run-loop event is replayed in every kind of wait that offers it, wrong kinds included', () => {
    const input = CASES[0]?.input ?? scsInput();
    const wait = (snapshot: ScsPath['state']): string => `${String(snapshot.value)}${snapshot.value === 'monitoring' ? `:${snapshot.context.trigger ?? ''}` : ''}`;
    const offered = new Set<string>();
    for (const { state, event } of scsEdges(input, CASES[0]?.alphabet)) offered.add(`${wait(state)} ${eventKey(event)}`);
    const replayed = new Set<string>();
    for (const path of results.get(CASES[0]?.name ?? '')?.paths ?? []) {
      path.steps.slice(1).forEach((step, i) => {
        const before = path.steps[i];
        if (before) replayed.add(`${wait(before.state)} ${eventKey(step.event)}`);
      });
    }
    expect([...offered].filter((o) => !replayed.has(o))).toEqual([]);
    // 11 answers at a plan review, 11 at each progress trigger and the finish, 12 at the budget.
    expect(offered.size).toBeGreaterThanOrEqual(3 + 11 + 4 * 11 + 12 + 3);
  });

  it('reach every state node of the machine, transient ones included (S7)', () => {
    expect(allStateKeys().filter((s) => !statesVisited.has(s))).toEqual([]);
  });

  it('take every transition of the machine (S7)', () => {
    expect(allTransitionKeys().filter((t) => !transitionsTaken.has(t))).toEqual([]);
  });
});

describe('path generation', () => {
  it('a live controller that diverges from the generated path is reported, not silently followed', async () => {
    const input = scsInput({ writeWork: true, budget: 2, settings: TIGHT });
    const vetoed = generateScsPaths(input).find((p) => p.state.value === 'planning' && p.state.context.decision?.decision === 'veto_plan');
    if (!vetoed) throw new Error('expected a path ending in a veto');
    const approvesVetoes = scsMachine.provide({ guards: { approved: ({ context }) => context.decision !== undefined } });
    const trace = await replayScsPath(vetoed, input, approvesVetoes);
    expect(trace.mismatches.length).toBeGreaterThan(0);
  });
});

/** Mutants of the controller: the invariant checks must catch each, or they prove nothing. */
describe('the invariant checks catch a broken controller', () => {
  async function violationsOf(machine: typeof scsMachine, input: ScsInput): Promise<string[]> {
    const found = new Set<string>();
    for (const path of maximalPaths(generateScsPaths(input, machine, { answers: 'representative' }))) {
      for (const v of checkScsInvariants(await replayScsPath(path, input, machine))) found.add(v.replace(/\b\d+\b/g, 'N'));
    }
    return [...found];
  }
  const small = (over: { writeWork?: boolean; settings?: Partial<ScsSettings>; budget?: number } = {}): ScsInput =>
    scsInput({ writeWork: over.writeWork ?? true, budget: over.budget ?? 1, settings: { ...TIGHT, max_replans: 0, max_extensions: 0, max_phases: 1, ...over.settings } });

  it('a controller that approves a vetoed plan is caught by S1', async () => {
    const mutant = scsMachine.provide({ guards: { approved: ({ context }) => context.decision?.decision === 'approve_plan' || context.decision?.decision === 'veto_plan' } });
    expect(await violationsOf(mutant, small())).toContain('S1: executing phase N under a plan the monitor never approved');
  });

  it('a controller that keeps asking the committee is caught by S2 and S3', async () => {
    const mutant = scsMachine.provide({ guards: { committeeRetriesLeft: ({ context }) => context.attempts <= context.settings.max_committee_retries + 1 } });
    const found = await violationsOf(mutant, small());
    expect(found).toContain('S2: N committee drafts for phase N (max N)');
    expect(found).toContain('S3: a role was asked again after a bound ran out');
  });

  it('a controller that replans without limit is caught by S2 and S3', async () => {
    const mutant = scsMachine.provide({ guards: { replansLeft: () => true } });
    const found = await violationsOf(mutant, small({ settings: { max_committee_retries: 0 } }));
    expect(found).toContain('S2: N replans (max N)');
    expect(found).toContain('S3: execution continued after a bound ran out');
  });

  it('a controller that asks about the budget again and again is caught by S2', async () => {
    const mutant = scsMachine.provide({ guards: { budgetLow: ({ context }) => context.budget - context.facts.length <= context.settings.budget_warning } });
    const found = await violationsOf(mutant, small({ budget: 2, settings: { max_committee_retries: 0, max_extensions: 0 } }));
    expect(found).toContain('S2: N extensions (max N)');
    expect(found.some((v) => v.startsWith('S2: the budget question was asked twice for the same budget'))).toBe(true);
  });

  it('a controller that finishes on a rejected finish is caught by S4', async () => {
    const mutant = scsMachine.provide({ guards: { finishAllowed: ({ context }) => context.decision?.decision === 'finish_allowed' || context.decision?.decision === 'finish_rejected' } });
    const found = await violationsOf(mutant, small({ settings: { max_committee_retries: 0 } }));
    expect(found).toContain('S4: finished on finish_rejected');
  });

  it('a controller that fails open on write work is caught by S1, S4 and S5', async () => {
    const mutant = scsMachine.provide({ guards: { writeWork: () => false } });
    const found = await violationsOf(mutant, small({ settings: { max_committee_retries: 0 } }));
    expect(found).toContain('S1: executing phase N under a plan the monitor never approved');
    expect(found).toContain('S4: write work finished although the monitor could not decide');
    expect(found).toContain('S5: write work did not block when the monitor failed');
  });

  it('a controller that keeps an accepted phase going instead of drafting the next is caught by S9', async () => {
    const mutant = scsMachine.provide({ guards: { acceptContinues: ({ context }) => context.decision?.decision === 'accept_phase' } });
    expect(await violationsOf(mutant, small({ settings: { max_committee_retries: 0, max_phases: 2 } }))).toContain('S9: an accepted phase did not send the committee to draft the next one');
  });

  it('a controller that ignores the stop conditions is caught by S10', async () => {
    const mutant = scsMachine.provide({ guards: { stopMatched: () => false } });
    const found = await violationsOf(mutant, small({ settings: { max_committee_retries: 0 } }));
    expect(found).toContain('S10: a matched stop condition did not ask the monitor (trigger stop_condition)');
    expect(found).toContain('S10: N phase_stopped events for N matched rounds');
  });

  it('a controller that forgets next_required_action after a refused finish is caught by S11', async () => {
    const mutant = scsMachine.provide({ actions: { requireFromDecision: assign({ required: undefined }) } });
    expect(await violationsOf(mutant, small({ settings: { max_committee_retries: 0 } }))).toContain('S11: a refused finish does not require more work first');
  });

  it('a controller that acts on an unusable answer (the previous decision) is caught by S5 and S6', async () => {
    const mutant = scsMachine.provide({ guards: { monitorUnusable: () => false } });
    const found = await violationsOf(mutant, small({ settings: { max_committee_retries: 1 } }));
    expect(found).toContain('S5: write work did not block when the monitor failed');
    expect(found).toContain('S6: the monitor events do not match the usable monitor answers one to one');
  });
});
