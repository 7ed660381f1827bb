import { ModelRef } from '@shared/contracts/model';
import { SupervisorSettings } from '@shared/supervisor/contracts';
import { SpecError } from '../../spec/spec-errors';
import type { SupervisionOverrides } from '../../workflow/supervision/resolve-supervision';

/**
 * `steward run WORKFLOW`'s supervision flags (issue 11) as overrides over the document's own
 * `supervisor` settings: each value is checked by the settings schema itself, so the CLI and the
 * app accept exactly the same ranges.
 */

export const SUPERVISION_FLAGS = {
  supervise: { type: 'boolean' },
  'max-decisions': { type: 'string' },
  'max-retries': { type: 'string' },
  'supervisor-cost-cap': { type: 'string' },
  'supervisor-model': { type: 'string' },
} as const;

export interface SupervisionFlagValues {
  supervise?: boolean;
  'max-decisions'?: string;
  'max-retries'?: string;
  'supervisor-cost-cap'?: string;
  'supervisor-model'?: string;
}

const FIELDS = SupervisorSettings.shape;

function checked(flag: string, raw: string | undefined, field: 'max_decisions' | 'max_retries' | 'cost_cap_usd'): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw.trim().replace(/^\$/, ''));
  const parsed = raw.trim() === '' ? undefined : FIELDS[field].safeParse(n);
  if (!parsed?.success || typeof parsed.data !== 'number') throw new SpecError(`--${flag} ${raw}: ${parsed?.error?.issues[0]?.message ?? 'needs a number'}`);
  return parsed.data;
}

/**
 * A supervisor model as the command line names it: `replay` (the document's replay script),
 * `ollama:MODEL` (`ollama:qwen3:4b`), `URL#MODEL` for an OpenAI-compatible server, or a model ref
 * as JSON (`{"provider":"openai_compatible",…,"api_key":"keychain:NAME"}`).
 */
export function parseModelFlag(raw: string): ModelRef {
  const text = raw.trim();
  let candidate: unknown;
  if (text === 'replay' || text === 'script') candidate = { provider: 'script' };
  else if (text.startsWith('ollama:')) candidate = { provider: 'ollama', model: text.slice('ollama:'.length) };
  else if (/^https?:\/\//i.test(text) && text.includes('#')) {
    const at = text.lastIndexOf('#');
    candidate = { provider: 'openai_compatible', base_url: text.slice(0, at), model: text.slice(at + 1) };
  } else if (text.startsWith('{')) {
    try {
      candidate = JSON.parse(text);
    } catch {
      throw new SpecError(`--supervisor-model: not valid JSON`);
    }
  } else {
    throw new SpecError(`--supervisor-model ${raw}: name it as replay, ollama:MODEL, URL#MODEL or a model ref as JSON`);
  }
  const ref = ModelRef.safeParse(candidate);
  if (!ref.success) throw new SpecError(`--supervisor-model ${raw}: ${ref.error.issues.map((i) => `${i.path.join('.') || 'ref'}: ${i.message}`).join('; ')}`);
  return ref.data;
}

export function supervisionOverrides(values: SupervisionFlagValues): SupervisionOverrides {
  const overrides: SupervisionOverrides = {};
  if (values.supervise === true) overrides.supervise = true;
  const maxDecisions = checked('max-decisions', values['max-decisions'], 'max_decisions');
  if (maxDecisions !== undefined) overrides.max_decisions = maxDecisions;
  const maxRetries = checked('max-retries', values['max-retries'], 'max_retries');
  if (maxRetries !== undefined) overrides.max_retries = maxRetries;
  const cap = checked('supervisor-cost-cap', values['supervisor-cost-cap'], 'cost_cap_usd');
  if (cap !== undefined) overrides.cost_cap_usd = cap;
  if (values['supervisor-model'] !== undefined) overrides.model = parseModelFlag(values['supervisor-model']);
  return overrides;
}

/** Whether any supervision flag was given (they apply to workflows only). */
export function anySupervisionFlag(values: SupervisionFlagValues): boolean {
  return Object.keys(SUPERVISION_FLAGS).some((flag) => values[flag as keyof SupervisionFlagValues] !== undefined && values[flag as keyof SupervisionFlagValues] !== false);
}
