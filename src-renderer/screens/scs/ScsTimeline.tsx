import { useId, useState } from 'react';
import type { PhasePlan } from '@shared/scs/contracts';
import { SCS_ROLE_LABELS } from '@shared/scs/contracts';
import { routeHref } from '../../app/routing';
import { isMonitorEntry, type EvidenceTarget, type ScsEntry, type ScsPlacement, type ScsTimeline, type ScsTranscript } from '../../db/derive-scs';
import { Chip } from '../../components/Chip';
import { Spinner } from '../../components/Icons';
import { SCS_ACTOR_LABELS, SCS_ENTRY_TONES, SCS_TRIGGER_LABELS, scsEntryTitle } from '../../view/scs-labels';
import { roundNumber } from '@shared/contracts/round-number';
import { ScrollPre } from '../../components/ScrollPre';

export interface ScsNavigation {
  runId: string;
  /** The run's events by id, to resolve the evidence the monitor cites. */
  evidence: ReadonlyMap<string, EvidenceTarget>;
  goToRound(round: number): void;
  goToEntry(id: string): void;
}

/** `Before round 1`, `After round 1`, `During round 2`: entries follow the rounds in sequence. */
function placementKey(p: ScsPlacement): string {
  return p.at === 'before_rounds' ? 'before' : `${p.at}:${p.round}`;
}

/** Consecutive entries at the same place share one marker (a group's key is its first entry's id). */
function groupByPlacement(entries: readonly ScsEntry[]): { key: string; placement: ScsPlacement; entries: ScsEntry[] }[] {
  const groups: { key: string; at: string; placement: ScsPlacement; entries: ScsEntry[] }[] = [];
  for (const entry of entries) {
    const at = placementKey(entry.placement);
    const last = groups.at(-1);
    if (last && last.at === at) last.entries.push(entry);
    else groups.push({ key: entry.id, at, placement: entry.placement, entries: [entry] });
  }
  return groups;
}

function PlacementMarker({ placement, nav }: { placement: ScsPlacement; nav: ScsNavigation }) {
  const round = placement.at === 'before_rounds' ? 0 : placement.round;
  const prefix = placement.at === 'before_rounds' ? 'Before' : placement.at === 'after' ? 'After' : 'During';
  return (
    <div className="scs-marker" data-testid="scs-marker" data-at={placement.at} data-round={round}>
      <span className="scs-marker__text">{prefix}</span>
      <button type="button" className="link-button scs-marker__link" onClick={() => nav.goToRound(round)} aria-label={`${prefix} round ${roundNumber(round)}: show the round`}>
        Round {roundNumber(round)}
      </button>
    </div>
  );
}

export function PlanView({ plan, full = true }: { plan: PhasePlan; full?: boolean }) {
  return (
    <dl className="scs-plan" data-testid="scs-plan">
      <div>
        <dt>Goal</dt>
        <dd>{plan.phase_goal}</dd>
      </div>
      {full && (
        <>
          <div>
            <dt>Steps</dt>
            <dd>
              <ol className="scs-plan__list">
                {plan.plan.map((step, i) => (
                  <li key={i}>{step}</li>
                ))}
              </ol>
            </dd>
          </div>
          <div>
            <dt>Acceptance criteria</dt>
            <dd>
              <ul className="scs-plan__list">
                {plan.acceptance_criteria.map((c, i) => (
                  <li key={i}>{c}</li>
                ))}
              </ul>
            </dd>
          </div>
        </>
      )}
      <div>
        <dt>Allowed tools</dt>
        <dd>
          {plan.allowed_tools.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            plan.allowed_tools.map((t) => (
              <code key={t} className="tag">
                {t}
              </code>
            ))
          )}
        </dd>
      </div>
      {full && plan.stop_conditions.length > 0 && (
        <div>
          <dt>Stop when</dt>
          <dd>
            <ul className="scs-plan__list">
              {plan.stop_conditions.map((c, i) => (
                <li key={i}>{c}</li>
              ))}
            </ul>
          </dd>
        </div>
      )}
    </dl>
  );
}

function EvidenceLink({ id, nav }: { id: string; nav: ScsNavigation }) {
  const target = nav.evidence.get(id);
  if (!target) {
    return (
      <span className="evidence-fact" title="Not an event of this run: a fact the monitor stated">
        {id}
      </span>
    );
  }
  const title = `${target.type} · ${target.id}`;
  if (target.round !== undefined) {
    const round = target.round;
    return (
      <button type="button" className="evidence-link" title={title} data-testid="scs-evidence" data-event-id={id} onClick={() => nav.goToRound(round)}>
        #{target.seq} <span className="evidence-link__where">round {roundNumber(round)}</span>
      </button>
    );
  }
  if (target.type.startsWith('scs.') && target.type !== 'scs.transcript') {
    return (
      <button type="button" className="evidence-link" title={title} data-testid="scs-evidence" data-event-id={id} onClick={() => nav.goToEntry(id)}>
        #{target.seq} <span className="evidence-link__where">{target.type.replace(/^scs\.(student|committee|supervisor|budget)?\.?/, '').replace(/_/g, ' ')}</span>
      </button>
    );
  }
  return (
    <a className="evidence-link" title={title} data-testid="scs-evidence" data-event-id={id} href={routeHref({ name: 'run', runId: nav.runId, tab: 'trace', event: target.seq })}>
      #{target.seq} <span className="evidence-link__where">{target.type}</span>
    </a>
  );
}

function TranscriptView({ transcript, id }: { transcript: ScsTranscript; id: string }) {
  return (
    <div className="scs-transcript" id={id} data-testid="scs-transcript">
      {transcript.messages.map((m, i) => (
        <div key={i} className="scs-transcript__message" data-role={m.role}>
          <div className="scs-transcript__role">{m.role === 'system' ? 'Instructions (system)' : m.role === 'user' ? 'Asked (user)' : m.role}</div>
          <ScrollPre>{m.content}</ScrollPre>
        </div>
      ))}
      <div className="scs-transcript__message" data-role="reply">
        <div className="scs-transcript__role">Reply · {SCS_ROLE_LABELS[transcript.role]}</div>
        <ScrollPre>{transcript.reply}</ScrollPre>
      </div>
    </div>
  );
}

function EntryDetails({ entry, nav }: { entry: ScsEntry; nav: ScsNavigation }) {
  if (isMonitorEntry(entry)) {
    const { decision } = entry;
    return (
      <>
        {/* The choice among alternatives is in the title ("Chose plan 2 of 2 and edited it"); here, what the edit replaced. */}
        {entry.kind === 'plan_approved' && decision.edit && (
          <p className="scs-entry__choice muted" data-testid="scs-choice">{`Edited: ${Object.keys(decision.edit).join(', ')}`}</p>
        )}
        <p className="scs-entry__reason">{decision.reason}</p>
        {entry.kind === 'budget_extended' && decision.extend_by !== undefined && <p className="muted scs-entry__small">+{decision.extend_by} rounds asked</p>}
        {(decision.evidence.length > 0 || entry.trigger !== 'plan') && (
          <div className="scs-entry__evidence">
            <span className="scs-entry__label">Evidence</span>
            {decision.evidence.length === 0 ? <span className="muted">none cited</span> : decision.evidence.map((id) => <EvidenceLink key={id} id={id} nav={nav} />)}
          </div>
        )}
      </>
    );
  }
  switch (entry.kind) {
    case 'enabled':
      return (
        <p className="scs-entry__reason">
          {entry.reason} <span className="muted">· mode {entry.mode} · model {entry.model}</span>
        </p>
      );
    case 'plan_drafted':
      if (entry.alternatives && entry.alternatives.length > 1) {
        return (
          <div className="scs-alternatives" data-testid="scs-alternatives">
            {entry.alternatives.map((plan, i) => (
              <section key={i} data-testid="scs-alternative" aria-label={`Plan ${i + 1}`}>
                <span className="scs-entry__label">Plan {i + 1}</span>
                <PlanView plan={plan} full={false} />
              </section>
            ))}
          </div>
        );
      }
      return entry.plan ? <PlanView plan={entry.plan} /> : <p className="scs-entry__reason is-bad">{entry.error ?? 'The committee gave no usable plan.'}</p>;
    case 'phase_started':
      // The plan itself is in the committee's entry above; here, what the executor is held to.
      return (
        <>
          <p className="scs-entry__reason">{entry.plan.phase_goal}</p>
          <div className="scs-entry__evidence" data-testid="scs-allowed-tools">
            <span className="scs-entry__label">Only</span>
            {entry.plan.allowed_tools.length === 0 ? (
              <span className="muted">no tools</span>
            ) : (
              entry.plan.allowed_tools.map((t) => (
                <code key={t} className="tag">
                  {t}
                </code>
              ))
            )}
          </div>
        </>
      );
    case 'phase_blocked':
      return (
        <ul className="scs-entry__reasons" data-testid="scs-blocked-reasons">
          {entry.reasons.map((r, i) => (
            <li key={i}>{r}</li>
          ))}
        </ul>
      );
    case 'phase_stopped':
      return (
        <>
          <p className="scs-entry__reason">
            “{entry.condition}”: {entry.matched}
          </p>
          <div className="scs-entry__evidence">
            <span className="scs-entry__label">Evidence</span>
            {entry.evidence.map((id) => (
              <EvidenceLink key={id} id={id} nav={nav} />
            ))}
          </div>
          {entry.changed_files.length > 0 && (
            <ul className="scs-entry__reasons" data-testid="scs-changed-files">
              {entry.changed_files.map((f, i) => (
                <li key={i}>
                  <code>{f.tool}</code> {f.target} <span className="muted">· {f.ok ? 'ok' : f.result}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      );
    case 'warning':
      return <p className="scs-entry__reason">{entry.message}</p>;
    default:
      return null;
  }
}

function EntryView({ entry, nav }: { entry: ScsEntry; nav: ScsNavigation }) {
  const [open, setOpen] = useState(false);
  const transcriptId = useId();
  const tone = entry.kind === 'enabled' && !entry.active ? 'neutral' : SCS_ENTRY_TONES[entry.kind];
  const phase = 'phase' in entry ? entry.phase : undefined;
  return (
    <li className={`scs-entry scs-entry--${tone}`} data-testid="scs-entry" data-kind={entry.kind} data-actor={entry.actor} data-entry-id={entry.id} tabIndex={-1}>
      <span className="scs-entry__dot" aria-hidden="true" />
      <div className="scs-entry__body">
        <div className="scs-entry__meta">
          <span className={`scs-entry__role scs-entry__role--${entry.actor}`}>{SCS_ACTOR_LABELS[entry.actor]}</span>
          {isMonitorEntry(entry) && <span className="muted">{SCS_TRIGGER_LABELS[entry.trigger]}</span>}
          {!isMonitorEntry(entry) && phase !== undefined && entry.kind !== 'phase_started' && <span className="muted">phase {phase}</span>}
        </div>
        <p className="scs-entry__title">
          {scsEntryTitle(entry)}
          {isMonitorEntry(entry) && (
            <Chip tone={tone === 'good' ? 'executed' : tone === 'bad' ? 'blocked' : 'escalated'} title="The monitor's own confidence">
              {entry.decision.confidence.toFixed(2)}
            </Chip>
          )}
        </p>
        <EntryDetails entry={entry} nav={nav} />
        {entry.transcript && (
          <>
            <button type="button" className="link-button scs-entry__toggle" aria-expanded={open} aria-controls={transcriptId} data-testid="scs-transcript-toggle" onClick={() => setOpen((o) => !o)}>
              {open ? 'Hide transcript' : 'Show transcript'}
            </button>
            {open && <TranscriptView transcript={entry.transcript} id={transcriptId} />}
          </>
        )}
      </div>
    </li>
  );
}

const AWAITING_LABELS = {
  committee: `${SCS_ROLE_LABELS.committee} is drafting the plan…`,
  monitor: `${SCS_ROLE_LABELS.monitor} is deciding…`,
} as const;

/**
 * The run's phase gates, in order, beside its rounds: who planned, approved, executed, accepted or
 * refused, on what evidence. Transcripts stay folded until asked for.
 */
export function ScsTimelineView({ timeline, nav, live }: { timeline: ScsTimeline; nav: ScsNavigation; live: boolean }) {
  const titleId = useId();
  const groups = groupByPlacement(timeline.entries);
  return (
    <section className="card scs-timeline" data-testid="scs-timeline" aria-labelledby={titleId}>
      <header className="scs-timeline__head">
        <h2 id={titleId} className="scs-timeline__title">
          SCS timeline
        </h2>
        <span className="muted scs-timeline__sub">task gates</span>
        <span className="round__spacer" />
        {timeline.blocked ? <Chip tone="blocked">blocked</Chip> : timeline.phase > 0 ? <Chip tone="accent">SCS phase {timeline.phase}</Chip> : null}
      </header>
      {groups.length === 0 ? (
        <p className="muted scs-timeline__empty">No phase gate yet.</p>
      ) : (
        <ol className="scs-timeline__groups">
          {groups.map((g) => (
            <li key={g.key} className="scs-group" data-at={g.placement.at} data-round={g.placement.at === 'before_rounds' ? 0 : g.placement.round}>
              <PlacementMarker placement={g.placement} nav={nav} />
              <ol className="scs-group__entries">
                {g.entries.map((entry) => (
                  <EntryView key={entry.id} entry={entry} nav={nav} />
                ))}
              </ol>
            </li>
          ))}
        </ol>
      )}
      {live && timeline.awaiting && (
        <p className="scs-timeline__awaiting" data-testid="scs-awaiting" data-awaiting={timeline.awaiting} role="status">
          <Spinner /> {AWAITING_LABELS[timeline.awaiting]}
        </p>
      )}
    </section>
  );
}
