import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { GraphProblem } from '@shared/workflow/validate-graph';
import { isRecord, JsonField } from './JsonField';
import { readJsonText } from './json-text';
import { FieldScope, fieldKey, UnparsedFieldsProvider, useUnparsedFields, type UnparsedField } from './unparsed-fields';

/** Issue 22: a field whose text does not parse is never silently replaced by its old value. */

const value = { path: 'notes.md' };
const shown = JSON.stringify(value, null, 2);
const typed = '{ "path": "notes.md", ';
const kept: UnparsedField = { scope: 'read', field: 'inspector-tool-arguments', label: 'Arguments', text: typed, error: 'not JSON yet: Unexpected end of JSON input', base: shown };

function field(initial: ReadonlyMap<string, UnparsedField>, current: unknown = value): string {
  return renderToStaticMarkup(
    <UnparsedFieldsProvider initial={initial}>
      <FieldScope.Provider value="read">
        <JsonField label="Arguments" value={current} onChange={() => undefined} testId="inspector-tool-arguments" />
      </FieldScope.Provider>
    </UnparsedFieldsProvider>,
  );
}

function ProblemsOf({ nodes }: { nodes: string[] }) {
  return <output>{JSON.stringify(useUnparsedFields().problems(nodes))}</output>;
}

function problemsOf(initial: ReadonlyMap<string, UnparsedField>, nodes: string[]): GraphProblem[] {
  const html = renderToStaticMarkup(
    <UnparsedFieldsProvider initial={initial}>
      <ProblemsOf nodes={nodes} />
    </UnparsedFieldsProvider>,
  );
  const text = (/<output>(.*)<\/output>/.exec(html)?.[1] ?? '[]').replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&#x27;/g, "'");
  return JSON.parse(text) as GraphProblem[];
}

describe('a JSON field keeps what the person typed', () => {
  it('text that does not parse is refused with the parse error; text of the wrong kind with why; good text is the value', () => {
    expect(readJsonText(typed)).toEqual({ ok: false, error: expect.stringMatching(/^not JSON yet: /) });
    expect(readJsonText('[1]', (v) => (isRecord(v) ? undefined : 'the arguments are a JSON object, {…}'))).toEqual({ ok: false, error: 'the arguments are a JSON object, {…}' });
    expect(readJsonText('{"path": "a.md"}')).toEqual({ ok: true, value: { path: 'a.md' } });
  });

  it('coming back to the node shows the typed text and its error, not the old value', () => {
    const html = field(new Map([[fieldKey('read', 'inspector-tool-arguments'), kept]]));
    expect(html).toContain('{ &quot;path&quot;: &quot;notes.md&quot;, </textarea>');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toMatch(/data-testid="inspector-tool-arguments-unparsed">not JSON yet: Unexpected end of JSON input — this text is not used until it is fixed/);
  });

  it('a value changed from outside since (undo) replaces the kept text', () => {
    const html = field(new Map([[fieldKey('read', 'inspector-tool-arguments'), kept]]), { path: 'other.md' });
    expect(html).toContain('&quot;other.md&quot;');
    expect(html).not.toContain('-unparsed');
  });

  it('an unparsed field is a problem on its node while the node exists, in words that say it is not saved', () => {
    const initial = new Map([[fieldKey('read', 'inspector-tool-arguments'), kept]]);
    expect(problemsOf(initial, ['read', 'out'])).toEqual([{ node: 'read', code: 'unparsed_field', message: expect.stringMatching(/^Arguments: the text typed here is not saved — not JSON yet/) }]);
    // The node was removed: nothing of it is left to save.
    expect(problemsOf(initial, ['out'])).toEqual([]);
  });
});
