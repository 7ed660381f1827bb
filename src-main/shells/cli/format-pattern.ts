import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { CallerIdentity, JudgmentRecord, PatternStatus } from '@shared/pattern/contracts';
import { describeA2aCall } from '@shared/contracts/a2a-call';

/**
 * CLI lines for pattern nodes (issue 12): one per iteration and per judgment, and the node's end,
 * indented under the node's invocation line; and the patterns of a run for `--json`.
 */

const MARK = '⚖';
const oneLine = (text: string, max = 160): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

export function callerLabel(caller: CallerIdentity): string {
  switch (caller.kind) {
    case 'llm':
      return `model ${caller.profile}${caller.model !== undefined ? ` (${caller.model})` : ''}`;
    case 'a2a': {
      // The agent card's name and version as read when it judged (the audit), and where it is.
      const name = caller.agent?.name ?? caller.name;
      return `A2A agent${name !== undefined ? ` “${name}”` : ''}${caller.agent?.version ? ` ${caller.agent.version}` : ''} at ${caller.url}`;
    }
    case 'verifier':
      return `${caller.verifier === 'json_schema' ? 'JSON Schema' : 'expression'} verifier “${caller.name}”`;
    case 'human':
      return caller.who !== undefined ? `person ${caller.who}` : 'person';
    case 'system':
      return 'system';
  }
}

function verdictText(j: JudgmentRecord): string {
  if (!j.verification.ok) return `unusable: ${oneLine(j.verification.problem)}`;
  const v = j.verdict;
  if (!v) return 'no verdict';
  const cites = j.evidence.length > 0 ? ` (cites ${j.evidence.join(', ')})` : '';
  switch (v.verdict) {
    case 'approved':
      return `approved${cites}`;
    case 'rejected':
      return `rejected${cites}: ${oneLine(v.feedback)}`;
    case 'escalated':
      return `escalated: ${oneLine(v.reason)}`;
  }
}

const ms = (j: JudgmentRecord): string => {
  const took = Date.parse(j.ended_at) - Date.parse(j.started_at);
  return Number.isFinite(took) ? ` · ${took} ms` : '';
};

const ENDED = {
  approved: 'approved',
  accepted: 'accepted unjudged (confident enough)',
  unapproved: 'returns its best output, NOT approved',
  escalated: 'escalated',
  failed: 'failed',
} satisfies Record<PatternStatus, string>;

/** `    ↻ p iteration 2: draft#2` · `    ⚖ p:j0.2.0.1 model judge → approved (cites draft#2) · 3 ms` · `    ⚖ p approved after 2 iteration(s)`. */
export function formatPatternEvent(event: RunEvent): string | undefined {
  const where = event.invocation_id ?? 'pattern';
  switch (event.type) {
    case 'pattern.iteration':
      return `    ↻ ${where} ${event.step > 0 ? `step ${event.step + 1} ` : ''}iteration ${event.iteration}: ${event.outputs.map((o) => o.id).join(', ')}`;
    case 'pattern.judgment': {
      const j = event.judgment;
      return `    ${MARK} ${j.id}${j.attempt > 1 ? ' (asked again)' : ''} ${callerLabel(j.caller)} → ${verdictText(j)}${ms(j)}`;
    }
    case 'a2a.called':
      // The privacy log's entry: which agent and host, sizes and field names, never the text or values.
      return `    ⇄ ${where} ${describeA2aCall(event)}`;
    case 'pattern.ended':
      return `    ${MARK} ${where} ${ENDED[event.status]} after ${event.iterations} iteration(s)${event.reason !== undefined && event.status !== 'approved' ? `: ${oneLine(event.reason)}` : ''}`;
    default:
      return undefined;
  }
}

export interface PatternSummary {
  status?: PatternStatus;
  approved?: boolean;
  iterations: Array<Omit<RunEventOf<'pattern.iteration'>, 'type' | 'id' | 'run_id' | 'seq' | 'ts' | 'invocation_id' | 'trimmed' | 'pattern_member'>>;
  judgments: JudgmentRecord[];
  preference_pairs: number;
  reason?: string;
}

/** Every pattern invocation of a run, from its events: its iterations, judgments and end (for `--json`). */
export function summarizePatterns(events: readonly RunEvent[]): Record<string, PatternSummary> {
  const out: Record<string, PatternSummary> = {};
  const of = (id: string | undefined): PatternSummary => (out[id ?? 'pattern'] ??= { iterations: [], judgments: [], preference_pairs: 0 });
  for (const e of events) {
    if (e.type === 'pattern.iteration') of(e.invocation_id).iterations.push({ step: e.step, iteration: e.iteration, outputs: e.outputs, output: e.output });
    if (e.type === 'pattern.judgment') of(e.invocation_id).judgments.push(e.judgment);
    if (e.type === 'pattern.preference') of(e.invocation_id).preference_pairs += 1;
    if (e.type === 'pattern.ended') Object.assign(of(e.invocation_id), { status: e.status, approved: e.approved, ...(e.reason !== undefined ? { reason: e.reason } : {}) });
  }
  return out;
}

/** `{ patterns }` for a run that has pattern nodes, `{}` otherwise. */
export function patternsOf(events: readonly RunEvent[]): { patterns?: Record<string, PatternSummary> } {
  const patterns = summarizePatterns(events);
  return Object.keys(patterns).length > 0 ? { patterns } : {};
}
