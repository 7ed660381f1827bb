import fc from 'fast-check';
import type { z } from 'zod';
import { eventId, RunEvent } from '@shared/contracts/events';
import type { Decision } from '@shared/contracts/decision';
import { SupervisionSpec } from '@shared/contracts/spec';

/**
 * Generated runs of every shape promotion counts (agent and workflow runs, dry runs, runs whose start
 * is missing, reviewed, teacher and unreviewed rounds, unusable verdicts, answered escalations), as
 * the engine writes their events: for the property tests of the promotion figures.
 */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type EventInput = DistributiveOmit<z.input<typeof RunEvent>, 'id' | 'run_id' | 'seq' | 'ts'>;

const SUPERVISION = SupervisionSpec.parse({});
const MODELS = { student: 'replay', teacher: 'replay' };
const TOOLS = [
  { name: 'read_text_file', server: 'fs', schema_hash: 'h-read', effect: 'read', effect_source: 'shipped' },
  { name: 'write_file', server: 'fs', schema_hash: 'h-write', effect: 'irreversible_write', effect_source: 'shipped' },
] as const;
const READ: Decision = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'a.md' } };
const WRITE: Decision = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'a.md', content: 'x' } };

export const Round = fc.record({
  round: fc.nat(3),
  node: fc.constantFrom('reader', 'writer'),
  kind: fc.constantFrom('reviewed', 'reviewed', 'teacher', 'unreviewed'),
  rule: fc.constantFrom('protected_effect', 'review_all', 'sampled', 'validation_failed'),
  ruling: fc.constantFrom('accept', 'accept', 'replace', 'block', 'escalate', 'unusable'),
  learning: fc.boolean(),
  record: fc.nat(3).map((n) => n > 0),
  answer: fc.constantFrom(undefined, 'approve', 'reject'),
  agree: fc.boolean(),
  write: fc.boolean(),
  pause: fc.nat(2),
});
export type Round = typeof Round extends fc.Arbitrary<infer R> ? R : never;
export const Run = fc.record({
  workflow: fc.constantFrom<string>('wf-a', 'wf-b'),
  graph: fc.boolean(),
  started: fc.nat(4).map((n) => n > 0),
  dry: fc.nat(4).map((n) => n === 0),
  start: fc.nat(6),
  rounds: fc.array(Round, { maxLength: 6 }),
});
export type Run = typeof Run extends fc.Arbitrary<infer R> ? R : never;

/** A plain reviewed agent run of wf-a: every round reviewed and recorded, the teacher blocking one in three. */
export const reviewedRun = (i: number, rounds = 4): Run => ({
  workflow: 'wf-a',
  graph: false,
  started: true,
  dry: false,
  start: i * 100,
  rounds: Array.from({ length: rounds }, (_, round) => ({ round, node: 'reader', kind: 'reviewed', rule: 'sampled', ruling: round % 3 ? 'accept' : 'block', learning: true, record: true, answer: undefined, agree: true, write: false, pause: 1 })),
});

const T0 = Date.UTC(2026, 4, 1);
/** One run's events as the engine writes them; clocks start close together, so runs share instants. */
export const runId = (i: number) => `run-${String(i).padStart(6, '0')}`;
export function runEvents(spec: Run, i: number): RunEvent[] {
  const id = runId(i);
  const events: RunEvent[] = [];
  let clock = spec.start;
  const emit = (payload: EventInput, node?: string) => {
    const seq = events.length;
    events.push(RunEvent.parse({ ...payload, ...(node ? { invocation_id: node } : {}), id: eventId(id, seq), run_id: id, seq, ts: new Date(T0 + clock * 1000).toISOString() }));
  };
  const start = { spec_id: spec.workflow, spec_name: spec.workflow, task: 't', supervision: SUPERVISION, models: MODELS, dry_run: spec.dry };
  if (spec.graph) {
    emit({ type: 'workflow.started', workflow_id: spec.workflow, workflow_name: spec.workflow, nodes: [{ id: 'reader', kind: 'agent' }, { id: 'writer', kind: 'agent' }], inputs: {} });
    if (spec.started) for (const node of ['reader', 'writer']) emit({ type: 'agent.started', ...start }, node);
  } else if (spec.started) emit({ type: 'run.started', ...start });
  for (const r of spec.rounds) {
    clock += r.pause;
    const node = spec.graph ? r.node : undefined;
    emitRound(r, (p) => emit(p, node));
  }
  return events;
}

function emitRound(r: Round, emit: (p: EventInput) => void): void {
  const candidate = r.write ? WRITE : READ;
  emit({ type: 'tools.snapshot', round: r.round, hash: 'h', tools: [...TOOLS] });
  if (r.kind === 'teacher') {
    emit({ type: 'round.completed', round: r.round, record: { round: r.round, proposer: 'teacher', candidate: { parsed: { raw: READ, tool_call_count: 1 } }, review: { required: false, rule: 'teacher_proposed' }, verdicts: [], selected: { source: 'teacher', decision: READ }, outcome: 'executed' } });
    emit({ type: 'learning.example', round: r.round, kind: 'shadow', context: [], student_candidate: candidate, final_decision: READ, reason_codes: [], agreement: r.agree, models: MODELS });
    return;
  }
  if (r.kind === 'unreviewed') {
    emit({ type: 'round.completed', round: r.round, record: { round: r.round, proposer: 'student', candidate: { parsed: { raw: candidate, tool_call_count: 1 } }, review: { required: false, rule: 'not_required' }, verdicts: [], selected: { source: 'student', decision: candidate }, outcome: 'executed' } });
    return;
  }
  const ruling = r.ruling;
  const verdict = ruling === 'unusable' ? undefined : { verdict: ruling, reason_codes: ruling === 'accept' ? [] : ['unsafe_effect' as const], explanation: `teacher says ${ruling}`, ...(ruling === 'replace' ? { replacement: { decision_type: 'complete', output: 'done' } } : {}) };
  const outcome = { accept: 'executed', replace: 'delivered', block: 'blocked', escalate: 'escalated', unusable: 'blocked' } as const;
  if (r.record || !verdict) {
    emit({
      type: 'round.completed',
      round: r.round,
      record: {
        round: r.round,
        proposer: 'student',
        candidate: { parsed: { raw: candidate, tool_call_count: 1 } },
        review: { required: true, rule: r.rule },
        verdicts: verdict ? [{ attempt: 1, verdict, usable: true }] : [{ attempt: 1, usable: false, problem: 'not JSON' }],
        ...(verdict ? { verdict } : {}),
        outcome: outcome[ruling],
        ...(ruling === 'unusable' ? { reason: 'verdict_unusable' } : {}),
      },
    });
  }
  if (verdict && r.learning) {
    emit({ type: 'learning.example', round: r.round, kind: 'review', context: [], rule: r.rule, student_candidate: candidate, verdict, reason_codes: verdict.reason_codes, agreement: ruling === 'accept', models: MODELS });
  }
  if (r.answer) emit({ type: 'intervention.answered', round: r.round, intervention_id: `i-${r.round}`, answer: { action: r.answer } });
}

