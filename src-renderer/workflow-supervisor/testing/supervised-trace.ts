import { RunEvent, eventId, type RunEventPayload } from '../../../src-shared/contracts/events';
import type { MalformedAnswer, SupervisorVerdict, Verdict } from '../../../src-shared/supervisor/contracts';
import { escalation as buildEscalationOf } from '../../../src-shared/supervisor/testing/fixtures';
import { invocationId, type Lineage } from '../../../src-shared/workflow/invocation';

/**
 * A supervised workflow run's trace as the host writes it (issue 11), for the app's tests and the
 * e2e's import: items → iterate → an assert per item → collect → output, where item 1 fails its
 * assert and the supervisor (a local replay model) skips it. Every event is checked against the
 * RunEvent contract, so a contract change breaks this builder, not a screen.
 */

export const SUPERVISED_WORKFLOW_ID = 'must-say-ok';
export const SKIP_REASON = 'the second item is not an ok line; the list goes on without it';

/** The workflow document the trace is a run of (a graph the editor can open). */
export function supervisedWorkflowDocument(): Record<string, unknown> {
  const edge = (from: string, fp: string, to: string, tp: string) => ({ from: { node: from, port: fp }, to: { node: to, port: tp } });
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: SUPERVISED_WORKFLOW_ID,
    name: 'Must say ok',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }], position: { x: 0, y: 0 } },
      { id: 'each', kind: 'iterate', concurrency: 2, position: { x: 260, y: 0 } },
      { id: 'work', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }], position: { x: 520, y: 0 } },
      { id: 'all', kind: 'collect', position: { x: 780, y: 0 } },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }], position: { x: 1040, y: 0 } },
    ],
    edges: [edge('in', 'items', 'each', 'list'), edge('each', 'item', 'work', 'value'), edge('work', 'value', 'all', 'item'), edge('all', 'list', 'out', 'list')],
  };
}

export interface TraceOptions {
  runId?: string;
  /** The verdict on item 1 (skip by default); `undefined` = the supervisor is still deciding. */
  verdict?: Verdict | null;
  decidedBy?: SupervisorVerdict['decided_by'];
  cost?: number;
  /** A person supervises: the escalation is also an intervention waiting in the app. */
  askPerson?: boolean;
  /** The supervisor's unusable answer the verdict was applied over (decided by the kernel). */
  malformed?: MalformedAnswer;
}

export function supervisedTrace(opts: TraceOptions = {}): RunEvent[] {
  const runId = opts.runId ?? 'supervised-skip-run-0001';
  const verdict = opts.verdict === undefined ? ({ action: 'skip', reason: SKIP_REASON } as const) : opts.verdict;
  const payloads: RunEventPayload[] = [];
  const lineage = (index: number): Lineage => [{ iterate: 'each', index }];
  const inv = (node: string, l: Lineage, status: 'running' | 'done' | 'failed' | 'skipped', extra: Record<string, unknown> = {}): RunEventPayload =>
    ({ type: 'node.invocation', invocation_id: invocationId(node, l), node, lineage: l, status, ...extra }) as RunEventPayload;

  payloads.push({
    type: 'workflow.started',
    workflow_id: SUPERVISED_WORKFLOW_ID,
    workflow_name: 'Must say ok',
    nodes: [
      { id: 'in', kind: 'input' },
      { id: 'each', kind: 'iterate' },
      { id: 'work', kind: 'assert' },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output' },
    ],
    inputs: { items: ['ok one', 'not this', 'ok three'] },
    supervisor: opts.askPerson ? { kind: 'person' } : { kind: 'model', label: 'replay', local: true },
  });
  payloads.push(inv('in', [], 'done', { outputs: { items: ['ok one', 'not this', 'ok three'] } }));
  payloads.push(inv('each', [], 'done'));
  for (const i of [0, 2]) payloads.push(inv('work', lineage(i), 'running'), inv('work', lineage(i), 'done', { outputs: { value: i === 0 ? 'ok one' : 'ok three' } }));
  payloads.push(inv('work', lineage(1), 'running'));

  // Built the host's way (redaction, the allowed set): an assert is retry-safe and has no candidate, so retry, skip, fail.
  const escalation = buildEscalationOf({
    node: 'work',
    lineage: lineage(1),
    detail: 'assert failed: the value does not contain "ok"',
    failure_signature: { code: 'assert_failed' },
    candidate_output: undefined,
    attempt: 1,
    has_candidate: false,
    validator_covers_output: false,
  });
  if (opts.askPerson) {
    const supervision = { escalation, failure: { code: 'assert_failed', message: escalation.detail }, attempt: 1, refused: [] };
    payloads.push({
      type: 'intervention.requested',
      invocation_id: escalation.invocation_key,
      round: 0,
      intervention: { id: `${runId}:sv-1`, run_id: runId, round: 0, kind: 'supervisor_escalation', reason: 'A node failed: your verdict', reason_codes: [], options: ['verdict'], requested_at: escalation.created_at, supervision },
    });
  }
  payloads.push({ type: 'supervisor.escalated', invocation_id: escalation.invocation_key, escalation });
  if (verdict !== null) {
    const applied: SupervisorVerdict = { escalation_id: escalation.id, verdict, decided_by: opts.decidedBy ?? 'agent', turns: 1, cost_usd: opts.cost ?? 0, ...(opts.malformed ? { malformed: opts.malformed } : {}) };
    const next = ({ retry: 'run_again', skip: 'skip', substitute: 'done', end_stream: 'end_stream', fail: 'failed' } as const)[verdict.action];
    payloads.push({ type: 'supervisor.verdict', invocation_id: escalation.invocation_key, node: 'work', verdict: applied, next });
    const failed = verdict.action === 'fail';
    payloads.push(inv('work', lineage(1), failed ? 'failed' : 'skipped', { failure: { code: failed ? 'assert_failed' : 'supervisor_skipped', message: verdict.reason } }));
    if (!failed) {
      payloads.push(inv('all', [], 'done', { outputs: { list: ['ok one', 'ok three'], left_out: 1 } }));
      payloads.push(inv('out', [], 'done', { outputs: { list: ['ok one', 'ok three'] } }));
    }
    const count = payloads.length + 1;
    payloads.push(
      failed
        ? { type: 'run.finished', status: 'failed', message: `work failed: ${verdict.reason}`, rounds: 0, event_count: count }
        : { type: 'run.finished', status: 'completed', outputs: { list: ['ok one', 'ok three'] }, rounds: 0, event_count: count },
    );
  }
  return payloads.map((p, seq) => RunEvent.parse({ ...p, id: eventId(runId, seq), run_id: runId, seq, ts: new Date(Date.UTC(2026, 11, 1, 10, 0, seq)).toISOString() }));
}

/** The trace as `steward run --trace` writes it: one event a line. */
export const toJsonl = (events: readonly RunEvent[]): string => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
