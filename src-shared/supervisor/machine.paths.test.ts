import { beforeAll, describe, expect, it } from 'vitest';
import type { SupervisorSettingsInput } from './contracts';
import type { SupervisorIdentity } from './cost';
import type { SupervisorLedger } from './ledger';
import { supervisorMachine, type SupervisorInput } from './machine';
import { escalation, LOCAL, PERSON, supervisorInput } from './testing/fixtures';
import { allStateKeys, allTransitionKeys, checkDecision, generatePaths, replay, type SupervisorPath, type Trace } from './testing/paths';

/**
 * Every simple path through the decision machine, over every answer the supervisor and the
 * validator could give, replayed live and checked against K1–K9 (testing/paths.ts).
 */

const STICKY_SKIP: Partial<SupervisorLedger> = { sticky: { 'extract|code=invalid_output|http=|errno=': 'skip' } };

const CASES: { name: string; input: SupervisorInput }[] = [
  { name: 'every action allowed · priced cloud model · no cap', input: supervisorInput() },
  { name: 'money already spent (no retry) · cap for two turns', input: supervisorInput({ escalation: escalation({ spent_usd: 0.2 }), settings: { cost_cap_usd: 0.025 } }) },
  { name: 'a streaming node', input: supervisorInput({ escalation: escalation({ streaming: true }) }) },
  { name: 'no candidate to repair · not retry-safe', input: supervisorInput({ escalation: escalation({ has_candidate: false, retry_safe: false }) }) },
  { name: 'retries used up on an escalation that still offers retry', input: supervisorInput({ ledger: { retries: { 'extract[each=4]': 1 } } }) },
  { name: 'a sticky skip for this failure', input: supervisorInput({ ledger: STICKY_SKIP }) },
  { name: 'a sticky skip, but a streaming failure', input: supervisorInput({ escalation: escalation({ streaming: true }), ledger: STICKY_SKIP }) },
  { name: 'decisions used up', input: supervisorInput({ ledger: { decisions: 5 } }) },
  { name: 'an unpriced cloud model under a cap', input: supervisorInput({ settings: { cost_cap_usd: 1, pricing: {} } }) },
  { name: 'part of the output already delivered (only fail)', input: supervisorInput({ escalation: escalation({ emitted: true }) }) },
  { name: 'supervision off', input: supervisorInput({ settings: { enabled: false } }) },
  ...([
    ['a local model', LOCAL, {}],
    ['a person with no timeout', PERSON, { who: { kind: 'person' } }],
  ] as [string, SupervisorIdentity, SupervisorSettingsInput][]).map(([name, who, s]) => ({ name, input: supervisorInput({ who, settings: { cost_cap_usd: 0, ...s } }) })),
];

const results = new Map<string, { paths: SupervisorPath[]; failures: string[]; ends: Set<string> }>();
const statesVisited = new Set<string>();
const transitionsTaken = new Set<string>();

function describePath(path: SupervisorPath): string {
  return path.steps
    .slice(1)
    .map((s) => `${s.event.type.replace('xstate.', '')}${'output' in s.event ? ` ${JSON.stringify(s.event.output).slice(0, 40)}` : ''}`)
    .join(' → ');
}

async function check(path: SupervisorPath, input: SupervisorInput, machine = supervisorMachine): Promise<{ trace: Trace; violations: string[] }> {
  const trace = await replay(path, input, machine);
  return { trace, violations: [...trace.mismatches, ...checkDecision(trace)] };
}

describe('every generated path through the supervisor decision', () => {
  beforeAll(async () => {
    for (const c of CASES) {
      const paths = generatePaths(c.input);
      const failures: string[] = [];
      const ends = new Set<string>();
      for (const path of paths) {
        const { trace, violations } = await check(path, c.input);
        for (const s of trace.statesVisited) statesVisited.add(s);
        for (const t of trace.transitionsTaken) transitionsTaken.add(t);
        if (trace.output) ends.add(`${trace.output.verdict.verdict.action}/${trace.output.verdict.decided_by}`);
        if (violations.length > 0) failures.push(`${describePath(path)}\n    ${violations.join('\n    ')}`);
      }
      results.set(c.name, { paths, failures, ends });
    }
  });

  for (const c of CASES) {
    it(`keeps K1–K9 and replays live to the generated outcome: ${c.name}`, () => {
      const r = results.get(c.name);
      expect(r?.paths.length).toBeGreaterThan(0);
      expect(r?.failures.slice(0, 5)).toEqual([]);
    });
  }

  it('replays a few hundred paths', () => {
    const total = [...results.values()].reduce((n, r) => n + r.paths.length, 0);
    expect(total).toBeGreaterThan(150);
  });

  it('every verdict and every decider occurs somewhere', () => {
    const ends = new Set([...results.values()].flatMap((r) => [...r.ends]));
    const actions = new Set([...ends].map((e) => e.split('/')[0]));
    const deciders = new Set([...ends].map((e) => e.split('/')[1]));
    expect([...actions].sort()).toEqual(['end_stream', 'fail', 'retry', 'skip', 'substitute']);
    expect([...deciders].sort()).toEqual(['agent', 'bounds', 'default', 'kernel', 'sticky']);
  });

  it('reach every state and take every transition of the machine', () => {
    expect(allStateKeys().filter((s) => !statesVisited.has(s))).toEqual([]);
    expect(allTransitionKeys().filter((t) => !transitionsTaken.has(t))).toEqual([]);
  });
});

describe('the checks catch a broken kernel', () => {
  async function violationsOf(machine: typeof supervisorMachine, input: SupervisorInput): Promise<string[]> {
    const found: string[] = [];
    for (const path of generatePaths(input, machine)) found.push(...(await check(path, input, machine)).violations);
    return found;
  }

  it('a kernel that trusts the supervisor’s action is caught by K1, K2 and K4', async () => {
    const trusting = supervisorMachine.provide({ guards: { proposalOutsideAllowed: () => false } });
    const found = await violationsOf(trusting, supervisorInput({ escalation: escalation({ streaming: true }) }));
    expect(found.some((v) => v.startsWith('K1:'))).toBe(true);
    expect(found.some((v) => v.startsWith('K2:'))).toBe(true);
    expect(found.some((v) => v.startsWith('K4:'))).toBe(true);
  });

  it('a kernel that forgets the cost cap on repair turns is caught by K9', async () => {
    const careless = supervisorMachine.provide({ guards: { reservationRefused: ({ context }) => context.turns === 0 && context.reservation?.ok !== true } });
    const found = await violationsOf(careless, supervisorInput({ settings: { cost_cap_usd: 0.015 } }));
    expect(found.some((v) => v.startsWith('K9:'))).toBe(true);
  });
});
