import { beforeAll, describe, expect, it } from 'vitest';
import { assign } from 'xstate';
import { getSimplePaths } from 'xstate/graph';
import { boundaryMachine, type BoundaryInput } from './machine';
import type { ClaimFacts } from './final-answer-check';
import { Decision } from '../contracts/decision';
import { boundaryInput, CONFIRM_TOOLS, FILE_TOOLS, REPLACEMENTS, type ProposalName } from './testing/fixtures';
import { checkRoundInvariants } from './testing/invariants';
import { generateBoundaryPaths, pathOptions, type BoundaryPath } from './testing/path-alphabet';
import { allStateKeys, allTransitionKeys, replayPath, type ReplayTrace } from './testing/replay';

/**
 * Model-based proof of the boundary: generate every path over a rich alphabet of host answers
 * (xstate/graph), replay each against a live actor whose effects are scripted from the path, and
 * check I1–I6 on what the live actor actually asked its host to do and what it emitted.
 */

/** A run in which a person rejected a write: what a later final answer is checked against. */
const REFUSED_WRITE: ClaimFacts = {
  refused: [{ round: 0, how: 'rejected_by_person', decision: 'write_file {"path":"shared.md"}', tool: 'write_file', key: 'write_file#1' }],
  executed: [],
};

const CASES: { name: string; input: BoundaryInput }[] = [
  { name: 'student · phase 3 · invalid reviewed · 2 verdict attempts', input: boundaryInput() },
  {
    name: 'student · protected_effects · invalid not reviewed · 1 verdict attempt',
    input: boundaryInput({ supervision: { rules: { validation_failed: false }, max_verdict_attempts: 1 } }),
  },
  { name: 'student · phase 2 (fully gated) · 1 verdict attempt', input: boundaryInput({ supervision: { phase: 2, max_verdict_attempts: 1 } }) },
  { name: 'student · phase 4 (autonomous) · 1 verdict attempt', input: boundaryInput({ supervision: { phase: 4, max_verdict_attempts: 1 } }) },
  { name: 'student · phase 3 · sampled for audit · 1 verdict attempt', input: boundaryInput({ sampled: true, supervision: { max_verdict_attempts: 1 } }) },
  { name: 'student · phase 3 · 1 repair round · 1 verdict attempt', input: boundaryInput({ supervision: { max_repair_rounds: 1, max_verdict_attempts: 1 } }) },
  { name: 'student · supervision disabled', input: boundaryInput({ supervision: { enabled: false } }) },
  {
    name: 'student · phase 4 (autonomous) · after a refused write, final answers are reviewed · 1 verdict attempt',
    input: boundaryInput({ claims: REFUSED_WRITE, supervision: { phase: 4, max_verdict_attempts: 1 } }),
  },
  { name: 'teacher proposes (phase 0)', input: boundaryInput({ proposer: 'teacher' }) },
  {
    name: 'student · tools that require user confirmation · 1 verdict attempt',
    input: boundaryInput({ snapshot: CONFIRM_TOOLS, supervision: { max_verdict_attempts: 1 } }),
  },
  {
    name: 'a person approved the decision (preselected, confirmed)',
    input: boundaryInput({ snapshot: CONFIRM_TOOLS, preselected: { decision: REPLACEMENTS.send_email, intervention_id: 'iv-approved-1', confirmed: true } }),
  },
  {
    name: 'a person approved a decision that no longer validates',
    input: boundaryInput({ preselected: { decision: { decision_type: 'tool_call', tool_name: 'gone_tool', arguments: {} }, intervention_id: 'iv-stale-01', confirmed: false } }),
  },
  {
    name: 'student · phase plan allows only read_file · review all · 1 verdict attempt',
    input: boundaryInput({ constraints: { allowed_tools: ['read_file'] }, supervision: { phase: 2, max_verdict_attempts: 1 } }),
  },
];

interface CaseResult {
  paths: BoundaryPath[];
  failures: string[];
  outcomes: Record<string, number>;
}

const results = new Map<string, CaseResult>();
const statesVisited = new Set<string>();
const transitionsTaken = new Set<string>();

function describePath(path: BoundaryPath): string {
  return path.steps
    .slice(1)
    .map((s) => `${s.event.type.replace('xstate.', '')} → ${String(s.state.value)}`)
    .join(', ');
}

function record(trace: ReplayTrace, path: BoundaryPath, result: CaseResult): void {
  for (const s of trace.statesVisited) statesVisited.add(s);
  for (const t of trace.transitionsTaken) transitionsTaken.add(t);
  const outcome = trace.output?.outcome ?? 'unfinished';
  result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
  const violations = [...trace.mismatches, ...checkRoundInvariants(trace)];
  if (violations.length > 0) result.failures.push(`${describePath(path)}\n    ${violations.join('\n    ')}`);
}

describe('every generated path through the decision boundary', () => {
  beforeAll(async () => {
    for (const c of CASES) {
      const result: CaseResult = { paths: generateBoundaryPaths(c.input), failures: [], outcomes: {} };
      for (const path of result.paths) record(await replayPath(path, c.input), path, result);
      results.set(c.name, result);
    }
  });

  for (const c of CASES) {
    it(`keeps I1–I6 and replays live to the generated final state: ${c.name}`, () => {
      const result = results.get(c.name);
      expect(result?.paths.length).toBeGreaterThan(0);
      expect(result?.failures.slice(0, 5)).toEqual([]);
    });
  }

  it('replays more than a thousand paths, and every outcome occurs', () => {
    const total = [...results.values()].reduce((n, r) => n + r.paths.length, 0);
    const outcomes = new Set([...results.values()].flatMap((r) => Object.keys(r.outcomes)));
    expect(total).toBeGreaterThan(1000);
    expect([...outcomes].sort()).toEqual(['blocked', 'delivered', 'escalated', 'executed', 'failed']);
  });

  it('reach every state node of the machine, transient ones included', () => {
    expect(allStateKeys().filter((s) => !statesVisited.has(s))).toEqual([]);
  });

  it('take every transition except the defensive one the earlier steps make unreachable', () => {
    const missed = allTransitionKeys().filter((t) => !transitionsTaken.has(t));
    // A tool call reaching dispatch without execute authority: authorization never lets one through.
    expect(missed).toEqual(['dispatching|always|selectedIsToolCall']);
  });
});

describe('path generation', () => {
  it('finds exactly the simple paths: the state space is a tree', () => {
    const input = boundaryInput({ snapshot: FILE_TOOLS, supervision: { enabled: false } });
    const key = (p: BoundaryPath): string => p.steps.map((s) => JSON.stringify(s.event)).join('|');
    const simple = (getSimplePaths(boundaryMachine, pathOptions(input)) as unknown as BoundaryPath[]).map(key).sort();
    const shortest = generateBoundaryPaths(input).map(key).sort();
    expect(shortest).toEqual(simple);
    expect(shortest.length).toBeGreaterThan(10);
  });

  it('a live boundary that diverges from the generated path is reported, not silently followed', async () => {
    const input = boundaryInput({ supervision: { max_verdict_attempts: 1 } });
    const reviewed = generateBoundaryPaths(input, boundaryMachine, { proposals: ['write'] }).filter((p) => p.steps.some((s) => s.state.value === 'reviewing'));
    const skipsReview = boundaryMachine.provide({ guards: { reviewRequired: () => false } });
    const path = reviewed[0];
    if (!path) throw new Error('expected a path through review');

    const trace = await replayPath(path, input, skipsReview);
    expect(trace.mismatches.length).toBeGreaterThan(0);
  });

  it('keeps host answers that leave the same context apart', () => {
    // ledger executed vs in_flight both deny as duplicate_execution; they must still be two paths.
    const paths = generateBoundaryPaths(boundaryInput({ supervision: { enabled: false } }));
    const denials = paths.filter((p) => p.state.output?.reason === 'duplicate_execution' && p.state.output.selected?.decision.decision_type === 'tool_call');
    const ledgers = new Set(denials.map((p) => JSON.stringify(p.steps.at(-1)?.event)));
    expect(ledgers.size).toBe(denials.length);
    expect(denials.length).toBeGreaterThanOrEqual(2);
  });
});

/** Mutants of the boundary: the invariant checks must catch each, or they prove nothing. */
describe('the invariant checks catch a broken boundary', () => {
  async function violationsOf(machine: typeof boundaryMachine, input: BoundaryInput, proposals: ProposalName[]): Promise<string[]> {
    const found: string[] = [];
    for (const path of generateBoundaryPaths(input, machine, { proposals })) found.push(...checkRoundInvariants(await replayPath(path, input, machine)));
    return found;
  }

  it('a boundary that treats every selection as reviewed is caught by I4', async () => {
    const mutant = boundaryMachine.provide({
      actions: {
        selectCandidate: assign(({ context }) => ({
          selected: context.validated?.decision
            ? { source: context.proposer, decision: context.validated.decision, tool: context.validated.tool, reviewed: true }
            : undefined,
        })),
      },
    });
    const found = await violationsOf(mutant, boundaryInput({ supervision: { enabled: false, max_verdict_attempts: 1 } }), ['write']);
    expect(found).toContain('I4: protected effect reversible_write executed without a teacher verdict selecting it');
  });

  it('a boundary that keeps the student candidate after a replace verdict is caught by I1 and I3', async () => {
    const mutant = boundaryMachine.provide({
      actions: {
        selectReplacement: assign(({ context }) => ({
          selected: context.validated?.decision
            ? { source: 'teacher' as const, decision: context.validated.decision, tool: context.validated.tool, reviewed: true }
            : undefined,
        })),
      },
    });
    const found = await violationsOf(mutant, boundaryInput({ supervision: { max_verdict_attempts: 1 } }), ['write']);
    expect(found).toContain('I1: the overruled student candidate reached execute');
    expect(found.some((v) => v.startsWith('I3:'))).toBe(true);
  });

  it('a boundary that forgets the argument schema is caught by I2 and I3', async () => {
    // The decision schema and tool lookup still run; only the tool's input JSON Schema is skipped.
    const mutant = boundaryMachine.provide({
      actions: {
        validate: assign(({ context }) => {
          const parsed = Decision.safeParse(context.parsed?.raw);
          const decision = parsed.success ? parsed.data : undefined;
          const toolName = decision?.decision_type === 'tool_call' ? decision.tool_name : undefined;
          const tool = context.snapshot.tools.find((t) => t.name === toolName);
          const ok = decision !== undefined && (toolName === undefined || tool !== undefined) && context.parsed?.tool_call_count !== 2;
          return { validated: { result: { ok, issues: [] }, decision, tool } };
        }),
      },
    });
    const found = await violationsOf(mutant, boundaryInput({ supervision: { max_verdict_attempts: 1 } }), ['write_bad_args']);
    expect(found).toContain('I2: the executed decision fails validateCandidate');
    expect(found).toContain('I3: the recorded candidate validation differs from validateCandidate');
  });

  it('a boundary that routes a final answer after a refusal by the usual rules only is caught by I7', async () => {
    const mutant = boundaryMachine.provide({ actions: { decideReview: assign({ review: { required: false, rule: 'not_required' as const } }) } });
    const found = await violationsOf(mutant, boundaryInput({ claims: REFUSED_WRITE, supervision: { phase: 4, max_verdict_attempts: 1 } }), ['complete']);
    expect(found).toContain("I7: a student's complete after a refusal was delivered without a teacher accepting it");
  });

  it('a boundary that never stops re-asking is caught by I6', async () => {
    const mutant = boundaryMachine.provide({ guards: { verdictUnusableWithRetriesLeft: ({ context }) => context.attempts.length < 2 && context.evaluation?.attempt.usable === false } });
    const found = await violationsOf(mutant, boundaryInput({ supervision: { max_verdict_attempts: 1 } }), ['unparseable']);
    expect(found).toContain('I6: more verdict attempts than max_verdict_attempts');
  });
});
