import { Decision } from '@shared/contracts/decision';
import { eventId } from '@shared/contracts/events';
import type { RoundRecord } from '@shared/contracts/round';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import type { ChangedFile, RoundFact } from '@shared/scs/contracts';
import { canonicalJson } from '@shared/util/canonical-json';
import { maskArguments } from '@shared/util/mask';

/** Ids of the events a round emitted (the evidence SCS's monitor can cite). */
export function eventIdsSince(runId: string, from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => eventId(runId, from + i));
}

/** Argument names that say where a write lands: the changed file's target when present. */
const TARGET_KEYS = ['path', 'file', 'file_path', 'filename', 'destination', 'target', 'uri', 'url'];
const WRITE_EFFECTS: ReadonlySet<string> = new Set(['reversible_write', 'irreversible_write']);

const sensitiveOf = (snapshot: Pick<ToolSnapshot, 'tools'> | undefined, name: string): readonly string[] => snapshot?.tools.find((t) => t.name === name)?.effect.sensitive_arguments ?? [];

/**
 * A call of a tool with a write effect, as the evidence pack lists it: where it wrote (a path
 * argument, else the arguments with the sensitive ones masked) and what came back.
 */
function changedFile(record: RoundRecord, snapshot: Pick<ToolSnapshot, 'tools'> | undefined): ChangedFile | undefined {
  const decision = record.selected?.decision;
  if (decision?.decision_type !== 'tool_call' || !record.execution) return undefined;
  const tool = snapshot?.tools.find((t) => t.name === decision.tool_name);
  if (!tool || !WRITE_EFFECTS.has(tool.effect.effect)) return undefined;
  const args = maskArguments(decision.arguments, tool.effect.sensitive_arguments);
  const key = TARGET_KEYS.find((k) => typeof args[k] === 'string' && !tool.effect.sensitive_arguments.includes(k));
  const target = key ? String(args[key]) : Object.entries(args).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
  const { is_error, content } = record.execution;
  return {
    round: record.round,
    tool: tool.name,
    target: target.slice(0, 300),
    result: (is_error ? `error: ${content}` : `ok (${content.length} chars)`).slice(0, 300),
    ok: !is_error,
  };
}

/** A round reduced to what SCS's monitor reasons about (`snapshot`: the round's tools, for write effects and sensitive arguments). */
export function roundFact(record: RoundRecord, eventIds: string[], snapshot?: Pick<ToolSnapshot, 'tools'>): RoundFact {
  const decision = record.selected?.decision ?? Decision.safeParse(record.candidate.parsed?.raw).data;
  const tool = decision?.decision_type === 'tool_call' ? decision.tool_name : undefined;
  const failed = record.outcome === 'failed' || (record.outcome === 'blocked' && record.reason !== 'finish_rejected') || record.execution?.is_error === true;
  const what = decision ? (decision.decision_type === 'tool_call' ? decision.tool_name : decision.decision_type) : 'no valid decision';
  const changed = changedFile(record, snapshot);
  const detail = record.execution
    ? record.execution.is_error
      ? `error: ${record.execution.content.slice(0, 160)}`
      : `ok (${record.execution.content.length} chars)`
    : (record.message ?? record.reason ?? '');
  return {
    round: record.round,
    outcome: record.outcome,
    reason: record.reason,
    tool,
    // Sensitive arguments masked: the key lives in the SCS state (and its checkpoint), it only has to tell calls apart.
    call_key: decision?.decision_type === 'tool_call' ? canonicalJson({ t: decision.tool_name, a: maskArguments(decision.arguments, sensitiveOf(snapshot, decision.tool_name)) }) : undefined,
    failed,
    summary: `${what} → ${record.outcome}${detail ? `: ${detail}` : ''}`.slice(0, 300),
    event_ids: eventIds,
    ...(record.execution ? { result: record.execution.content.slice(0, 2000) } : {}),
    ...(changed ? { changed } : {}),
  };
}
