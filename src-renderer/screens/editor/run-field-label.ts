import type { InputField, PortType } from '@shared/workflow/document';

/**
 * What a value of each type is, said to the person filling the Run form; none where the control
 * already says it (a text box, a checkbox).
 */
const TYPE_WORDS = {
  text: undefined,
  boolean: undefined,
  number: 'a number',
  list: 'a JSON list',
  object: 'a JSON object',
  any: 'any JSON value',
} satisfies Record<PortType, string | undefined>;

/** `notes_path` → `Notes path`: the field's name as a person reads it. */
export function fieldName(name: string): string {
  const words = name.replace(/_+/g, ' ').trim();
  return words === '' ? name : words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A Run form field's label: its name, then in brackets only what helps — the kind of value when the
 * control does not show it and the name does not already say it, and "optional" when it may stay
 * empty. Never "text (text)": `text` of type text reads "Text"; `count` of type number "Count (a number)".
 */
export function runFieldLabel(field: Pick<InputField, 'name' | 'type' | 'required' | 'default'>): { name: string; note?: string } {
  const name = fieldName(field.name);
  const kind = TYPE_WORDS[field.type];
  const said = kind !== undefined && name.toLowerCase().split(' ').includes(field.type);
  const notes = [said ? undefined : kind, field.required && field.default === undefined ? undefined : 'optional'].filter((n): n is string => n !== undefined);
  return notes.length > 0 ? { name, note: notes.join(', ') } : { name };
}
