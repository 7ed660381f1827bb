import { describe, expect, it } from 'vitest';
import { elicitationContent, elicitationFields, type ElicitField } from './elicitation-form';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    agree: { type: 'boolean', default: false },
    size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
    colour: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 2 },
    when: { type: 'string', format: 'date' },
  },
  required: ['name', 'age'],
};

function fields(): ElicitField[] {
  const parsed = elicitationFields(schema);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.fields;
}

describe('an elicitation form', () => {
  it('becomes typed fields in the schema order, with labels for choices', () => {
    expect(fields().map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'text', true],
      ['age', 'number', true],
      ['agree', 'boolean', false],
      ['size', 'choice', false],
      ['colour', 'choice', false],
      ['tags', 'choices', false],
      ['when', 'text', false],
    ]);
    expect(fields()[3]).toMatchObject({ options: [{ value: 's', label: 'Small' }, { value: 'm', label: 'Medium' }] });
    expect(fields()[4]).toMatchObject({ options: [{ value: 'r', label: 'Red' }, { value: 'g', label: 'Green' }] });
  });

  it('a field of another kind (a nested object) fails closed: the form is not shown', () => {
    expect(elicitationFields({ type: 'object', properties: { address: { type: 'object', properties: {} } } })).toEqual({ ok: false, problem: 'field "address" is not a text, number, yes/no or choice field' });
    expect(elicitationFields('nope')).toMatchObject({ ok: false });
  });

  it("checks a person's entries into the content asked for, empty optional fields left out", () => {
    expect(elicitationContent(fields(), { name: 'Ada', age: '36', agree: true, size: 'm', tags: ['a'], when: '1815-12-10' })).toEqual({
      ok: true,
      content: { name: 'Ada', age: 36, agree: true, size: 'm', tags: ['a'], when: '1815-12-10' },
    });
  });

  it('names each entry that does not fit, and a missing required one', () => {
    expect(elicitationContent(fields(), { name: 'A', age: '2.5', size: 'xl', tags: ['a', 'b', 'c'], when: '10/12/1815' })).toEqual({
      ok: false,
      issues: { name: 'at least 2 characters', age: 'expected a whole number', size: 'one of s, m', tags: 'pick at most 2', when: 'expected a date (YYYY-MM-DD)' },
    });
    expect(elicitationContent(fields(), {})).toMatchObject({ ok: false, issues: { name: 'required', age: 'required' } });
  });
});
