import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../contracts/decision';
import { DeploymentSettings } from '../contracts/profiles';
import { SupervisionSpec } from '../contracts/spec';
import { TrialReport, TrialRound } from './trial-contract';
import { compareRound, sameDecision, trialReport, wilson, type CandidateAnswer, type TrialCase } from './trial-report';

const settings = DeploymentSettings.parse({}).promotion;
const supervision = SupervisionSpec.parse({ enabled: true, phase: 3 });
const read = (path: string): Decision => ({ decision_type: 'tool_call', tool_name: 'read_file', arguments: { path } });
const write = (path: string): Decision => ({ decision_type: 'tool_call', tool_name: 'write_file', arguments: { path, content: 'x' } });
const done: Decision = { decision_type: 'complete', output: 'done' };

function recorded(i: number, student: Decision, selected: Decision | undefined, verdict: 'accept' | 'replace' | 'block' = 'accept'): TrialCase {
  const isWrite = (d: Decision | undefined) => d?.decision_type === 'tool_call' && d.tool_name === 'write_file';
  return {
    source: { run_id: `run-${i}`, round: i, ts: `2026-12-05T00:00:${String(i).padStart(2, '0')}Z` },
    supervision,
    sampled: false,
    student: { decision: student, protected: isWrite(student), verdict },
    ...(selected ? { selected: { source: verdict === 'accept' ? ('student' as const) : ('teacher' as const), decision: selected } } : {}),
    selected_protected: isWrite(selected),
  };
}

function answer(decision: Decision | undefined, extra: Partial<CandidateAnswer> = {}): CandidateAnswer {
  const isWrite = decision?.decision_type === 'tool_call' && decision.tool_name === 'write_file';
  return {
    ...(decision ? { decision } : {}),
    valid: decision !== undefined,
    ...(decision?.decision_type === 'tool_call' ? { effect: isWrite ? ('reversible_write' as const) : ('read' as const) } : {}),
    protected: isWrite,
    latency_ms: 20,
    input_tokens: 100,
    output_tokens: 10,
    ...extra,
  };
}

const node = { key: 'spec:notes', label: 'Notes agent', spec_id: 'notes' };

describe('wilson', () => {
  it('gives the textbook interval for 8 of 10', () => {
    const share = wilson(8, 10);
    expect(share.rate).toBe(0.8);
    expect(share.low).toBeCloseTo(0.4902, 3);
    expect(share.high).toBeCloseTo(0.9433, 3);
  });

  it('says nothing was counted when there is nothing', () => {
    expect(wilson(0, 0)).toEqual({ count: 0, of: 0, rate: null, low: 0, high: 1 });
  });

  it('always holds the observed rate inside [0, 1], and narrows as the same rate is seen more often', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 2, max: 20 }), (n, p, k) => {
        const count = Math.round(p * n);
        const share = wilson(count, n);
        expect(share.low).toBeGreaterThanOrEqual(0);
        expect(share.high).toBeLessThanOrEqual(1);
        expect(share.low).toBeLessThanOrEqual(share.rate ?? 0);
        expect(share.high).toBeGreaterThanOrEqual(share.rate ?? 1);
        const more = wilson(count * k, n * k);
        expect(more.high - more.low).toBeLessThanOrEqual(share.high - share.low + 1e-12);
      }),
    );
  });
});

describe('sameDecision', () => {
  it('ignores key order and confidence, not content', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }), (args) => {
        const a: Decision = { decision_type: 'tool_call', tool_name: 't', arguments: args };
        const reversed: Decision = { decision_type: 'tool_call', tool_name: 't', arguments: Object.fromEntries(Object.entries(args).reverse()), confidence: 0.5 };
        expect(sameDecision(a, reversed)).toBe(true);
        expect(sameDecision(a, { ...a, tool_name: 'other' })).toBe(false);
      }),
    );
    expect(sameDecision(undefined, done)).toBe(false);
  });
});

describe('compareRound', () => {
  it('agrees with a teacher replacement it proposed itself, and draws no block', () => {
    const r = compareRound(0, recorded(0, read('a'), read('b'), 'replace'), answer(read('b')));
    expect(r).toMatchObject({ agrees_selected: true, same_as_student: false, block: 'none', protected_difference: false });
  });

  it('draws the recorded block where it proposes what the blocked student proposed', () => {
    const r = compareRound(1, recorded(1, write('x'), undefined, 'block'), answer(write('x')));
    expect(r).toMatchObject({ agrees_selected: false, same_as_student: true, block: 'recorded', protected_difference: true });
  });

  it('lists a protected write it proposed differently, which the teacher would review with no recorded verdict', () => {
    const r = compareRound(2, recorded(2, read('a'), read('a')), answer(write('other')));
    expect(r).toMatchObject({ agrees_selected: false, protected_difference: true, block: 'unknown', review: { required: true, rule: 'protected_effect' } });
  });

  it('counts a decision that failed validation as agreeing with nothing', () => {
    const r = compareRound(3, recorded(3, read('a'), read('a')), answer(read('a'), { valid: false, problem: 'arguments invalid' }));
    expect(r).toMatchObject({ agrees_selected: false, same_as_student: false, candidate: { valid: false, problem: 'arguments invalid' } });
    expect(TrialRound.safeParse(r).success).toBe(true);
  });
});

describe('trialReport', () => {
  it('puts both models beside each other on the same rounds and suggests a phase under the node’s rules', () => {
    const rounds = Array.from({ length: 30 }, (_, i) => (i < 3 ? compareRound(i, recorded(i, read('s'), read('t'), 'replace'), answer(read('t'))) : compareRound(i, recorded(i, read('s'), read('s')), answer(read('s')))));
    const report = trialReport({ node, candidate: 'ollama:new', current: 'ollama:old', current_phase: 3, settings, rounds_asked: 200, rounds });
    expect(TrialReport.safeParse(report).success).toBe(true);
    expect(report.candidate.agreement).toMatchObject({ count: 30, of: 30 });
    expect(report.current.agreement).toMatchObject({ count: 27, of: 30 });
    expect(report.candidate.qualifies_for).toBe(4);
    expect(report.current.qualifies_for).toBe(4);
    expect(report.words[0]).toContain('Over the last 30 reviewed rounds of Notes agent, ollama:new agreed with the decision finally selected in 30 of 30');
    expect(report.words[1]).toBe("Under the node's promotion rules ollama:new qualifies for phase 4 (Autonomous): 100% agreement, with 90% needed to promote, and no protected effect proposed differently.");
    expect(report.words.join(' ')).toContain('No tool was executed');
  });

  it('demotes a candidate that proposed a protected effect differently', () => {
    const rounds = Array.from({ length: 25 }, (_, i) => compareRound(i, recorded(i, read('s'), read('s')), answer(i === 4 ? write('oops') : read('s'))));
    const report = trialReport({ node, candidate: 'ollama:risky', current: 'ollama:old', current_phase: 3, settings, rounds_asked: 25, rounds });
    expect(report.protected_rounds).toEqual([4]);
    expect(report.candidate.suggestion.action).toBe('demote');
    expect(report.candidate.qualifies_for).toBe(2);
    expect(report.words[1]).toBe("Under the node's promotion rules ollama:risky would be demoted to phase 2 (Student fully gated): it proposed 1 protected effect the round did not select.");
  });

  it('says in words that there was nothing to replay', () => {
    const report = trialReport({ node, candidate: 'ollama:new', current: '—', current_phase: 2, settings, rounds_asked: 200, rounds: [] });
    expect(report.rounds).toBe(0);
    expect(report.words[0]).toMatch(/No reviewed rounds of Notes agent are recorded/);
  });

  it('keeps its counts consistent whatever the candidate answers', () => {
    const decisionArb = fc.constantFrom<Decision | undefined>(read('a'), read('b'), write('a'), done, undefined);
    const verdictArb = fc.constantFrom('accept' as const, 'replace' as const, 'block' as const);
    fc.assert(
      fc.property(fc.array(fc.tuple(decisionArb, decisionArb, verdictArb, decisionArb), { maxLength: 60 }), (cases) => {
        const rounds = cases.map(([student, other, verdict, said], i) => {
          const s = student ?? read('a');
          const selected = verdict === 'accept' ? s : verdict === 'replace' ? (other ?? done) : undefined;
          return compareRound(i, recorded(i, s, selected, verdict), answer(said));
        });
        const report = trialReport({ node, candidate: 'c', current: 's', current_phase: 3, settings, rounds_asked: 60, rounds });
        expect(TrialReport.safeParse(report).success).toBe(true);
        const c = report.candidate;
        expect(c.agreement.of).toBe(rounds.length);
        expect(c.agreement.count + c.invalid).toBeLessThanOrEqual(rounds.length);
        expect(c.blocks).toBeLessThanOrEqual(report.same_as_student);
        expect(report.protected_rounds.length).toBe(c.protected_differences);
        // A round that agrees with the selection is never a protected difference, nor a drawn block.
        for (const r of rounds) if (r.agrees_selected) expect(r.protected_difference || r.block === 'recorded').toBe(false);
        if (c.metrics.protected_errors > 0) expect(c.suggestion.action).not.toBe('promote');
      }),
    );
  });
});
