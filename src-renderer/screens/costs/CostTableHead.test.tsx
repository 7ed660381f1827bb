import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { COST_COLUMNS, CostTableHead } from './CostTableHead';

describe('a supervision-cost table’s header row', () => {
  it('names first, then the figures right-aligned, the shared cost columns in one order', () => {
    const html = renderToStaticMarkup(
      <table>
        <CostTableHead names={['Who', 'Models']} figures={['Calls', ...COST_COLUMNS]} />
      </table>,
    );
    const headers = [...html.matchAll(/<th scope="col"( class="num")?>([^<]+)<\/th>/g)].map((m) => [m[2], m[1] !== undefined]);
    expect(headers).toEqual([
      ['Who', false],
      ['Models', false],
      ['Calls', true],
      ['Tokens', true],
      ['Cost', true],
      ['Time in calls', true],
    ]);
  });
});
