import { describe, expect, it } from 'vitest';
import type { InputField } from '@shared/workflow/document';
import { runInputs } from './run-inputs';

const field = (name: string, type: InputField['type'], extra: Partial<InputField> = {}): InputField => ({ name, type, required: true, ...extra });

describe('run form inputs', () => {
  it('each value takes its field type: text as typed, numbers parsed, booleans from the checkbox, JSON for lists and objects', () => {
    const fields = [field('q', 'text'), field('n', 'number'), field('b', 'boolean'), field('l', 'list'), field('o', 'object')];
    expect(runInputs(fields, { q: ' hi ', n: '2.5', b: true, l: '["a"]', o: '{"k":1}' })).toEqual({ ok: true, inputs: { q: ' hi ', n: 2.5, b: true, l: ['a'], o: { k: 1 } } });
  });

  it('a wrong value is refused by its field with a reason, and the run is not started', () => {
    const out = runInputs([field('n', 'number'), field('l', 'list'), field('o', 'object'), field('a', 'any')], { n: 'ten', l: '{"a":1}', o: '[1]', a: 'plain words' });
    expect(out.ok).toBe(false);
    if (!out.ok) expect(Object.keys(out.errors).sort()).toEqual(['a', 'l', 'n', 'o']);
  });

  it('an empty required field is refused; an empty optional one or one with a default is left to the host', () => {
    expect(runInputs([field('q', 'text')], {})).toEqual({ ok: false, errors: { q: 'required' } });
    expect(runInputs([field('q', 'text', { required: false }), field('n', 'number', { default: 3 })], { n: ' ' })).toEqual({ ok: true, inputs: {} });
  });
});
