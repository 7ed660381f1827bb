import type { InputField } from '@shared/workflow/document';

/** What the run form holds per field: a checkbox's boolean, else the text typed. */
export type RawInput = string | boolean;

export type InputsOutcome = { ok: true; inputs: Record<string, unknown> } | { ok: false; errors: Record<string, string> };

/**
 * Turns the run form into the run's inputs by each field's type: text as typed, a number parsed,
 * a boolean from its checkbox, JSON for object, list and any. An empty optional field (or one with
 * a default) is left out, so the host applies the default.
 */
export function runInputs(fields: readonly InputField[], raw: Readonly<Record<string, RawInput | undefined>>): InputsOutcome {
  const inputs: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const value = raw[f.name];
    if (f.type === 'boolean') {
      inputs[f.name] = value === true;
      continue;
    }
    const text = typeof value === 'string' ? value : '';
    // Spaces are a text's content, but no value of any other type.
    if (f.type === 'text' ? text === '' : text.trim() === '') {
      if (f.required && f.default === undefined) errors[f.name] = 'required';
      continue;
    }
    if (f.type === 'text') inputs[f.name] = text;
    else if (f.type === 'number') {
      const n = Number(text);
      if (Number.isFinite(n)) inputs[f.name] = n;
      else errors[f.name] = `“${text}” is not a number`;
    } else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        errors[f.name] = f.type === 'any' ? 'not JSON (put text in quotes)' : 'not JSON';
        continue;
      }
      if (f.type === 'list' && !Array.isArray(parsed)) errors[f.name] = 'a list is a JSON array, e.g. ["a", "b"]';
      else if (f.type === 'object' && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) errors[f.name] = 'an object is JSON in braces, e.g. {"key": "value"}';
      else inputs[f.name] = parsed;
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, inputs };
}
