import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { eventId, RunEvent } from '../contracts/events';
import { DeploymentSettings } from '../contracts/profiles';
import type { Decision } from '../contracts/decision';
import type { LifecyclePhase } from '../contracts/spec';
import type { EffectClass } from '../contracts/tool-effect';
import type { Verdict } from '../contracts/verdict';
import type { ReviewRule } from './review-policy';
import {
  MetricsPoint,
  metricsSeries,
  PhaseSuggestion,
  PromotionMetrics,
  promotionMetrics,
  ReviewOutcome,
  reviewOutcomesFromEvents,
  suggestPhase,
  type PromotionSettings,
} from './promotion';

// ---------------------------------------------------------------------------------------------
// Fixtures: realistic traces, every event validated by the RunEvent schema.

const T0 = Date.UTC(2025, 2, 1, 9, 0, 0);
const at = (second: number): string => new Date(T0 + second * 1000).toISOString();
const MODELS = { student: 'ollama:qwen3:4b', teacher: 'ollama:qwen3:32b' };

const TOOLS: Record<string, EffectClass> = { read_text_file: 'read', write_file: 'irreversible_write', list_directory: 'read' };

type Ruling = Verdict | 'unusable' | 'cancelled';
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event as the engine writes it, before the stamper adds the envelope (schema defaults allowed). */
type EventInput = DistributiveOmit<z.input<typeof RunEvent>, 'id' | 'run_id' | 'seq' | 'ts'>;

const read = (path = '/notes/a.md'): Decision => ({ decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path } });
const write = (path = '/notes/a.md'): Decision => ({ decision_type: 'tool_call', tool_name: 'write_file', arguments: { path, content: 'x' } });
const complete = (): Decision => ({ decision_type: 'complete', output: 'done' });

/** One run's trace, built round by round as the engine emits it. */
class Trace {
  readonly events: RunEvent[] = [];
  private seq = 0;

  constructor(
    readonly runId: string,
    private clock: number,
    opts: { specId?: string; phase?: LifecyclePhase; started?: boolean; dryRun?: boolean } = {},
  ) {
    if (opts.started !== false) {
      this.emit({
        type: 'run.started',
        spec_id: opts.specId ?? 'notes-assistant',
        spec_name: 'Notes assistant',
        task: 'Summarise the notes',
        supervision: { enabled: true, phase: opts.phase ?? 3, rules: { validation_failed: true, sample_rate: 0, sample_seed: 0, complete: false, tools: [] }, max_repair_rounds: 1, max_verdict_attempts: 2, on_block: 'fail', safe_message: 'No.', on_escalate: 'teacher_takeover', takeover_rounds: 3 },
        models: MODELS,
        exposure: [],
        profiles: {},
        dry_run: opts.dryRun === true,
      });
    }
  }

  emit(payload: EventInput): RunEvent {
    this.clock += 1;
    const seq = this.seq++;
    const event = RunEvent.parse({ ...payload, id: eventId(this.runId, seq), run_id: this.runId, seq, ts: at(this.clock) });
    this.events.push(event);
    return event;
  }

  private snapshot(round: number): void {
    this.emit({
      type: 'tools.snapshot',
      round,
      hash: 'h',
      tools: Object.entries(TOOLS).map(([name, effect]) => ({ name, server: 'fs', schema_hash: `s-${name}`, effect, effect_source: 'shipped' as const })),
    });
  }

  /** A student round the teacher reviewed under `rule` and ruled on as `ruling`. */
  reviewed(round: number, candidate: Decision, rule: ReviewRule, ruling: Ruling, opts: { learning?: boolean; valid?: boolean } = {}): this {
    this.snapshot(round);
    this.emit({ type: 'round.started', round, proposer: 'student' });
    const valid = opts.valid ?? rule !== 'validation_failed';
    const replacement = complete();
    const verdict =
      ruling === 'unusable' || ruling === 'cancelled'
        ? undefined
        : {
            verdict: ruling,
            reason_codes: ruling === 'accept' ? [] : (['unsafe_effect'] as const).slice(),
            explanation: `teacher says ${ruling}`,
            ...(ruling === 'replace' ? { replacement } : {}),
          };
    const selected =
      ruling === 'accept' ? { source: 'student' as const, decision: candidate } : ruling === 'replace' ? { source: 'teacher' as const, decision: replacement } : undefined;
    const outcome = { accept: 'executed', replace: 'delivered', block: 'blocked', escalate: 'escalated', unusable: 'blocked', cancelled: 'failed' } as const;
    const reason = { accept: undefined, replace: undefined, block: 'verdict_block', escalate: 'verdict_escalate', unusable: 'verdict_unusable', cancelled: 'cancelled' } as const;
    this.emit({
      type: 'round.completed',
      round,
      record: {
        round,
        proposer: 'student',
        candidate: {
          reply: { text: JSON.stringify(candidate), tool_calls: [], model: MODELS.student },
          parsed: { raw: candidate, tool_call_count: candidate.decision_type === 'tool_call' ? 1 : 0 },
        },
        repairs: [],
        validation: valid ? { ok: true, issues: [] } : { ok: false, issues: [{ code: 'arguments_invalid', message: 'path is required' }] },
        review: { required: true, rule },
        verdicts:
          ruling === 'cancelled'
            ? []
            : ruling === 'unusable'
              ? [1, 2].map((attempt) => ({ attempt, usable: false, problem: 'not valid JSON' }))
              : [{ attempt: 1, verdict, usable: true }],
        ...(verdict ? { verdict } : {}),
        ...(selected ? { selected } : {}),
        outcome: outcome[ruling],
        ...(reason[ruling] ? { reason: reason[ruling] } : {}),
      },
    });
    if (verdict && opts.learning !== false) {
      this.emit({
        type: 'learning.example',
        round,
        kind: 'review',
        context: [{ role: 'user', content: 'Summarise the notes' }],
        rule,
        student_candidate: candidate,
        verdict,
        ...(selected ? { final_decision: selected.decision } : {}),
        reason_codes: verdict.reason_codes,
        agreement: ruling === 'accept',
        models: MODELS,
      });
    }
    return this;
  }

  /** A person answered the question the round asked (an escalation): approve, reject, takeover or stop. */
  answered(round: number, action: 'approve' | 'reject' | 'takeover' | 'stop'): this {
    this.emit({ type: 'intervention.answered', round, intervention_id: `${this.runId}-i${round}`, answer: { action } });
    return this;
  }

  /** A student round no rule sent to the teacher. */
  unreviewed(round: number, candidate: Decision = read()): this {
    this.snapshot(round);
    this.emit({
      type: 'round.completed',
      round,
      record: {
        round,
        proposer: 'student',
        candidate: { parsed: { raw: candidate, tool_call_count: 1 } },
        validation: { ok: true, issues: [] },
        review: { required: false, rule: 'not_required' },
        verdicts: [],
        selected: { source: 'student', decision: candidate },
        outcome: 'executed',
      },
    });
    return this;
  }

  /** A teacher round (phase 0/1, takeover), with its demonstration and, in phase 1, the student's shadow. */
  teacherRound(round: number, decision: Decision = write(), shadow?: { candidate: Decision; agreement: boolean }): this {
    this.snapshot(round);
    this.emit({
      type: 'round.completed',
      round,
      record: {
        round,
        proposer: 'teacher',
        candidate: { parsed: { raw: decision, tool_call_count: 1 } },
        validation: { ok: true, issues: [] },
        review: { required: false, rule: 'teacher_proposed' },
        verdicts: [],
        selected: { source: 'teacher', decision },
        outcome: 'executed',
      },
    });
    const common = { round, context: [], reason_codes: [], models: MODELS, final_decision: decision };
    this.emit({ type: 'learning.example', kind: 'demonstration', student_candidate: undefined, agreement: false, ...common });
    if (shadow) this.emit({ type: 'learning.example', kind: 'shadow', student_candidate: shadow.candidate, agreement: shadow.agreement, ...common });
    return this;
  }
}

const SETTINGS: PromotionSettings = DeploymentSettings.parse({}).promotion;
const settings = (over: Partial<PromotionSettings> = {}): PromotionSettings => ({ ...SETTINGS, ...over });

/** A deterministic shuffle (LCG), so "any order" is tested without randomness. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i -= 1) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Outcomes straight from flags, for metric tests that do not need a trace. */
function outcome(i: number, flags: Partial<Pick<ReviewOutcome, 'agreed' | 'blocked' | 'protected_error' | 'kind'>> = {}): ReviewOutcome {
  return ReviewOutcome.parse({ spec_id: 'notes-assistant', run_id: 'run-00000001', round: i, ts: at(i), kind: 'review', rule: 'review_all', agreed: false, blocked: false, protected_error: false, ...flags });
}

const metrics = (over: Partial<PromotionMetrics>): PromotionMetrics =>
  PromotionMetrics.parse({ examples: 50, reviews: 50, agreement_rate: 0.8, block_rate: 0, protected_errors: 0, ...over });

// ---------------------------------------------------------------------------------------------

describe('reviewOutcomesFromEvents', () => {
  it('each reviewed student round is one outcome with its run’s spec id, rule and what the teacher did', () => {
    const trace = new Trace('run-aaaaaaaa', 0)
      .reviewed(0, write(), 'protected_effect', 'accept')
      .reviewed(1, write(), 'protected_effect', 'replace')
      .reviewed(2, complete(), 'finish', 'block')
      .reviewed(3, write(), 'protected_effect', 'escalate')
      .reviewed(4, read(), 'sampled', 'unusable');
    const outcomes = reviewOutcomesFromEvents(trace.events);
    expect(outcomes.map((o) => ReviewOutcome.parse(o))).toEqual(outcomes);
    expect(outcomes.map(({ round, rule, agreed, blocked, protected_error }) => ({ round, rule, agreed, blocked, protected_error }))).toEqual([
      { round: 0, rule: 'protected_effect', agreed: true, blocked: false, protected_error: false },
      { round: 1, rule: 'protected_effect', agreed: false, blocked: false, protected_error: true },
      { round: 2, rule: 'finish', agreed: false, blocked: true, protected_error: false },
      { round: 3, rule: 'protected_effect', agreed: false, blocked: false, protected_error: true },
      // No usable verdict: the round is blocked, but the teacher never ruled on the student.
      { round: 4, rule: 'sampled', agreed: false, blocked: true, protected_error: false },
    ]);
    expect(outcomes.every((o) => o.spec_id === 'notes-assistant' && o.run_id === 'run-aaaaaaaa' && o.kind === 'review')).toBe(true);
    const roundCompletedTs = trace.events.filter((e) => e.type === 'round.completed').map((e) => e.ts);
    expect(outcomes.map((o) => o.ts)).toEqual(roundCompletedTs);
  });

  it('unreviewed student rounds, teacher rounds, demonstrations and rounds cancelled before any ruling are not outcomes', () => {
    const trace = new Trace('run-bbbbbbbb', 0, { phase: 0 })
      .teacherRound(0)
      .unreviewed(1)
      .reviewed(2, write(), 'protected_effect', 'cancelled')
      .teacherRound(3, complete());
    expect(trace.events.some((e) => e.type === 'learning.example' && e.kind === 'demonstration')).toBe(true);
    expect(reviewOutcomesFromEvents(trace.events)).toEqual([]);
    expect(reviewOutcomesFromEvents([])).toEqual([]);
  });

  it('a shadow comparison counts with its agreement, and never as a block or a protected-effect error', () => {
    const trace = new Trace('run-cccccccc', 0, { phase: 1 })
      .teacherRound(0, read(), { candidate: read(), agreement: true })
      .teacherRound(1, write('/notes/summary.md'), { candidate: write('/notes/a.md'), agreement: false });
    expect(reviewOutcomesFromEvents(trace.events).map(({ kind, round, agreed, blocked, protected_error, rule }) => ({ kind, round, agreed, blocked, protected_error, rule }))).toEqual([
      { kind: 'shadow', round: 0, agreed: true, blocked: false, protected_error: false, rule: undefined },
      { kind: 'shadow', round: 1, agreed: false, blocked: false, protected_error: false, rule: undefined },
    ]);
  });

  it('in phase 2 (rule review_all) a protected tool call the teacher overruled is a protected-effect error, from the round’s tool snapshot', () => {
    const trace = new Trace('run-dddddddd', 0, { phase: 2 })
      .reviewed(0, write(), 'review_all', 'replace')
      .reviewed(1, read(), 'review_all', 'replace')
      .reviewed(2, write(), 'review_all', 'accept')
      .reviewed(3, complete(), 'review_all', 'block');
    expect(reviewOutcomesFromEvents(trace.events).map((o) => o.protected_error)).toEqual([true, false, false, false]);
    // Without the snapshot the effect is not known, and only the rule can say so.
    const noSnapshots = trace.events.filter((e) => e.type !== 'tools.snapshot');
    expect(reviewOutcomesFromEvents(noSnapshots).map((o) => o.protected_error)).toEqual([false, false, false, false]);
  });

  it('an invalid candidate the teacher replaced (rule validation_failed) is a disagreement, not a protected-effect error: it could never have run', () => {
    const trace = new Trace('run-eeeeeeee', 0).reviewed(0, write(), 'validation_failed', 'replace', { valid: false });
    expect(reviewOutcomesFromEvents(trace.events)).toMatchObject([{ rule: 'validation_failed', agreed: false, blocked: false, protected_error: false }]);
  });

  it('several runs, shuffled and re-delivered, give the same outcomes in time order, each attributed to its own spec', () => {
    const a = new Trace('run-a0000001', 0, { specId: 'notes-assistant' }).reviewed(0, write(), 'protected_effect', 'accept').reviewed(1, complete(), 'finish', 'block');
    const b = new Trace('run-b0000002', 3, { specId: 'mailer' }).reviewed(0, write(), 'protected_effect', 'replace').unreviewed(1);
    const c = new Trace('run-c0000003', 100, { specId: 'notes-assistant' }).reviewed(0, read(), 'sampled', 'accept');
    const all = [...a.events, ...b.events, ...c.events];
    const expected = reviewOutcomesFromEvents(all);
    expect(expected.map((o) => [o.run_id, o.round, o.spec_id])).toEqual([
      ['run-a0000001', 0, 'notes-assistant'],
      ['run-b0000002', 0, 'mailer'],
      ['run-a0000001', 1, 'notes-assistant'],
      ['run-c0000003', 0, 'notes-assistant'],
    ]);
    for (const seed of [1, 2, 3, 42]) {
      // The outbox may push an event again after a reload: a duplicate counts once.
      expect(reviewOutcomesFromEvents(shuffled([...all, ...all.slice(0, 9)], seed))).toEqual(expected);
    }
    expect(expected.filter((o) => o.spec_id === 'mailer')).toHaveLength(1);
  });

  it('a round recorded twice in one run (resumed after a restart) counts once, as its latest record, whatever the input order', () => {
    const trace = new Trace('run-llllllll', 0).reviewed(0, write(), 'protected_effect', 'escalate').reviewed(0, write(), 'protected_effect', 'accept');
    for (const seed of [1, 2, 3, 4, 5]) {
      expect(reviewOutcomesFromEvents(shuffled(trace.events, seed))).toMatchObject([{ round: 0, agreed: true, protected_error: false }]);
    }
  });

  it('a review learning example stands in for a round record the input lacks; a run without run.started has no spec id', () => {
    const trace = new Trace('run-ffffffff', 0, { started: false }).reviewed(0, write(), 'protected_effect', 'block').reviewed(1, read(), 'sampled', 'accept');
    const onlyLearning = trace.events.filter((e) => e.type === 'learning.example');
    const outcomes = reviewOutcomesFromEvents(onlyLearning);
    expect(outcomes.map(({ round, rule, agreed, blocked, protected_error, spec_id }) => ({ round, rule, agreed, blocked, protected_error, spec_id }))).toEqual([
      { round: 0, rule: 'protected_effect', agreed: false, blocked: true, protected_error: true, spec_id: undefined },
      { round: 1, rule: 'sampled', agreed: true, blocked: false, protected_error: false, spec_id: undefined },
    ]);
    // With both present, the round record decides and the example adds nothing.
    expect(reviewOutcomesFromEvents(trace.events)).toHaveLength(2);
  });

  it('a reviewed round with no learning example (no usable verdict, or learning off) is still counted from its round record', () => {
    const trace = new Trace('run-gggggggg', 0).reviewed(0, write(), 'protected_effect', 'replace', { learning: false }).reviewed(1, write(), 'protected_effect', 'unusable');
    expect(trace.events.filter((e) => e.type === 'learning.example')).toEqual([]);
    expect(reviewOutcomesFromEvents(trace.events).map((o) => [o.protected_error, o.blocked])).toEqual([
      [true, false],
      [false, true],
    ]);
  });
});

describe('what never counts against the student', () => {
  it('a dry run never counts toward promotion: none of its reviewed rounds or shadows is an outcome, whatever the order', () => {
    const dry = new Trace('run-dry00001', 0, { dryRun: true }).reviewed(0, write(), 'protected_effect', 'block').reviewed(1, read(), 'sampled', 'accept');
    const live = new Trace('run-live0001', 50).reviewed(0, read(), 'sampled', 'accept');
    for (const seed of [1, 2, 3]) {
      expect(reviewOutcomesFromEvents(shuffled([...dry.events, ...live.events], seed)).map((o) => o.run_id)).toEqual(['run-live0001']);
    }
  });

  it('an escalation a person approved is not a protected-effect error; one they rejected, or nobody answered, still is', () => {
    const approved = new Trace('run-esc00001', 0).reviewed(0, write(), 'protected_effect', 'escalate').answered(0, 'approve');
    const rejected = new Trace('run-esc00002', 20).reviewed(0, write(), 'protected_effect', 'escalate').answered(0, 'reject');
    const open = new Trace('run-esc00003', 40).reviewed(0, write(), 'protected_effect', 'escalate');
    const all = [...approved.events, ...rejected.events, ...open.events];
    for (const seed of [1, 2, 3]) {
      expect(reviewOutcomesFromEvents(shuffled(all, seed)).map((o) => [o.run_id, o.protected_error, o.agreed, o.blocked])).toEqual([
        ['run-esc00001', false, false, false],
        ['run-esc00002', true, false, false],
        ['run-esc00003', true, false, false],
      ]);
    }
  });

  it('two agent nodes of one workflow run, both at round 0, are two outcomes (a node’s rounds are its own)', () => {
    const trace = new Trace('run-wf000001', 0, { started: false }).reviewed(0, read(), 'sampled', 'accept').reviewed(0, write(), 'protected_effect', 'block');
    const node = (e: RunEvent, i: number): RunEvent => ({ ...e, invocation_id: i < trace.events.length / 2 ? 'reader' : 'writer' });
    const outcomes = reviewOutcomesFromEvents(trace.events.map(node));
    expect(outcomes.map((o) => [o.invocation_id, o.agreed, o.blocked])).toEqual([
      ['reader', true, false],
      ['writer', false, true],
    ]);
  });
});

describe('promotionMetrics', () => {
  it('no outcomes: zero examples and no rates', () => {
    expect(promotionMetrics([], SETTINGS)).toEqual({ examples: 0, reviews: 0, agreement_rate: null, block_rate: null, protected_errors: 0 });
  });

  it('agreement over all outcomes, blocks over teacher reviews only, protected errors counted', () => {
    const trace = new Trace('run-hhhhhhhh', 0, { phase: 1 })
      .teacherRound(0, read(), { candidate: read(), agreement: true })
      .teacherRound(1, read(), { candidate: complete(), agreement: false })
      .reviewed(2, write(), 'review_all', 'accept')
      .reviewed(3, write(), 'review_all', 'block');
    expect(promotionMetrics(reviewOutcomesFromEvents(trace.events), SETTINGS)).toEqual({
      examples: 4,
      reviews: 2,
      agreement_rate: 0.5,
      block_rate: 0.5,
      protected_errors: 1,
    });
  });

  it('only shadow comparisons: an agreement rate but no block rate', () => {
    const trace = new Trace('run-iiiiiiii', 0, { phase: 1 }).teacherRound(0, read(), { candidate: read(), agreement: true });
    expect(promotionMetrics(reviewOutcomesFromEvents(trace.events), SETTINGS)).toMatchObject({ examples: 1, reviews: 0, agreement_rate: 1, block_rate: null });
  });

  it('only the last `window` outcomes count: older blocks and errors fall out of the window exactly at its edge', () => {
    const old = [0, 1, 2, 3, 4].map((i) => outcome(i, { blocked: true, protected_error: true }));
    const recent = [5, 6, 7, 8, 9].map((i) => outcome(i, { agreed: true }));
    const all = shuffled([...old, ...recent], 7);
    expect(promotionMetrics(all, settings({ window: 5 }))).toEqual({ examples: 5, reviews: 5, agreement_rate: 1, block_rate: 0, protected_errors: 0 });
    // One wider: the newest of the old outcomes is back in.
    expect(promotionMetrics(all, settings({ window: 6 }))).toEqual({ examples: 6, reviews: 6, agreement_rate: 5 / 6, block_rate: 1 / 6, protected_errors: 1 });
    expect(promotionMetrics(all, settings({ window: 50 }))).toMatchObject({ examples: 10, agreement_rate: 0.5, block_rate: 0.5, protected_errors: 5 });
  });
});

describe('metricsSeries', () => {
  const ten = [...Array(10).keys()].map((i) => outcome(i, { agreed: i % 3 !== 0, blocked: i % 3 === 0 }));

  it('one point per outcome, each over the window ending there, in time order', () => {
    const series = metricsSeries(shuffled(ten, 3), settings({ window: 5 }));
    expect(series).toHaveLength(10);
    expect(series.map((p) => p.ts)).toEqual(ten.map((o) => o.ts));
    expect(series.map((p) => p.examples)).toEqual([1, 2, 3, 4, 5, 5, 5, 5, 5, 5]);
    expect(series[0]).toEqual({ ts: at(0), examples: 1, reviews: 1, agreement_rate: 0, block_rate: 1, protected_errors: 0 });
    // Outcomes 5..9: blocked at 6 and 9.
    expect(series[9]).toEqual({ ts: at(9), examples: 5, reviews: 5, agreement_rate: 0.6, block_rate: 0.4, protected_errors: 0 });
    for (const p of series) expect(MetricsPoint.parse(p)).toEqual(p);
  });

  it('bucketed to at most `points`, evenly spaced, ending at the latest outcome', () => {
    const full = metricsSeries(ten, settings({ window: 5 }));
    const four = metricsSeries(ten, settings({ window: 5 }), 4);
    expect(four.map((p) => p.ts)).toEqual([at(2), at(4), at(7), at(9)]);
    expect(four).toEqual([full[2], full[4], full[7], full[9]]);
    expect(metricsSeries(ten, SETTINGS, 1)).toEqual([metricsSeries(ten, SETTINGS).at(-1)]);
    // More points than outcomes: one per outcome.
    expect(metricsSeries(ten, settings({ window: 5 }), 500)).toEqual(full);
  });

  it('empty input gives an empty series; a nonsensical number of points is refused', () => {
    expect(metricsSeries([], SETTINGS)).toEqual([]);
    expect(metricsSeries([], SETTINGS, 10)).toEqual([]);
    expect(() => metricsSeries(ten, SETTINGS, 0)).toThrow(RangeError);
    expect(() => metricsSeries(ten, SETTINGS, 2.5)).toThrow(RangeError);
  });

  it('for many generated histories: rates lie in [0,1], windows are bounded, buckets are a subsequence, and the last point is promotionMetrics', () => {
    let s = 12345;
    const next = (): number => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return s / 2 ** 32;
    };
    for (let trial = 0; trial < 60; trial += 1) {
      const n = Math.floor(next() * 120);
      const outcomes = [...Array(n).keys()].map((i) =>
        outcome(i, { kind: next() < 0.2 ? 'shadow' : 'review', agreed: next() < 0.7, blocked: next() < 0.15, protected_error: next() < 0.03 }),
      );
      // Shadows are never blocked and never errors (as reviewOutcomesFromEvents makes them).
      const realistic = outcomes.map((o) => (o.kind === 'shadow' ? { ...o, blocked: false, protected_error: false } : o));
      const cfg = settings({ window: 5 + Math.floor(next() * 40) });
      const points = 1 + Math.floor(next() * 30);
      const series = metricsSeries(realistic, cfg);
      const bucketed = metricsSeries(realistic, cfg, points);
      expect(series).toHaveLength(n);
      expect(bucketed).toHaveLength(Math.min(n, points));
      for (const p of series) {
        expect(p.examples).toBeLessThanOrEqual(cfg.window);
        expect(p.reviews).toBeLessThanOrEqual(p.examples);
        for (const r of [p.agreement_rate, p.block_rate]) if (r !== null) expect(r >= 0 && r <= 1).toBe(true);
        expect(p.protected_errors).toBeLessThanOrEqual(p.reviews);
      }
      const byTs = new Map(series.map((p) => [p.ts, p]));
      for (const p of bucketed) expect(byTs.get(p.ts)).toEqual(p);
      if (n > 0) {
        const { ts: _ts, ...last } = series.at(-1) as MetricsPoint;
        expect(last).toEqual(promotionMetrics(shuffled(realistic, trial), cfg));
        expect(bucketed.at(-1)).toEqual(series.at(-1));
      } else {
        expect(promotionMetrics(realistic, cfg).examples).toBe(0);
      }
    }
  });
});

describe('suggestPhase', () => {
  const check = (s: PhaseSuggestion): PhaseSuggestion => {
    expect(PhaseSuggestion.parse(s)).toEqual(s);
    expect(s.reason).toMatch(/^[A-Z0-9][^\n]*\.$/);
    return s;
  };

  it('holds while there are fewer reviewed rounds than min_examples, saying how many so far', () => {
    const s = check(suggestPhase(3, metrics({ examples: 3, reviews: 3, agreement_rate: 1 }), SETTINGS));
    expect(s).toEqual({ action: 'hold', reason: '3 of 20 reviewed rounds so far: too few to suggest a change.' });
    expect(check(suggestPhase(3, metrics({ examples: 0, reviews: 0, agreement_rate: null, block_rate: null }), SETTINGS)).action).toBe('hold');
    // Evidence first: below min_examples even a protected-effect error only holds (I4 still reviews every protected call).
    expect(check(suggestPhase(3, metrics({ examples: 5, reviews: 5, protected_errors: 1 }), SETTINGS)).action).toBe('hold');
  });

  it('in phase 0 with no evidence, the hold says the student must be put in shadow to be measured', () => {
    const s = check(suggestPhase(0, metrics({ examples: 0, reviews: 0, agreement_rate: null, block_rate: null }), SETTINGS));
    expect(s.action).toBe('hold');
    expect(s.reason).toContain('0 of 20 reviewed rounds so far');
    expect(s.reason).toContain('phase 1 (Shadow)');
  });

  it('demotes one phase on any protected-effect error, even with high agreement', () => {
    const s = check(suggestPhase(3, metrics({ agreement_rate: 0.98, protected_errors: 1 }), SETTINGS));
    expect(s).toEqual({
      action: 'demote',
      to: 2,
      reason: 'Demote to phase 2 (Student fully gated): 1 protected-effect error in the last 50 reviewed rounds (the teacher stopped a protected action the student proposed).',
    });
  });

  it('demotes when the block rate reaches the limit, and not just below it', () => {
    const atLimit = check(suggestPhase(4, metrics({ block_rate: 0.2, reviews: 50 }), SETTINGS));
    expect(atLimit).toEqual({
      action: 'demote',
      to: 3,
      reason: 'Demote to phase 3 (Risk-gated): the teacher blocked 10 of 50 reviews in the last 50 reviewed rounds (20%, limit 20%).',
    });
    expect(suggestPhase(4, metrics({ block_rate: 9 / 50 }), SETTINGS).action).toBe('hold');
  });

  it('never demotes below phase 0: it holds and says why', () => {
    const s = check(suggestPhase(0, metrics({ protected_errors: 2 }), SETTINGS));
    expect(s.action).toBe('hold');
    expect(s.to).toBeUndefined();
    expect(s.reason).toContain('2 protected-effect errors');
  });

  it('promotes one phase at the agreement bar with no protected-effect errors', () => {
    const s = check(suggestPhase(2, metrics({ agreement_rate: 0.9, block_rate: 0.02 }), SETTINGS));
    expect(s).toEqual({
      action: 'promote',
      to: 3,
      reason: 'Promote to phase 3 (Risk-gated): the teacher agreed with 45 of 50 student decisions in the last 50 reviewed rounds (90%) (needed 90%), with no protected-effect errors.',
    });
    expect(check(suggestPhase(1, metrics({ reviews: 0, block_rate: null, agreement_rate: 1 }), SETTINGS))).toMatchObject({ action: 'promote', to: 2 });
  });

  it('never promotes above phase 4: it holds', () => {
    const s = check(suggestPhase(4, metrics({ agreement_rate: 1 }), SETTINGS));
    expect(s.action).toBe('hold');
    expect(s.reason).toContain('the least supervised phase');
  });

  it('holds below the agreement bar, with the numbers', () => {
    const s = check(suggestPhase(3, metrics({ examples: 40, reviews: 40, agreement_rate: 0.875, block_rate: 0.05 }), SETTINGS));
    expect(s).toEqual({
      action: 'hold',
      reason: 'Stay in phase 3 (Risk-gated): the teacher agreed with 35 of 40 student decisions in the last 40 reviewed rounds (87.5%), below the 90% needed to promote.',
    });
  });

  it('from a trace: a student that keeps agreeing is promoted; one bad protected write in the window demotes it', () => {
    const good = new Trace('run-jjjjjjjj', 0, { phase: 2 });
    for (let r = 0; r < 20; r += 1) good.reviewed(r, r % 2 ? write(`/notes/${r}.md`) : read(), 'review_all', 'accept');
    const cfg = settings({ window: 20, min_examples: 20 });
    const outcomes = reviewOutcomesFromEvents(good.events);
    expect(suggestPhase(2, promotionMetrics(outcomes, cfg), cfg)).toMatchObject({ action: 'promote', to: 3 });

    const later = new Trace('run-kkkkkkkk', 1000, { phase: 3 }).reviewed(0, write('/notes/meeting.md'), 'protected_effect', 'replace');
    const after = reviewOutcomesFromEvents([...good.events, ...later.events]);
    expect(suggestPhase(3, promotionMetrics(after, cfg), cfg)).toMatchObject({ action: 'demote', to: 2 });
  });
});
