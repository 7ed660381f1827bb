import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A `<pre>` whose text may be taller or wider than its box: once it scrolls, it is in the tab order,
 * so a keyboard can scroll it too (WCAG 2.1.1); one that fits adds no tab stop.
 */
export function ScrollPre({ className = 'code', children, testId }: { className?: string; children: ReactNode; testId?: string }) {
  const ref = useRef<HTMLPreElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    // Called once when observing starts, then on every change of the box.
    const observer = new ResizeObserver(() => setScrolls(el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return (
    <pre ref={ref} className={className} tabIndex={scrolls ? 0 : undefined} data-testid={testId}>
      {children}
    </pre>
  );
}
