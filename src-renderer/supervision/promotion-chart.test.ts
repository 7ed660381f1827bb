import { describe, expect, it } from 'vitest';
import type { MetricsPoint } from '@shared/policy/promotion';
import { chartGeometry } from './promotion-chart';

const point = (ts: string, agreement: number | null, block: number | null, errors: number): MetricsPoint => ({
  ts,
  examples: 1,
  reviews: 1,
  agreement_rate: agreement,
  block_rate: block,
  protected_errors: errors,
});

describe('the promotion chart', () => {
  it('draws each rate as a line, breaks it where a rate is unknown, and marks where protected errors appeared', () => {
    const g = chartGeometry([point('a', 1, null, 0), point('b', 0.5, 0, 1), point('c', 0.5, 0.5, 1), point('d', 0, 1, 2)], 340, 134);
    expect(g.agreement.match(/[ML]/g)).toEqual(['M', 'L', 'L', 'L']);
    // Block rate starts at the second point: no invented zero before it.
    expect(g.block.startsWith(`M${g.x(1).toFixed(1)} `)).toBe(true);
    expect(g.errorMarks.map((m) => [m.ts, m.count])).toEqual([
      ['b', 1],
      ['d', 2],
    ]);
    expect(g.y(1)).toBe(g.pad.top);
    expect(g.y(0)).toBe(134 - g.pad.bottom);
  });

  it('draws nothing for an empty series', () => {
    expect(chartGeometry([])).toMatchObject({ agreement: '', block: '', errorMarks: [] });
  });
});
