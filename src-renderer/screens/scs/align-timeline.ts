import { useLayoutEffect, type RefObject } from 'react';

/** Where a timeline group belongs in the rounds column (a page y), or undefined when its round is not shown. */
function targetTop(main: HTMLElement, at: string | undefined, round: number): number | undefined {
  const card = (r: number) => main.querySelector<HTMLElement>(`[data-testid="round-card"][data-round="${r}"]`)?.getBoundingClientRect();
  if (at === 'after') {
    const done = card(round);
    return done ? done.bottom : undefined;
  }
  return card(at === 'during' ? round : 0)?.top;
}

/**
 * Beside the rounds (wide layout), each timeline group moves down to the round it belongs to: the
 * plan gate at the first round, a review below the round it reviewed, a finish gate at its round.
 * A group never moves up (the gates keep their order); in the stacked layout nothing moves.
 * Re-aligns whenever either column changes size (rounds arriving live, a result or transcript opened).
 */
export function useAlignTimeline(root: RefObject<HTMLElement | null>, enabled: boolean): void {
  useLayoutEffect(() => {
    const body = root.current;
    if (!enabled || !body) return;
    const align = () => {
      const main = body.querySelector<HTMLElement>('.run-body__main');
      const side = body.querySelector<HTMLElement>('.run-body__side');
      const groups = [...body.querySelectorAll<HTMLElement>('.scs-group')];
      for (const g of groups) g.style.marginTop = '';
      if (!main || !side || side.getBoundingClientRect().left < main.getBoundingClientRect().right) return;
      for (const g of groups) {
        const top = targetTop(main, g.dataset.at, Number(g.dataset.round));
        if (top === undefined) continue;
        const delta = top - g.getBoundingClientRect().top;
        if (delta > 1) g.style.marginTop = `${Math.round(delta)}px`;
      }
    };
    let frame = 0;
    const schedule = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(align);
    };
    align();
    const observer = new ResizeObserver(schedule);
    observer.observe(body);
    for (const el of body.querySelectorAll('.run-body__main, .run-body__side')) observer.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
    };
  }, [root, enabled]);
}
