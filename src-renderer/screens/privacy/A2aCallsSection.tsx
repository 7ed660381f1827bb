import { useMemo } from 'react';
import { a2aAgentWords, a2aSentWords, type A2aCallOutcome } from '@shared/contracts/a2a-call';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { Chip } from '../../components/Chip';
import { plural } from '../../view/format';

type A2aCall = RunEventOf<'a2a.called'>;

const OUTCOME_WORDS = {
  answered: 'it answered',
  refused: 'refused: nothing was sent',
  failed: 'the call failed',
} satisfies Record<A2aCallOutcome, string>;

/**
 * What each A2A judge (a remote agent judging a pattern node, issue 29) was sent: per judgment, the
 * agent's card and host, the requests and bytes that left, the judgment text's size and the data
 * fields' names (never the text or the values), and how it ended — a refusal by the privacy policy
 * shown as such, with nothing sent.
 */
export function A2aCallsSection({ events }: { events: readonly RunEvent[] }) {
  const calls = useMemo(() => events.filter((e): e is A2aCall => e.type === 'a2a.called'), [events]);
  if (calls.length === 0) return null;
  const refused = calls.filter((c) => c.outcome === 'refused').length;
  const remote = calls.filter((c) => !c.local && c.requests > 0).length;
  return (
    <section className="card privacy__a2a" aria-label="A2A judges" data-testid="privacy-a2a">
      <h3>A2A judges</h3>
      <p className="muted">
        {`${plural(calls.length, 'judgment')} asked of A2A agents${remote > 0 ? `, ${remote} sent to another machine` : ''}${refused > 0 ? `, ${refused} refused by the workspace privacy policy (nothing sent)` : ''}.`} The
        judgment text was masked before it left; the log keeps its size and the names of the fields sent, never their values.
      </p>
      <ul>
        {calls.map((c) => (
          <li key={c.id} data-testid="privacy-a2a-call" data-outcome={c.outcome} data-local={c.local}>
            <PlaceChip call={c} /> <strong>{a2aAgentWords(c)}</strong> · judgment <code>{c.judgment_id}</code>
            {c.invocation_id !== undefined && <span className="muted"> in {c.invocation_id}</span>} · {OUTCOME_WORDS[c.outcome]}
            <br />
            <span className="muted">{a2aSentWords(c)}</span>
            {c.problem !== undefined && (
              <>
                <br />
                <span className={c.outcome === 'refused' ? 'muted' : undefined}>{c.problem}</span>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function PlaceChip({ call }: { call: A2aCall }) {
  if (call.outcome === 'refused') {
    return (
      <Chip tone="blocked" title={`Nothing left this machine: the workspace privacy policy does not allow ${call.host}`}>
        {`Refused · ${call.host}`}
      </Chip>
    );
  }
  if (call.local) {
    return (
      <Chip tone="executed" title="The judgment stayed on this machine">
        Local
      </Chip>
    );
  }
  return (
    <Chip tone="escalated" title={`The judgment left this machine for ${call.host} (the workspace privacy policy allows it)`}>
      {`☁ Remote · ${call.host}`}
    </Chip>
  );
}
