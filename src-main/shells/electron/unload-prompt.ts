/**
 * The page refused to unload (its beforeunload: the editor holds unsaved changes). Electron asks
 * nobody by itself — a reload or a window close would just silently not happen — so the main
 * process asks, as a browser would. Leave is not the default: Enter or Escape keeps the page.
 */
export const UNLOAD_PROMPT = {
  type: 'question',
  buttons: ['Stay', 'Leave'],
  defaultId: 0,
  cancelId: 0,
  noLink: true,
  title: 'Steward',
  message: 'Leave with unsaved changes?',
  detail: 'The workflow you are editing has changes that are not saved. Steward keeps them as a draft and offers them back when you open the workflow again.',
} as const;

/** The dialog's answer: whether the page may unload (a reload, or the window closing). */
export function leaves(response: number): boolean {
  return response === UNLOAD_PROMPT.buttons.indexOf('Leave');
}
