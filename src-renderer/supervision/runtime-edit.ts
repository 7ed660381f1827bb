import { LimitsSpec } from '@shared/contracts/spec';

/** The Runtime group's fields as a person types them: rounds, seconds, tokens (empty: not set). */
export interface RuntimeTexts {
  max_rounds: string;
  decision_timeout_s: string;
  max_output_tokens: string;
}
export type RuntimeField = keyof RuntimeTexts;

const FIELD_OF_PATH = { max_rounds: 'max_rounds', decision_timeout_ms: 'decision_timeout_s', max_output_tokens: 'max_output_tokens' } as const satisfies Partial<Record<keyof LimitsSpec, RuntimeField>>;

export function runtimeTextsOf(limits: LimitsSpec): RuntimeTexts {
  return {
    max_rounds: String(limits.max_rounds),
    decision_timeout_s: limits.decision_timeout_ms === undefined ? '' : String(limits.decision_timeout_ms / 1000),
    max_output_tokens: limits.max_output_tokens === undefined ? '' : String(limits.max_output_tokens),
  };
}

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

/** A typed number, or a sentence saying why it is not one; empty is `undefined`. */
function numberOf(text: string, what: string): { value?: number; issue?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  const n = Number(trimmed);
  return Number.isFinite(n) ? { value: n } : { issue: `${what} is a number; “${trimmed.slice(0, 20)}” is not one.` };
}

export type RuntimeParse = { ok: true; limits: LimitsSpec } | { ok: false; issues: Partial<Record<RuntimeField, string>> };

/**
 * The typed fields as the agent's limits, validated by the spec's own schema (the one `steward
 * validate` and the host use), or each field's problem in words. `base` keeps what the group does
 * not edit (failures in a row).
 */
export function parseRuntimeTexts(texts: RuntimeTexts, base: LimitsSpec): RuntimeParse {
  const issues: Partial<Record<RuntimeField, string>> = {};
  const rounds = numberOf(texts.max_rounds, 'The round limit');
  const timeout = numberOf(texts.decision_timeout_s, 'The decision timeout');
  const tokens = numberOf(texts.max_output_tokens, 'The model reply bound');
  if (rounds.issue) issues.max_rounds = rounds.issue;
  else if (rounds.value === undefined) issues.max_rounds = 'Give a round limit: a whole number of rounds from 1 to 200.';
  if (timeout.issue) issues.decision_timeout_s = timeout.issue;
  if (tokens.issue) issues.max_output_tokens = tokens.issue;
  const { decision_timeout_ms: _t, max_output_tokens: _b, ...kept } = base;
  const candidate = {
    ...kept,
    max_rounds: rounds.value ?? base.max_rounds,
    ...(timeout.value !== undefined ? { decision_timeout_ms: Math.round(timeout.value * 1000) } : {}),
    ...(tokens.value !== undefined ? { max_output_tokens: tokens.value } : {}),
  };
  const parsed = LimitsSpec.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path[0];
      const field = typeof key === 'string' && Object.hasOwn(FIELD_OF_PATH, key) ? FIELD_OF_PATH[key as keyof typeof FIELD_OF_PATH] : undefined;
      if (field && issues[field] === undefined) issues[field] = sentence(issue.message);
    }
  }
  if (Object.keys(issues).length > 0 || !parsed.success) return { ok: false, issues };
  return { ok: true, limits: parsed.data };
}

/**
 * One field typed where every change goes straight into the document (the graph editor's inspector):
 * the texts as typed, and the limits to store when they parse; a value the schema refuses stores
 * nothing (its problem is said beside the field).
 */
export function typeRuntimeField(texts: RuntimeTexts, field: RuntimeField, value: string, base: LimitsSpec): { texts: RuntimeTexts; limits?: LimitsSpec } {
  const next = { ...texts, [field]: value };
  const parsed = parseRuntimeTexts(next, base);
  return parsed.ok ? { texts: next, limits: parsed.limits } : { texts: next };
}
