import { useRef } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { FIRST_FRAME_RECT, useDocumentOffset } from './use-document-offset';

/** Rows rendered beyond the visible ones on each side: the DOM holds about a screenful plus twice this. */
export const OVERSCAN = 12;

/**
 * A table body that renders only the rows near the viewport (the page scrolls, not the table):
 * the rows to render, and the heights of the spacer rows above and below that keep the scrollbar true.
 */
export function useWindowRows(count: number, estimateSize: number) {
  const bodyRef = useRef<HTMLTableSectionElement>(null);
  const scrollMargin = useDocumentOffset(bodyRef);
  const virtualizer = useWindowVirtualizer({ count, estimateSize: () => estimateSize, overscan: OVERSCAN, scrollMargin, initialRect: FIRST_FRAME_RECT });
  const items = virtualizer.getVirtualItems();
  const top = items.length > 0 ? items[0]!.start - scrollMargin : 0;
  const bottom = items.length > 0 ? virtualizer.getTotalSize() - (items.at(-1)!.end - scrollMargin) : 0;
  return { bodyRef, items, top, bottom, measure: virtualizer.measureElement };
}

/** Stands in for the rows not rendered, at their height. */
export function SpacerRow({ height, columns }: { height: number; columns: number }) {
  if (height <= 0) return null;
  return (
    <tr aria-hidden="true" style={{ height }}>
      <td colSpan={columns} style={{ padding: 0, border: 0 }} />
    </tr>
  );
}
