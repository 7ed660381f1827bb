import { z } from 'zod';
import type { RunEvent } from '../contracts/events';
import { ModelCaller } from '../contracts/model-call';
import { priceOf, tokensUsd, type PriceList } from './price-list';

/**
 * What supervision cost a run (issue 31), derived from its recorded events only — so a run from
 * history, an imported trace and a CLI run are accounted alike. Two steps: `foldUsage` gathers the
 * facts (idempotent: each fact is keyed by the event that said it, so folding an event twice, or in
 * any order, gives the same facts — the runs list keeps them on the run's summary row), and
 * `runCost` prices them with the app's price list.
 *
 * Calls are counted from the privacy log (`model.called`, recorded since runs were first logged);
 * their tokens and latency from `model.answered` (since issue 31). A run recorded before that shows
 * its calls with tokens and cost "not recorded" — never 0.
 */

/** The roles that supervise: everything but the student. */
export const SUPERVISION_ROLES = ['teacher', 'committee', 'monitor', 'judge', 'supervisor'] as const satisfies readonly ModelCaller[];
export type SupervisionRole = (typeof SUPERVISION_ROLES)[number];

export const ROLE_LABELS = {
  student: 'Student',
  teacher: 'Teacher',
  committee: 'SCS committee',
  monitor: 'SCS monitor',
  judge: 'Pattern judge',
  supervisor: 'Workflow supervisor',
} satisfies Record<ModelCaller, string>;

/** What stepped in, by kind. */
export const INTERVENTION_COUNT_KINDS = [
  'teacher_replaced',
  'teacher_blocked',
  'teacher_escalated',
  'monitor_rejected',
  'judge_rejected',
  'judge_escalated',
  'supervisor_retry',
  'supervisor_skip',
  'supervisor_substitute',
  'supervisor_end_stream',
  'supervisor_fail',
  'person_asked',
] as const;
export const InterventionCountKind = z.enum(INTERVENTION_COUNT_KINDS);
export type InterventionCountKind = z.infer<typeof InterventionCountKind>;

export const INTERVENTION_COUNT_LABELS = {
  teacher_replaced: 'Teacher replaced a decision',
  teacher_blocked: 'Teacher blocked a decision',
  teacher_escalated: 'Teacher escalated',
  monitor_rejected: 'SCS monitor vetoed or rejected',
  judge_rejected: 'Judge sent work back',
  judge_escalated: 'Judge escalated',
  supervisor_retry: 'Supervisor retried a node',
  supervisor_skip: 'Supervisor skipped a node',
  supervisor_substitute: 'Supervisor substituted an output',
  supervisor_end_stream: 'Supervisor ended a stream',
  supervisor_fail: 'Supervisor failed a node',
  person_asked: 'A person was asked',
} satisfies Record<InterventionCountKind, string>;

const count = z.number().int().nonnegative();
const ms = z.number().int().nonnegative();

/** The facts of a run's calls and waits, each keyed by the sequence number of the event that said it. */
export const UsageFacts = z
  .object({
    /** `model.called`: role, model label, on this machine. */
    called: z.record(z.string(), z.tuple([ModelCaller, z.string(), z.boolean()])),
    /** `model.answered`: role, model, local, input tokens, output tokens (null: the server did not say), latency. */
    answered: z.record(z.string(), z.tuple([ModelCaller, z.string(), z.boolean(), count.nullable(), count.nullable(), ms])),
    /** Per intervention id: when a person was asked, and when it was answered (null: not yet). */
    asks: z.record(z.string(), z.tuple([z.number().nullable(), z.number().nullable()])),
    interventions: z.record(z.string(), InterventionCountKind),
    /** When the run ended (run.finished): an ask never answered waited until then. */
    ended_at: z.number().optional(),
  })
  .strict();
export type UsageFacts = z.infer<typeof UsageFacts>;

export function emptyUsageFacts(): UsageFacts {
  return { called: {}, answered: {}, asks: {}, interventions: {} };
}

/** `student: false` leaves the student's calls out (the runs list's row keeps supervision only). */
export interface FoldOptions {
  student: boolean;
}

const MONITOR_REJECTIONS: ReadonlySet<string> = new Set([
  'scs.student.plan_vetoed',
  'scs.student.rethink_requested',
  'scs.student.phase_rejected',
  'scs.student.finish_rejected',
  'scs.budget.denied',
]);

/** The facts with `events` folded in. Pure; never changes `facts`. */
export function foldUsage(facts: UsageFacts | undefined, events: readonly RunEvent[], options: FoldOptions = { student: true }): UsageFacts {
  const next: UsageFacts = facts ? { called: { ...facts.called }, answered: { ...facts.answered }, asks: { ...facts.asks }, interventions: { ...facts.interventions }, ...(facts.ended_at !== undefined ? { ended_at: facts.ended_at } : {}) } : emptyUsageFacts();
  for (const e of events) {
    const key = String(e.seq);
    switch (e.type) {
      case 'model.called':
        if (options.student || e.caller !== 'student') put(next.called, key, [e.caller, e.model, e.local]);
        break;
      case 'model.answered':
        if (options.student || e.caller !== 'student') put(next.answered, key, [e.caller, e.model, e.local, e.usage?.input_tokens ?? null, e.usage?.output_tokens ?? null, e.latency_ms]);
        break;
      case 'verdict.received': {
        const verdict = e.attempt.usable ? e.attempt.verdict?.verdict : undefined;
        if (verdict === 'replace') put(next.interventions, key, 'teacher_replaced');
        else if (verdict === 'block') put(next.interventions, key, 'teacher_blocked');
        else if (verdict === 'escalate') put(next.interventions, key, 'teacher_escalated');
        break;
      }
      case 'pattern.judgment': {
        const verdict = e.judgment.verdict?.verdict;
        if (verdict === 'rejected') put(next.interventions, key, 'judge_rejected');
        else if (verdict === 'escalated') put(next.interventions, key, 'judge_escalated');
        break;
      }
      case 'supervisor.verdict':
        put(next.interventions, key, `supervisor_${e.verdict.verdict.action}`);
        break;
      case 'intervention.requested': {
        put(next.interventions, key, 'person_asked');
        const seen = own(next.asks, e.intervention.id);
        put(next.asks, e.intervention.id, [time(e.ts), seen?.[1] ?? null]);
        break;
      }
      case 'intervention.answered': {
        const seen = own(next.asks, e.intervention_id);
        put(next.asks, e.intervention_id, [seen?.[0] ?? null, time(e.ts)]);
        break;
      }
      case 'run.finished': {
        const at = time(e.ts);
        if (at !== null) next.ended_at = at;
        break;
      }
      default:
        if (MONITOR_REJECTIONS.has(e.type)) put(next.interventions, key, 'monitor_rejected');
        break;
    }
  }
  return next;
}

/** Calls, tokens and dollars of one role or model, or of a total. */
export interface UsageTotals {
  /** Calls that reached a provider (`model.called`; each retry too). */
  calls: number;
  /** Of those, the ones whose end was recorded (`model.answered`). */
  recorded_calls: number;
  /** Of those, the ones whose server reported both token counts (a replay reports none). */
  counted_calls: number;
  input_tokens: number;
  output_tokens: number;
  /** The recorded calls' tokens at the price list; local models cost 0 unless priced. */
  usd: number;
  /** Time spent in those calls. */
  latency_ms: number;
  /**
   * Every call is recorded, reported its tokens and has a price: the figures are whole. false: some
   * are "not recorded" or unpriced, so tokens and dollars are at least these (a person reads "≥").
   */
  complete: boolean;
  /** Remote models with no price in the list (their cost is unknown, never 0). */
  unpriced_models: string[];
}

export interface RoleUsage extends UsageTotals {
  role: ModelCaller;
  models: string[];
}

export interface ModelUsageRow extends UsageTotals {
  model: string;
  local: boolean;
  roles: ModelCaller[];
}

export interface RunCost {
  /** Each role that called a model, in ROLE order. */
  roles: RoleUsage[];
  /** Each model, by label. */
  models: ModelUsageRow[];
  /** Teacher, committee, monitor, judge and supervisor together. */
  supervision: UsageTotals;
  /** Every call, the student's included (when the facts hold them). */
  total: UsageTotals;
  /** Time spent in supervision calls: what supervision added to the run's duration. */
  supervision_latency_ms: number;
  /** Asks of a person, and how long the run waited for their answers (an unanswered ask until the run ended). */
  person: { asks: number; waited_ms: number; waiting: boolean };
  /** What stepped in, by kind (kinds that happened only). */
  interventions: Partial<Record<InterventionCountKind, number>>;
}

const ROLE_ORDER: readonly ModelCaller[] = ModelCaller.options;

/** The run's cost at `prices`. Pure. */
export function runCost(facts: UsageFacts, prices: PriceList): RunCost {
  const byRole = new Map<ModelCaller, Tally>();
  const byModel = new Map<string, Tally & { local: boolean; roles: Set<ModelCaller> }>();
  const tallyOf = (role: ModelCaller, model: string, local: boolean) => {
    const r = byRole.get(role) ?? newTally();
    byRole.set(role, r);
    const m = byModel.get(model) ?? { ...newTally(), local: true, roles: new Set<ModelCaller>() };
    byModel.set(model, m);
    if (!local) m.local = false;
    m.roles.add(role);
    return [r, m] as const;
  };
  for (const [role, model, local] of Object.values(facts.called)) {
    for (const t of tallyOf(role, model, local)) {
      t.calls += 1;
      t.models.add(model);
      if (!local) t.remote.add(model);
    }
  }
  for (const [role, model, local, input, output, latency] of Object.values(facts.answered)) {
    const price = priceOf(model, local, prices);
    for (const t of tallyOf(role, model, local)) {
      t.recorded += 1;
      if (input !== null && output !== null) t.counted += 1;
      t.models.add(model);
      t.input += input ?? 0;
      t.output += output ?? 0;
      t.latency += latency;
      if (price) t.usd += tokensUsd(price, input ?? 0, output ?? 0);
      else t.unpriced.add(model);
      // A priced remote call without its tokens: its cost is not known whole.
      if ((input === null || output === null) && !(local && !Object.hasOwn(prices, model))) t.partial = true;
    }
  }
  const roles: RoleUsage[] = ROLE_ORDER.filter((role) => byRole.has(role)).map((role) => {
    const t = byRole.get(role)!;
    return { role, models: [...t.models].sort(), ...totalsOf(t, prices) };
  });
  const models: ModelUsageRow[] = [...byModel.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([model, t]) => ({ model, local: t.local, roles: ROLE_ORDER.filter((r) => t.roles.has(r)), ...totalsOf(t, prices) }));
  const supervision = sumTotals(roles.filter((r) => isSupervision(r.role)));
  const total = sumTotals(roles);
  return {
    roles,
    models,
    supervision,
    total,
    supervision_latency_ms: supervision.latency_ms,
    person: personWait(facts),
    interventions: interventionCounts(facts),
  };
}

/** The run's cost straight from its events (the report, the CLI, OTLP). */
export function runCostOfEvents(events: readonly RunEvent[], prices: PriceList): RunCost {
  return runCost(foldUsage(undefined, events), prices);
}

export function isSupervision(role: ModelCaller): role is SupervisionRole {
  return role !== 'student';
}

/** Adds totals up: what a total is, by definition (the property tests hold runCost to it). */
export function sumTotals(parts: readonly UsageTotals[]): UsageTotals {
  const sum: UsageTotals = { calls: 0, recorded_calls: 0, counted_calls: 0, input_tokens: 0, output_tokens: 0, usd: 0, latency_ms: 0, complete: true, unpriced_models: [] };
  const unpriced = new Set<string>();
  for (const p of parts) {
    sum.calls += p.calls;
    sum.recorded_calls += p.recorded_calls;
    sum.counted_calls += p.counted_calls;
    sum.input_tokens += p.input_tokens;
    sum.output_tokens += p.output_tokens;
    sum.usd += p.usd;
    sum.latency_ms += p.latency_ms;
    if (!p.complete) sum.complete = false;
    for (const m of p.unpriced_models) unpriced.add(m);
  }
  sum.unpriced_models = [...unpriced].sort();
  return sum;
}

interface Tally {
  calls: number;
  recorded: number;
  counted: number;
  input: number;
  output: number;
  usd: number;
  latency: number;
  partial: boolean;
  models: Set<string>;
  remote: Set<string>;
  unpriced: Set<string>;
}

function newTally(): Tally {
  return { calls: 0, recorded: 0, counted: 0, input: 0, output: 0, usd: 0, latency: 0, partial: false, models: new Set(), remote: new Set(), unpriced: new Set() };
}

function totalsOf(t: Tally, prices: PriceList): UsageTotals {
  // A remote model called but never answered (an older run) has no price either way: unknown, not 0.
  const unpriced = new Set(t.unpriced);
  for (const m of t.remote) if (!Object.hasOwn(prices, m)) unpriced.add(m);
  const complete = t.recorded >= t.calls && !t.partial && unpriced.size === 0;
  return { calls: t.calls, recorded_calls: t.recorded, counted_calls: t.counted, input_tokens: t.input, output_tokens: t.output, usd: t.usd, latency_ms: t.latency, complete, unpriced_models: [...unpriced].sort() };
}

function personWait(facts: UsageFacts): RunCost['person'] {
  let waited = 0;
  let waiting = false;
  let asks = 0;
  for (const [asked, answered] of Object.values(facts.asks)) {
    if (asked === null) continue;
    asks += 1;
    const end = answered ?? facts.ended_at;
    if (end === undefined) waiting = true;
    else waited += Math.max(0, end - asked);
  }
  return { asks, waited_ms: waited, waiting };
}

function interventionCounts(facts: UsageFacts): Partial<Record<InterventionCountKind, number>> {
  const counts = new Map<InterventionCountKind, number>();
  for (const kind of Object.values(facts.interventions)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const out: Partial<Record<InterventionCountKind, number>> = {};
  for (const kind of INTERVENTION_COUNT_KINDS) {
    const n = counts.get(kind);
    if (n !== undefined) out[kind] = n;
  }
  return out;
}

function time(ts: string): number | null {
  const t = Date.parse(ts);
  return Number.isFinite(t) ? t : null;
}

/** Own-key read: a key is a sequence number or an intervention id, never a prototype's. */
function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function put<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
