import { useCallback, useEffect, useRef, type RefObject } from 'react';
import { fitLegibly } from './legible-fit';

/**
 * Keeps every node in view while the canvas settles (the panels beside it lay out after the first
 * fit, and a window is resized), until the person pans or zooms themselves; from then on the view
 * is theirs. Never below the legible zoom (legible-fit.ts). Returns React Flow's onMoveStart: its
 * event is null for a move made by code.
 */
export function useFitUntilMoved(canvas: RefObject<HTMLDivElement | null>, flow: Parameters<typeof fitLegibly>[0]): (event: unknown) => void {
  const moved = useRef(false);
  useEffect(() => {
    const element = canvas.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (!moved.current) void fitLegibly(flow, element);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [canvas, flow]);
  return useCallback((event: unknown) => {
    if (event) moved.current = true;
  }, []);
}
