import { useCallback, useEffect, useRef, useState } from 'react';
import { navigationGuard, type NavigationGuard } from '../../app/navigation-guard';
import { parseRoute } from '../../app/routing';

export type LeaveChoice = 'save' | 'discard' | 'keep';

/**
 * Whether going to `to` leaves the document being edited: any other screen, or the editor of
 * another workflow. The same workflow's editor (its run form, a run shown on it, its address after
 * a first save or a rename, which is `draftId`) keeps the document.
 */
export function leavesDocument(to: string, at: { storedId?: string; draftId: string }): boolean {
  const route = parseRoute(to);
  if (route.name === 'workflow-edit') return route.workflowId !== at.storedId && route.workflowId !== at.draftId;
  if (route.name === 'workflow-new') return at.storedId !== undefined;
  return true;
}

/**
 * The editor's guard on its unsaved changes (issue 22): leaving for another screen — a sidebar
 * link, back, any in-app link — waits for the person's Save / Discard / Keep editing (`asking`:
 * where they were going); a reload or a closing tab or window gets the browser's own question.
 * `save` resolves false when the document could not be saved (the editor says why), and then the
 * person stays.
 */
export function useLeaveGuard({
  dirty,
  storedId,
  draftId,
  save,
  discard,
  guard = navigationGuard,
}: {
  dirty: boolean;
  storedId?: string;
  draftId: string;
  save: () => Promise<boolean>;
  discard: () => Promise<void>;
  guard?: NavigationGuard;
}) {
  const [asking, setAsking] = useState<string>();
  const now = useRef({ dirty, storedId, draftId, leaving: false });
  useEffect(() => {
    now.current = { ...now.current, dirty, storedId, draftId };
  }, [dirty, storedId, draftId]);

  useEffect(
    () =>
      guard.guard((to) => {
        const at = now.current;
        if (at.leaving || !at.dirty || !leavesDocument(to, at)) guard.proceed();
        else setAsking(to);
      }),
    [guard],
  );

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!now.current.dirty || now.current.leaving) return;
      // Both spellings: browsers ask on either; Electron's main process hears will-prevent-unload.
      event.preventDefault();
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);

  const choose = useCallback(
    async (choice: LeaveChoice) => {
      const to = asking;
      if (to === undefined) return;
      setAsking(undefined);
      if (choice === 'keep') {
        guard.stay();
        return;
      }
      // From here on every change of address goes through: a first save moves it too (to the saved id).
      now.current.leaving = true;
      const done = choice === 'save' ? await save() : (await discard(), true);
      if (!done) {
        now.current.leaving = false;
        guard.stay();
        return;
      }
      if (guard.waiting()) guard.proceed();
      if (window.location.hash !== to) window.location.hash = to;
    },
    [asking, discard, guard, save],
  );

  return { asking, choose };
}
