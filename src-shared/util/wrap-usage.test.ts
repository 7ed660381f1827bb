import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wrapUsage } from './wrap-usage';

const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');

describe("a command's help wrapped for a terminal", () => {
  it('a line that fits is left exactly as written', () => {
    const help = 'Usage:\n  steward runs show RUN_ID   one run\n\n  (a  spaced   line stays)';
    expect(wrapUsage(help, 100)).toBe(help);
  });

  it('a two-column row goes on under its second column; a synopsis four spaces in; a sentence under its start', () => {
    const row = `  delete   ${'delete runs from the history '.repeat(4).trim()}`;
    expect(wrapUsage(row, 60).split('\n')).toEqual(['  delete   delete runs from the history delete runs from the', '           history delete runs from the history delete runs', '           from the history']);
    const synopsis = '  steward runs list [--status S]... [--workflow ID] [--since WHEN] [--until WHEN] [--oldest]';
    expect(wrapUsage(synopsis, 60).split('\n')).toEqual(['  steward runs list [--status S]... [--workflow ID]', '      [--since WHEN] [--until WHEN] [--oldest]']);
    expect(wrapUsage('A run waiting for a person is never deleted, whatever it waits for.', 30).split('\n')).toEqual(['A run waiting for a person is', 'never deleted, whatever it', 'waits for.']);
  });

  it('never splits an option in brackets, and keeps a far second column when it leaves room to write in', () => {
    const trace = '  steward trace otlp TRACE.jsonl [-o OUT.json] [--endpoint URL] [--allow-host HOST]... [--data-dir DIR]';
    expect(wrapUsage(trace, 100).split('\n')).toEqual(['  steward trace otlp TRACE.jsonl [-o OUT.json] [--endpoint URL] [--allow-host HOST]...', '      [--data-dir DIR]']);
    const row = '  steward workflows import FILE [--as ID] [--replace]     store a workflow file (as the app exports it)';
    expect(wrapUsage(row, 100).split('\n')).toEqual(['  steward workflows import FILE [--as ID] [--replace]     store a workflow file (as the app exports', '                                                          it)']);
  });

  it('keeps every word in order, and fits every line but a word wider than the terminal', () => {
    const word = fc.stringMatching(/^[a-z\-|.…⛨]{1,14}$/);
    const line = fc.tuple(fc.nat({ max: 12 }), fc.array(word, { minLength: 1, maxLength: 40 }), fc.boolean()).map(([lead, ws, twoColumns]) => `${' '.repeat(lead)}${twoColumns ? `${ws[0]}   ${ws.slice(1).join(' ')}` : ws.join(' ')}`);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), fc.integer({ min: 30, max: 120 }), (lines, columns) => {
        const text = lines.join('\n');
        const wrapped = wrapUsage(text, columns);
        expect(words(wrapped)).toEqual(words(text));
        // A line still too wide is one word too wide for any line: without it, the line fits.
        for (const out of wrapped.split('\n')) if ([...out].length > columns) expect([...out.slice(0, out.trimEnd().lastIndexOf(' ')).trimEnd()].length).toBeLessThanOrEqual(columns);
        expect(wrapUsage(wrapped, columns)).toBe(wrapped);
      }),
    );
  });
});
