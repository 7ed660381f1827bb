import type { MetricsPoint } from '@shared/policy/promotion';

export interface ChartGeometry {
  width: number;
  height: number;
  /** SVG path data (`M x y L …`), empty when there is no value to draw. */
  agreement: string;
  block: string;
  /** Where a protected-effect error entered the window (the count rose). */
  errorMarks: { x: number; y: number; ts: string; count: number }[];
  x(i: number): number;
  y(rate: number): number;
  pad: { left: number; right: number; top: number; bottom: number };
}

/**
 * Plain SVG geometry for the promotion chart: both rates on one 0–100% axis, one x step per point.
 * A null rate (nothing to divide by yet) breaks its line instead of drawing a made-up zero.
 */
export function chartGeometry(series: readonly MetricsPoint[], width = 640, height = 200): ChartGeometry {
  const pad = { left: 40, right: 12, top: 10, bottom: 24 };
  const innerW = width - pad.left - pad.right;
  const innerH = height - pad.top - pad.bottom;
  const x = (i: number) => pad.left + (series.length <= 1 ? innerW / 2 : (i * innerW) / (series.length - 1));
  const y = (rate: number) => pad.top + (1 - Math.min(1, Math.max(0, rate))) * innerH;
  const line = (pick: (p: MetricsPoint) => number | null) => {
    let d = '';
    let pen = false;
    series.forEach((p, i) => {
      const v = pick(p);
      if (v === null) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)} ${y(v).toFixed(1)} `;
      pen = true;
    });
    return d.trim();
  };
  const errorMarks: ChartGeometry['errorMarks'] = [];
  series.forEach((p, i) => {
    const before = i === 0 ? 0 : (series[i - 1]?.protected_errors ?? 0);
    if (p.protected_errors > before) errorMarks.push({ x: x(i), y: y(0), ts: p.ts, count: p.protected_errors });
  });
  return { width, height, agreement: line((p) => p.agreement_rate), block: line((p) => p.block_rate), errorMarks, x, y, pad };
}
