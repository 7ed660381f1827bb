import type { FitViewOptions, Rect, Viewport } from '@xyflow/react';

/**
 * The least zoom a fit goes to: a node's smallest text (11px) stays above 9px on screen, its body
 * text (12px) above 10px. A graph too large for the canvas at this zoom is not shrunk past it.
 */
export const LEGIBLE_ZOOM = 0.85;
/** Screen pixels kept clear around the graph. */
export const FIT_PADDING = 24;

/** What a fit asks React Flow for: every node in view, never larger than life nor smaller than legible. */
export const FIT_OPTIONS = { padding: 0.1, maxZoom: 1, minZoom: LEGIBLE_ZOOM } satisfies FitViewOptions;

/**
 * Where a fit that had to stop at the legible zoom looks: the graph's start (its left, and its top
 * when it is taller than the canvas) rather than its middle, so a left-to-right workflow shows its
 * input first and the rest is a pan away. A graph that fits is left where React Flow centred it.
 */
export function legibleViewport(fitted: Viewport, bounds: Rect, canvas: { width: number; height: number }): Viewport {
  const { zoom } = fitted;
  if (zoom > LEGIBLE_ZOOM + 1e-3) return fitted;
  const tooWide = bounds.width * zoom > canvas.width - 2 * FIT_PADDING;
  const tooTall = bounds.height * zoom > canvas.height - 2 * FIT_PADDING;
  return {
    zoom,
    x: tooWide ? FIT_PADDING - bounds.x * zoom : fitted.x,
    y: tooTall ? FIT_PADDING - bounds.y * zoom : fitted.y,
  };
}

interface Flow {
  fitView: (options?: FitViewOptions) => Promise<boolean>;
  getViewport: () => Viewport;
  setViewport: (viewport: Viewport, options?: { duration?: number }) => Promise<boolean>;
  getNodes: () => unknown[];
  getNodesBounds: (nodes: never[]) => Rect;
}

/** Fits the graph in the canvas (FIT_OPTIONS), then looks at its start when it had to stop at the legible zoom. */
export async function fitLegibly(flow: Flow, canvas: HTMLElement | null, duration?: number): Promise<void> {
  await flow.fitView({ ...FIT_OPTIONS, ...(duration !== undefined ? { duration } : {}) });
  if (!canvas) return;
  const fitted = flow.getViewport();
  const next = legibleViewport(fitted, flow.getNodesBounds(flow.getNodes() as never[]), { width: canvas.clientWidth, height: canvas.clientHeight });
  if (next !== fitted) await flow.setViewport(next, duration !== undefined ? { duration } : undefined);
}
