import { OUTPUT_TOKEN_BOUNDS, PROPOSAL_OUTPUT_TOKENS } from '@shared/contracts/output-bound';
import { FieldRow } from '../components/Form';
import { count } from '../view/format';
import type { RuntimeField, RuntimeTexts } from './runtime-edit';

const FIELDS = [
  {
    field: 'max_rounds',
    label: 'Round limit',
    unit: 'rounds',
    placeholder: '12',
    hint: 'The run stops after this many model rounds without completing (1–200).',
  },
  {
    field: 'decision_timeout_s',
    label: 'Decision timeout',
    unit: 'seconds',
    placeholder: 'none',
    hint: 'A model that takes longer over one decision (or one review) is stopped and the round fails (1–600 s). Empty: only each model’s own call timeout.',
  },
  {
    field: 'max_output_tokens',
    label: 'Model reply bound',
    unit: 'output tokens',
    // Short enough for the narrow graph inspector's field (110 px); the hint says what the default is.
    placeholder: 'default',
    hint: `Output tokens one reply may use, sent with every proposal and review so the model’s server stops there (256–32,768). A reply cut at the bound is never used. Empty: ${count(PROPOSAL_OUTPUT_TOKENS)} for a proposal, ${count(OUTPUT_TOKEN_BOUNDS.teacher)} for a review.`,
  },
] as const satisfies readonly { field: RuntimeField; label: string; unit: string; placeholder: string; hint: string }[];

/**
 * The Runtime limits an agent has (issue 29) — round limit, decision timeout, model reply bound — as
 * typed text with each field's problem in words (runtime-edit.ts validates them with the spec's own
 * schema). The workflow panel's Runtime group and the graph editor's agent inspector both use it;
 * each keeps and stores the limits its own way.
 */
export function RuntimeFields({
  texts,
  issues,
  onChange,
  idOf,
  testIdOf,
}: {
  texts: RuntimeTexts;
  issues: Partial<Record<RuntimeField, string>>;
  onChange: (field: RuntimeField, value: string) => void;
  idOf: (field: RuntimeField) => string;
  testIdOf: (field: RuntimeField) => string;
}) {
  return (
    <>
      {FIELDS.map(({ field, label, unit, placeholder, hint }) => {
        const id = idOf(field);
        const issue = issues[field];
        return (
          <FieldRow key={field} label={label} htmlFor={id} hint={hint} issue={issue}>
            <span className="input-with-unit">
              <input
                id={id}
                className="input input--number"
                inputMode="decimal"
                value={texts[field]}
                placeholder={placeholder}
                data-testid={testIdOf(field)}
                onChange={(e) => onChange(field, e.target.value)}
                {...(issue ? { 'aria-invalid': true, 'aria-describedby': `${id}-issue` } : {})}
              />{' '}
              <span className="muted">{unit}</span>
            </span>
          </FieldRow>
        );
      })}
    </>
  );
}
