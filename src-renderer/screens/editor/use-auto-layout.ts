import { useCallback, useEffect } from 'react';
import { autoLayout, sizesOf } from './auto-layout';
import type { StepNode } from './flow-convert';
import type { Draft } from './graph-edit';

/** The shortcut, as the button's title says it (e.code: the same key on every layout, Alt+L too on a Mac). */
export const AUTO_LAYOUT_KEYS = 'Shift+Alt+L';

const isTyping = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

/**
 * Auto-layout on demand (the toolbar button, Shift+Alt+L): one undoable edit with React Flow's
 * measured node sizes, then every node in view (`fit`: as legibly as the canvas allows).
 */
export function useAutoLayout(draft: Draft, nodes: readonly StepNode[], fit: () => void, change: (next: Draft) => void): () => void {
  const layout = useCallback(() => {
    const next = autoLayout(draft, sizesOf(nodes));
    if (next !== draft) change(next);
    requestAnimationFrame(fit);
  }, [change, draft, fit, nodes]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.shiftKey && e.altKey && e.code === 'KeyL') || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      e.preventDefault();
      layout();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [layout]);
  return layout;
}
