import type { Lineage } from '../workflow/invocation';
import { invocationId } from '../workflow/invocation';
import { computeAllowedActions, type InvocationFacts } from './allowed-actions';
import { Escalation, type FailureSignature } from './contracts';
import { redactForEscalation } from './redaction';

/**
 * The only way an Escalation comes to exist: redaction first, then the record (seed 004 design
 * §6.1: no unredacted instance is ever constructed, because the record is public).
 */

const DETAIL_LIMIT = 4000;

export interface EscalationFacts extends InvocationFacts {
  node: string;
  lineage: Lineage;
  /** The failure's message (may quote inputs, credentials, item data). */
  detail: string;
  failure_signature: FailureSignature;
  candidate_output?: unknown;
  attempt: number;
  /** ISO time; the caller's clock (the kernel has none). */
  now: string;
}

function truncate(text: string, limit = DETAIL_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** A candidate output is kept to a size a record, an event and a prompt can carry. */
const CANDIDATE_LIMITS = { text: 2000, items: 100, depth: 8 } as const;

function bounded(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return truncate(value, CANDIDATE_LIMITS.text);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= CANDIDATE_LIMITS.depth) return '…';
  if (Array.isArray(value)) return value.slice(0, CANDIDATE_LIMITS.items).map((v) => bounded(v, depth + 1));
  return Object.fromEntries(Object.entries(value).slice(0, CANDIDATE_LIMITS.items).map(([k, v]) => [k, bounded(v, depth + 1)]));
}

/** `secrets`: every value the run's secret registry handed out so far. */
export function buildEscalation(facts: EscalationFacts, secrets: readonly string[]): Escalation {
  const key = invocationId(facts.node, facts.lineage);
  const allowed = computeAllowedActions(facts);
  const redacted = redactForEscalation(
    { detail: facts.detail, candidate: facts.candidate_output, assets: [...facts.created_assets] },
    secrets,
  );
  return Escalation.parse({
    id: `${key}#${facts.attempt}`,
    node: facts.node,
    invocation_key: key,
    correlation_lineage: facts.lineage,
    // Truncated after redaction: a cut can never leave half a secret unmasked.
    detail: truncate(redacted.detail),
    failure_signature: facts.failure_signature,
    // Bounded after redaction too: a cut never leaves half a secret.
    ...(facts.candidate_output !== undefined ? { candidate_output: bounded(redacted.candidate) } : {}),
    attempt: facts.attempt,
    spent_usd: facts.spent_usd,
    ...(facts.unpriced_models !== undefined && facts.unpriced_models.length > 0 ? { unpriced_models: facts.unpriced_models.slice(0, 20).map((m) => m.slice(0, 200)) } : {}),
    created_assets: redacted.assets.slice(0, 100).map((a) => a.slice(0, 500)),
    retry_safe: facts.retry_safe,
    streaming: facts.streaming,
    allowed_actions: allowed.actions,
    created_at: facts.now,
  });
}

/** The sticky key: structured fields only; undefined when the failure has no signature. */
export function signatureKey(node: string, s: FailureSignature): string | undefined {
  if (s.code === undefined && s.http_status === undefined && s.errno === undefined) return undefined;
  return `${node}|code=${s.code ?? ''}|http=${s.http_status ?? ''}|errno=${s.errno ?? ''}`;
}
