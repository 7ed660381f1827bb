import { useLayoutEffect, useState, type RefObject } from 'react';

/**
 * How far below the document's top an element starts: a window virtualizer's `scrollMargin`. Re-measured when
 * the page above it changes height (filters wrapping, a notice appearing), so rows stay where the scroll says.
 */
export function useDocumentOffset(ref: RefObject<HTMLElement | null>): number {
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setOffset(Math.round(el.getBoundingClientRect().top + window.scrollY));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, [ref]);
  return offset;
}

/** The viewport a window virtualizer assumes before it measures the real one: its first frame already shows rows. */
export const FIRST_FRAME_RECT = { width: 1280, height: 800 };
