import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RENDERED_CHARS, renderJsonTemplate, renderTemplate, templateRefs } from './template';

describe('renderTemplate', () => {
  it('puts each input in place of {{name}}, spaces inside the braces allowed', () => {
    expect(renderTemplate('Hello {{who}}, {{ n }} new', { who: 'Ada', n: 3 })).toEqual({ ok: true, value: 'Hello Ada, 3 new' });
  });

  it('follows a dot path into objects and arrays', () => {
    const doc = { title: 'Notes', items: [{ name: 'a' }, { name: 'b' }] };
    expect(renderTemplate('{{doc.title}}: {{doc.items.1.name}}', { doc })).toEqual({ ok: true, value: 'Notes: b' });
  });

  it('renders objects, arrays and null as JSON', () => {
    expect(renderTemplate('{{o}} {{l}} {{z}}', { o: { a: 1 }, l: [1, 'x'], z: null })).toEqual({ ok: true, value: '{"a":1} [1,"x"] null' });
  });

  it('a missing input is an error naming it', () => {
    const result = renderTemplate('{{present}} and {{absent}}', { present: 1 });
    expect(result).toEqual({ ok: false, message: 'the template uses {{absent}} but there is no input "absent"' });
  });

  it('a path that does not exist is an error naming the path', () => {
    expect(renderTemplate('{{doc.items.7}}', { doc: { items: [] } })).toEqual({ ok: false, message: 'the template uses {{doc.items.7}} but input "doc" has nothing at items.7' });
  });

  it('never reads inherited properties (__proto__, constructor) through a path', () => {
    for (const path of ['__proto__', 'constructor', 'toString', 'length']) {
      expect(renderTemplate(`{{doc.${path}}}`, { doc: {} }).ok).toBe(false);
    }
    expect(renderTemplate('{{constructor}}', {}).ok).toBe(false);
  });

  it('leaves ${...} alone: that is the spec variable syntax, substituted elsewhere', () => {
    expect(renderTemplate('${workspace}/{{file}}', { file: 'a.txt' })).toEqual({ ok: true, value: '${workspace}/a.txt' });
  });

  it('a rendering past the size bound is an error, not a giant string', () => {
    const big = 'x'.repeat(MAX_RENDERED_CHARS / 2 + 1);
    expect(renderTemplate('{{a}}{{a}}', { a: big })).toEqual({ ok: false, message: `the rendered template is longer than ${MAX_RENDERED_CHARS} characters` });
  });

  it('an inserted value is never templated again', () => {
    expect(renderTemplate('{{a}}', { a: '{{b}}', b: 'no' })).toEqual({ ok: true, value: '{{b}}' });
  });
});

describe('renderJsonTemplate', () => {
  it('templates every string inside, keeps other values and keys as they are', () => {
    const result = renderJsonTemplate({ path: '{{dir}}/report.md', n: 2, tags: ['{{tag}}', true], '{{key}}': null }, { dir: 'out', tag: 't' });
    expect(result).toEqual({ ok: true, value: { path: 'out/report.md', n: 2, tags: ['t', true], '{{key}}': null } });
  });

  it('a string that is exactly {{name}} takes the input value with its type', () => {
    expect(renderJsonTemplate({ a: '{{list}}', b: '{{ doc.n }}', c: 'n={{doc.n}}' }, { list: [1, 2], doc: { n: 5 } })).toEqual({
      ok: true,
      value: { a: [1, 2], b: 5, c: 'n=5' },
    });
  });

  it('a missing input anywhere inside fails the whole template', () => {
    expect(renderJsonTemplate({ deep: [{ x: 'ok' }, { y: '{{gone}}' }] }, {})).toEqual({ ok: false, message: 'the template uses {{gone}} but there is no input "gone"' });
  });
});

const names = fc.constantFrom('a', 'b', 'c', 'doc', 'x_1');
const pieces = fc.oneof(
  names.map((n) => `{{${n}}}`),
  names.map((n) => `{{ ${n} }}`),
  fc.string({ maxLength: 8 }).filter((s) => !s.includes('{') && !s.includes('}')),
  fc.constant('${workspace}'),
);
const textTemplates = fc.array(pieces, { maxLength: 8 }).map((p) => p.join(''));
const jsonTemplates = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, textTemplates, fc.integer(), fc.boolean(), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 })),
})).value;

describe('templates (property)', () => {
  it('templateRefs lists exactly the names renderTemplate needs: all of them given renders, any one missing fails naming it', () => {
    fc.assert(
      fc.property(fc.oneof(textTemplates, jsonTemplates), fc.string(), (template, filler) => {
        const render = (inputs: Record<string, unknown>) => (typeof template === 'string' ? renderTemplate(template, inputs) : renderJsonTemplate(template, inputs));
        const refs = templateRefs(template);
        expect(render(Object.fromEntries(refs.map((r) => [r, filler])))).toMatchObject({ ok: true });
        for (const missing of refs) {
          const result = render(Object.fromEntries(refs.filter((r) => r !== missing).map((r) => [r, filler])));
          expect(result).toEqual({ ok: false, message: expect.stringContaining(`"${missing}"`) });
        }
      }),
    );
  });

  it('a text template without {{ renders to itself', () => {
    fc.assert(
      fc.property(fc.string().filter((s) => !s.includes('{{')), (text) => {
        expect(renderTemplate(text, {})).toEqual({ ok: true, value: text });
        expect(templateRefs(text)).toEqual([]);
      }),
    );
  });
});

describe('renderTemplate size bound', () => {
  it('stops as soon as the rendering passes the bound (many copies of one large input)', () => {
    // Counted, not timed (bench/shared-scale.ts times it): the input is read only until the bound is passed.
    let reads = 0;
    const inputs = Object.defineProperty({}, 'a', { enumerable: true, get: () => {
        reads++;
        return 'y'.repeat(200_000);
      },
    });
    expect(renderTemplate('{{a}}'.repeat(10_000), inputs)).toEqual({ ok: false, message: `the rendered template is longer than ${MAX_RENDERED_CHARS} characters` });
    expect(reads).toBe(MAX_RENDERED_CHARS / 200_000); // of 10,000 placeholders: 50,000 template characters + 5 copies pass 1,000,000
  });
});
