import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { DECIDED_BY_LABELS, type SupervisorAction } from '@shared/supervisor/contracts';
import { spentText } from '@shared/supervisor/cost';
import { createdText } from '@shared/supervisor/created-assets';
import { invocationIdText, invocationText } from '@shared/workflow/invocation-text';

/**
 * What `steward run` prints of a supervised workflow run (issue 11): a ⛨ line on stderr per
 * escalation and per verdict (node, action, who decided), one summary line at the end (decisions,
 * every skip by invocation, escalations still waiting for a person, cost), and the interventions in
 * `--json`. Built from the run's events only, so what is printed is what the trace holds; items and
 * who decided are named in the app's words ("work · item 2", "decided by the supervisor").
 */

export const SHIELD = '⛨';

const firstLine = (text: string, max = 160): string => (text.split('\n')[0] ?? '').slice(0, max);

/** `⛨ work · item 2 escalated: assert_failed — the value does not contain "ok" (allowed: skip, fail)` */
export function formatEscalated(event: RunEventOf<'supervisor.escalated'>): string {
  const e = event.escalation;
  const code = e.failure_signature.code ?? (e.failure_signature.http_status !== undefined ? `HTTP ${e.failure_signature.http_status}` : 'failed');
  const spent = spentText(e);
  const created = createdText(e.created_assets);
  return `${SHIELD} ${invocationText(e.node, e.correlation_lineage)} escalated: ${code} — ${firstLine(e.detail)}${spent !== undefined ? ` · spent ${spent}` : ''}${created !== undefined ? ` · created ${created}` : ''} (allowed: ${e.allowed_actions.join(', ')})`;
}

/** `⛨ work · item 2 → skip (decided by the supervisor): a poisoned item` */
export function formatVerdict(event: RunEventOf<'supervisor.verdict'>): string {
  const { verdict } = event;
  return `${SHIELD} ${invocationIdText(event.invocation_id ?? event.node)} → ${verdict.verdict.action} (decided by ${DECIDED_BY_LABELS[verdict.decided_by]}): ${firstLine(verdict.verdict.reason)}`;
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
  /** Escalations a person is asked about (a `supervisor_escalation` intervention) with no verdict yet, by invocation id. */
  waiting: string[];
  cost_usd: number;
}

export function summarizeSupervision(events: readonly RunEvent[]): SupervisionSummary {
  const escalations = new Map<string, RunEventOf<'supervisor.escalated'>['escalation']>();
  const summary: SupervisionSummary = { interventions: [], decisions: 0, actions: { retry: 0, skip: 0, substitute: 0, end_stream: 0, fail: 0 }, skipped: [], waiting: [], cost_usd: 0 };
  // As the app's feed: an escalation whose intervention asks a person, and no verdict yet, waits for them.
  const asked = new Map<string, string>();
  for (const e of events) {
    if (e.type === 'supervisor.escalated') escalations.set(e.escalation.id, e.escalation);
    const x = e.type === 'intervention.requested' ? e.intervention.supervision?.escalation : undefined;
    if (x) asked.set(x.id, x.invocation_key);
    if (e.type !== 'supervisor.verdict') continue;
    asked.delete(e.verdict.escalation_id);
    const id = e.invocation_id ?? e.node;
    const escalation = escalations.get(e.verdict.escalation_id);
    summary.interventions.push({ invocation_id: id, node: e.node, ...(escalation ? { escalation } : {}), verdict: e.verdict, next: e.next });
    if (e.verdict.turns > 0) summary.decisions += 1;
    summary.actions[e.verdict.verdict.action] += 1;
    if (e.next === 'skip') summary.skipped.push(id);
    summary.cost_usd += e.verdict.cost_usd;
  }
  summary.waiting = [...asked.values()];
  return summary;
}

const ACTION_WORDS = { retry: 'retried', skip: 'skipped', substitute: 'substituted', end_stream: 'streams ended', fail: 'failed' } satisfies Record<SupervisorAction, string>;

/**
 * `⛨ supervised: 2 skipped (work · item 2, work · item 5), 1 retried · 3 decision(s) · $0.0000`; an
 * escalation still without its verdict is said (`1 waiting for your verdict (work · item 2)`), so a
 * run that waits never reads "no intervention".
 */
export function formatSummary(s: SupervisionSummary): string {
  const acted = (Object.keys(ACTION_WORDS) as SupervisorAction[])
    .filter((a) => s.actions[a] > 0)
    .map((a) => `${s.actions[a]} ${ACTION_WORDS[a]}${a === 'skip' ? ` (${s.skipped.map(invocationIdText).join(', ')})` : ''}`);
  if (s.waiting.length > 0) acted.push(`${s.waiting.length} waiting for your verdict (${s.waiting.map(invocationIdText).join(', ')})`);
  const verdicts = acted.length > 0 ? acted.join(', ') : 'no intervention';
  return `${SHIELD} supervised: ${verdicts} · ${s.decisions} decision(s) · $${s.cost_usd.toFixed(4)}`;
}
