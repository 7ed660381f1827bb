import { useCallback, useEffect, useRef, type RefObject } from 'react';
import type { FitViewOptions } from '@xyflow/react';

/**
 * Keeps every node in view while the canvas settles (the panels beside it lay out after the first
 * fit, and a window is resized), until the person pans or zooms themselves; from then on the view
 * is theirs. Returns React Flow's onMoveStart: its event is null for a move made by code.
 */
export function useFitUntilMoved(canvas: RefObject<HTMLDivElement | null>, flow: { fitView: (options?: FitViewOptions) => Promise<boolean> }): (event: unknown) => void {
  const moved = useRef(false);
  useEffect(() => {
    const element = canvas.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (!moved.current) void flow.fitView({ maxZoom: 1 });
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [canvas, flow]);
  return useCallback((event: unknown) => {
    if (event) moved.current = true;
  }, []);
}
