import { useEffect, useRef, useState } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import type { LearningKind } from '@shared/contracts/learning-export';
import { REVIEW_RULE_LABELS } from '@shared/policy/review-policy';
import { routeHref } from '../../app/routing';
import type { LearningExampleRow } from './example-row';
import { Chip, VerdictChip } from '../../components/Chip';
import { formatDateTime } from '../../view/format';
import { FIRST_FRAME_RECT, useDocumentOffset } from '../runs/use-document-offset';
import { LearningExampleDetail } from './LearningExampleDetail';
import { roundNumber } from '@shared/contracts/round-number';

export const KIND_LABELS = { review: 'Review', shadow: 'Shadow', demonstration: 'Demonstration' } satisfies Record<LearningKind, string>;

/** Rows rendered beyond the visible ones on each side: the DOM holds about a screenful plus twice this. */
const OVERSCAN = 12;
const COLUMNS = 8;

/**
 * The learning examples as a table that renders only the rows near the viewport (the page scrolls); each
 * example is its own row group, so one opened shows its prompt, candidate, verdict and replacement below
 * it and the list measures it. `onNearEnd` asks for the next page as the last loaded rows come into view.
 * `initiallyOpen`: an example shown opened at first.
 */
export function LearningTable({
  examples,
  nameOf,
  onNearEnd,
  initiallyOpen,
}: {
  examples: readonly LearningExampleRow[];
  nameOf: (specId: string | undefined) => string;
  onNearEnd: () => void;
  initiallyOpen?: string;
}) {
  const startRef = useRef<HTMLTableSectionElement>(null);
  const scrollMargin = useDocumentOffset(startRef);
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set(initiallyOpen ? [initiallyOpen] : []));
  const virtualizer = useWindowVirtualizer({ count: examples.length, estimateSize: () => 45, overscan: OVERSCAN, scrollMargin, initialRect: FIRST_FRAME_RECT, getItemKey: (i) => examples[i]?.id ?? i });
  const items = virtualizer.getVirtualItems();
  const last = items.at(-1)?.index ?? -1;
  useEffect(() => {
    if (last >= examples.length - OVERSCAN) onNearEnd();
  }, [last, examples.length, onNearEnd]);
  const toggle = (id: string) =>
    setOpen((prior) => {
      const next = new Set(prior);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const top = items.length > 0 ? items[0]!.start - scrollMargin : 0;
  const bottom = items.length > 0 ? virtualizer.getTotalSize() - (items.at(-1)!.end - scrollMargin) : 0;
  const spacer = (height: number) => (
    <tbody aria-hidden="true">
      <tr style={{ height }}>
        <td colSpan={COLUMNS} style={{ padding: 0, border: 0 }} />
      </tr>
    </tbody>
  );
  return (
    <div className="card table-wrap">
      <table className="table" data-testid="learning-table" aria-rowcount={examples.length + 1}>
        <caption className="visually-hidden">Learning examples, newest first</caption>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Open</span>
            </th>
            <th scope="col">When</th>
            <th scope="col">Kind</th>
            <th scope="col">Workflow</th>
            <th scope="col" className="num">
              Round
            </th>
            <th scope="col">Rule</th>
            <th scope="col">Verdict</th>
            <th scope="col">Agreed</th>
          </tr>
        </thead>
        <tbody ref={startRef} />
        {top > 0 && spacer(top)}
        {items.map((item) => {
          const e = examples[item.index]!;
          const isOpen = open.has(e.id);
          const detailId = `example-${item.index}-detail`;
          return (
            <tbody key={e.id} ref={virtualizer.measureElement} data-index={item.index}>
              <tr aria-rowindex={item.index + 2} className="table__row" data-testid="learning-row" data-kind={e.kind} data-verdict={e.verdict?.verdict ?? 'none'} data-example-id={e.id} onClick={() => toggle(e.id)}>
                <td>
                  <button
                    type="button"
                    className="link-button"
                    aria-expanded={isOpen}
                    aria-controls={detailId}
                    aria-label={`${isOpen ? 'Close' : 'Open'} the example of round ${roundNumber(e.round)}`}
                    data-testid="learning-row-toggle"
                    onClick={(ev) => {
                      ev.stopPropagation();
                      toggle(e.id);
                    }}
                  >
                    {isOpen ? '▾' : '▸'}
                  </button>
                </td>
                <td className="nowrap">{formatDateTime(e.ts)}</td>
                <td>{KIND_LABELS[e.kind]}</td>
                <td>{nameOf(e.spec_id)}</td>
                <td className="num">
                  <a href={routeHref({ name: 'run', runId: e.run_id, tab: 'rounds' })} aria-label={`Round ${roundNumber(e.round)} of its run`} onClick={(ev) => ev.stopPropagation()}>
                    {roundNumber(e.round)}
                  </a>
                </td>
                <td className="muted">{e.rule ? REVIEW_RULE_LABELS[e.rule] : '—'}</td>
                <td>{e.verdict ? <VerdictChip verdict={e.verdict.verdict} /> : <span className="muted">—</span>}</td>
                <td>{e.kind === 'demonstration' ? <span className="muted">—</span> : e.agreement ? <Chip tone="executed">yes</Chip> : <Chip tone="replaced">no</Chip>}</td>
              </tr>
              {isOpen && (
                <tr id={detailId}>
                  <td colSpan={COLUMNS}>
                    <LearningExampleDetail example={e} />
                  </td>
                </tr>
              )}
            </tbody>
          );
        })}
        {bottom > 0 && spacer(bottom)}
      </table>
    </div>
  );
}
