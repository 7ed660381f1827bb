import { useId, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { RunEvent } from '@shared/contracts/events';
import { Chip, StatusBadge } from '../../components/Chip';
import { deriveRounds, type RoundView } from '../../db/derive-rounds';
import { plural } from '../../view/format';
import { RoundCard } from '../RoundCard';
import type { MemberRunView } from './pattern-timeline';
import './pattern-timeline.css';

/** From this many rounds a member's rounds are a virtual list (only those near view are rendered). */
export const VIRTUAL_ROUNDS_FROM = 12;
/** Before a card is measured: about a round card's height. */
const ROUND_ESTIMATE_PX = 220;

/**
 * What each member (an agent) did in one iteration of a pattern node: its output, how its run ended,
 * and on opening its rounds — each proposal with its validation, its teacher's verdicts when the
 * member is supervised, and what was executed — as the run view shows an agent node's rounds.
 */
export function PatternMemberRuns({ members, events, invocationId, ended, label }: { members: readonly MemberRunView[]; events: readonly RunEvent[]; invocationId: string; ended: boolean; label: string }) {
  return (
    <ul className="pattern-members" aria-label={label} data-testid="pattern-members">
      {members.map((m) => (
        <MemberRun key={m.id} member={m} events={events} invocationId={invocationId} ended={ended} />
      ))}
    </ul>
  );
}

function MemberRun({ member: m, events, invocationId, ended }: { member: MemberRunView; events: readonly RunEvent[]; invocationId: string; ended: boolean }) {
  const [open, setOpen] = useState(false);
  const panel = useId();
  return (
    <li className="pattern-members__member" data-testid="pattern-member" data-member={m.id} data-status={m.status}>
      <p className="pattern-members__head">
        <strong>{m.member_id}</strong> <code className="tag">{m.id}</code>{' '}
        {m.status === 'working' ? ended ? <Chip tone="neutral">Stopped</Chip> : <Chip tone="running">Working…</Chip> : m.status === 'waiting' ? <Chip tone="escalated">{ended ? 'Asked a person' : 'Waiting for your answer'}</Chip> : <StatusBadge status={m.status} />}{' '}
        <span className="muted">
          {plural(m.rounds, 'round')}
          {m.supervised ? ' · supervised by its teacher' : ''}
        </span>
      </p>
      {m.message !== undefined && <p className="muted">{m.message}</p>}
      {m.output !== undefined ? (
        <pre className="judgment-card__text" tabIndex={0} aria-label={`What ${m.id} answered`} data-testid="pattern-member-output">
          {m.output}
        </pre>
      ) : (
        <p className="muted">No answer{m.status === 'working' && !ended ? ' yet' : ''}.</p>
      )}
      {m.rounds > 0 && (
        <>
          <button type="button" className="link-button pattern-members__toggle" aria-expanded={open} aria-controls={panel} onClick={() => setOpen((o) => !o)} data-testid="pattern-member-rounds-toggle">
            {open ? 'Hide' : 'Show'} its {plural(m.rounds, 'round')}
            {m.supervised ? ' and verdicts' : ''}
          </button>
          {open && (
            <div id={panel}>
              <MemberRounds memberRun={m.id} events={events} invocationId={invocationId} />
            </div>
          )}
        </>
      )}
    </li>
  );
}

/** One member run's rounds, built from its own events (tagged with its run) like an agent node's. */
export function MemberRounds({ memberRun, events, invocationId }: { memberRun: string; events: readonly RunEvent[]; invocationId: string }) {
  const rounds = useMemo(() => deriveRounds(events.filter((e) => e.pattern_member === memberRun), invocationId), [events, memberRun, invocationId]);
  const dryRun = useMemo(() => events.some((e) => e.type === 'agent.started' && e.pattern_member === memberRun && e.dry_run), [events, memberRun]);
  if (rounds.length === 0) return <p className="muted">No rounds recorded.</p>;
  if (rounds.length < VIRTUAL_ROUNDS_FROM) {
    return (
      <div className="rounds" data-testid="pattern-member-rounds">
        {rounds.map((round) => (
          <RoundCard key={round.round} view={round} dryRun={dryRun} />
        ))}
      </div>
    );
  }
  return <VirtualRounds rounds={rounds} dryRun={dryRun} label={`Rounds of ${memberRun}`} />;
}

/** Many rounds: a scroll box of its own (focusable, so the keyboard scrolls it) rendering only the cards near view. */
function VirtualRounds({ rounds, dryRun, label }: { rounds: RoundView[]; dryRun: boolean; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  // Not memoised by the compiler (the virtualizer's functions change as it measures): this list re-renders with it.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count: rounds.length, getScrollElement: () => box.current, estimateSize: () => ROUND_ESTIMATE_PX, overscan: 3, getItemKey: (i) => rounds[i]?.round ?? i });
  return (
    // Focusable: a scroll region must be reachable by keyboard to scroll it.
    <div ref={box} className="rounds pattern-members__scroll" tabIndex={0} role="region" aria-label={`${label} (${rounds.length})`} data-testid="pattern-member-rounds" data-virtual="true">
      <div style={{ position: 'relative', height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const round = rounds[item.index];
          if (!round) return null;
          return (
            <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}>
              <RoundCard view={round} dryRun={dryRun} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
