import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { SupervisorAction } from '@shared/supervisor/contracts';
import { spentText } from '@shared/supervisor/cost';

/**
 * What `steward run` prints of a supervised workflow run (issue 11): a ⛨ line on stderr per
 * escalation and per verdict (node, action, who decided), one summary line at the end (decisions,
 * every skip by invocation, cost), and the interventions in `--json`. Built from the run's events
 * only, so what is printed is what the trace holds.
 */

export const SHIELD = '⛨';

const firstLine = (text: string, max = 160): string => (text.split('\n')[0] ?? '').slice(0, max);

/** `⛨ work[each=1] escalated: assert_failed — the value does not contain "ok" (allowed: skip, fail)` */
export function formatEscalated(event: RunEventOf<'supervisor.escalated'>): string {
  const e = event.escalation;
  const code = e.failure_signature.code ?? (e.failure_signature.http_status !== undefined ? `HTTP ${e.failure_signature.http_status}` : 'failed');
  const spent = spentText(e);
  return `${SHIELD} ${e.invocation_key} escalated: ${code} — ${firstLine(e.detail)}${spent !== undefined ? ` · spent ${spent}` : ''} (allowed: ${e.allowed_actions.join(', ')})`;
}

/** `⛨ work[each=1] → skip (decided by agent): a poisoned item` */
export function formatVerdict(event: RunEventOf<'supervisor.verdict'>): string {
  const { verdict } = event;
  return `${SHIELD} ${event.invocation_id ?? event.node} → ${verdict.verdict.action} (decided by ${verdict.decided_by}): ${firstLine(verdict.verdict.reason)}`;
}

/** One intervention as `--json` prints it: the escalation (redacted) and its verdict. */
export interface PrintedIntervention {
  invocation_id: string;
  node: string;
  escalation?: RunEventOf<'supervisor.escalated'>['escalation'];
  verdict: RunEventOf<'supervisor.verdict'>['verdict'];
  next: RunEventOf<'supervisor.verdict'>['next'];
}

export interface SupervisionSummary {
  interventions: PrintedIntervention[];
  /** Escalations the supervisor was asked about (what --max-decisions counts). */
  decisions: number;
  actions: Record<SupervisorAction, number>;
  /** Every skipped invocation, by id. */
  skipped: string[];
  cost_usd: number;
}

export function summarizeSupervision(events: readonly RunEvent[]): SupervisionSummary {
  const escalations = new Map<string, RunEventOf<'supervisor.escalated'>['escalation']>();
  const summary: SupervisionSummary = { interventions: [], decisions: 0, actions: { retry: 0, skip: 0, substitute: 0, end_stream: 0, fail: 0 }, skipped: [], cost_usd: 0 };
  for (const e of events) {
    if (e.type === 'supervisor.escalated') escalations.set(e.escalation.id, e.escalation);
    if (e.type !== 'supervisor.verdict') continue;
    const id = e.invocation_id ?? e.node;
    const escalation = escalations.get(e.verdict.escalation_id);
    summary.interventions.push({ invocation_id: id, node: e.node, ...(escalation ? { escalation } : {}), verdict: e.verdict, next: e.next });
    if (e.verdict.turns > 0) summary.decisions += 1;
    summary.actions[e.verdict.verdict.action] += 1;
    if (e.next === 'skip') summary.skipped.push(id);
    summary.cost_usd += e.verdict.cost_usd;
  }
  return summary;
}

const ACTION_WORDS = { retry: 'retried', skip: 'skipped', substitute: 'substituted', end_stream: 'streams ended', fail: 'failed' } satisfies Record<SupervisorAction, string>;

/** `⛨ supervised: 2 skipped (work[each=1], work[each=4]), 1 retried · 3 decisions · $0.0000` */
export function formatSummary(s: SupervisionSummary): string {
  const acted = (Object.keys(ACTION_WORDS) as SupervisorAction[])
    .filter((a) => s.actions[a] > 0)
    .map((a) => `${s.actions[a]} ${ACTION_WORDS[a]}${a === 'skip' ? ` (${s.skipped.join(', ')})` : ''}`);
  const verdicts = acted.length > 0 ? acted.join(', ') : 'no intervention';
  return `${SHIELD} supervised: ${verdicts} · ${s.decisions} decision(s) · $${s.cost_usd.toFixed(4)}`;
}
