import { describe, expect, it } from 'vitest';
import { FIT_PADDING, LEGIBLE_ZOOM, legibleViewport } from './legible-fit';

const canvas = { width: 520, height: 690 };

describe('a fit stops where nodes stay legible (issue 28)', () => {
  it('a graph that fits is left as React Flow centred it', () => {
    const fitted = { x: 40, y: 30, zoom: 1 };
    expect(legibleViewport(fitted, { x: 0, y: 0, width: 400, height: 300 }, canvas)).toBe(fitted);
  });

  it('a graph too wide at the legible zoom shows its start (its left), centred on the other axis when that fits', () => {
    const fitted = { x: -300, y: 120, zoom: LEGIBLE_ZOOM };
    const bounds = { x: 100, y: 50, width: 1400, height: 300 };
    expect(legibleViewport(fitted, bounds, canvas)).toEqual({ zoom: LEGIBLE_ZOOM, x: FIT_PADDING - 100 * LEGIBLE_ZOOM, y: 120 });
  });

  it('a graph too tall too shows its top-left corner', () => {
    const fitted = { x: -300, y: -400, zoom: LEGIBLE_ZOOM };
    const bounds = { x: 0, y: -20, width: 1400, height: 2000 };
    expect(legibleViewport(fitted, bounds, canvas)).toEqual({ zoom: LEGIBLE_ZOOM, x: FIT_PADDING, y: FIT_PADDING + 20 * LEGIBLE_ZOOM });
  });
});
