import { describe, expect, it } from 'vitest';
import { fieldName, runFieldLabel } from './run-field-label';

const label = (f: Parameters<typeof runFieldLabel>[0]) => {
  const { name, note } = runFieldLabel(f);
  return note ? `${name} (${note})` : name;
};

describe("the Run form's field labels", () => {
  it('read as the name, never "text (text)": a text box or a checkbox needs no type said', () => {
    expect(label({ name: 'text', type: 'text', required: true })).toBe('Text');
    expect(label({ name: 'notes_path', type: 'text', required: false })).toBe('Notes path (optional)');
    expect(label({ name: 'urgent', type: 'boolean', required: false })).toBe('Urgent (optional)');
  });

  it('say the kind of value where the control does not, unless the name already says it', () => {
    expect(label({ name: 'count', type: 'number', required: true })).toBe('Count (a number)');
    expect(label({ name: 'count', type: 'number', required: true, default: 3 })).toBe('Count (a number, optional)');
    expect(label({ name: 'number', type: 'number', required: true })).toBe('Number');
    expect(label({ name: 'items', type: 'list', required: true })).toBe('Items (a JSON list)');
    expect(label({ name: 'word_list', type: 'list', required: true })).toBe('Word list');
    expect(label({ name: 'payload', type: 'object', required: true })).toBe('Payload (a JSON object)');
    expect(label({ name: 'value', type: 'any', required: false })).toBe('Value (any JSON value, optional)');
  });

  it('turn a field name into words', () => {
    expect(fieldName('release_notes')).toBe('Release notes');
    expect(fieldName('_x')).toBe('X');
    expect(fieldName('q')).toBe('Q');
  });
});
