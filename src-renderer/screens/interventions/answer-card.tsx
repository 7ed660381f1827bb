import { useState, type ReactNode } from 'react';
import { INTERVENTION_KIND_LABELS, type HumanAnswer, type Intervention } from '@shared/contracts/intervention';
import { useHost } from '../../app/HostProvider';
import { Chip } from '../../components/Chip';
import { Spinner } from '../../components/Icons';

/**
 * What every "waiting for you" card shares: sending one answer to the host (which button is
 * sending, which was sent, the host's refusal), and the card's heading.
 */
export function useSendAnswer<A extends string>(intervention: Intervention, gone: string) {
  const { client } = useHost();
  const [sending, setSending] = useState<A>();
  const [sent, setSent] = useState<A>();
  const [error, setError] = useState<string>();
  const send = async (action: A, answer: HumanAnswer): Promise<boolean> => {
    setSending(action);
    setError(undefined);
    try {
      const { resumed } = await client.request('interventions.answer', { run_id: intervention.run_id, intervention_id: intervention.id, answer });
      if (resumed) setSent(action);
      else setError(gone);
      return resumed;
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return false;
    } finally {
      setSending(undefined);
    }
  };
  return { sending, sent, error, send };
}

/** "Waiting for you", the kind, and what the card says beside it (the round, the node…). */
export function AnswerCardHead({ titleId, intervention, children }: { titleId: string; intervention: Intervention; children?: ReactNode }) {
  return (
    <header className="intervention__head">
      <span className="pulse intervention__pulse" aria-hidden="true" />
      <h2 id={titleId} className="intervention__title">
        Waiting for you
      </h2>
      <Chip tone="escalated">{INTERVENTION_KIND_LABELS[intervention.kind]}</Chip>
      <span className="round__spacer" />
      {children}
    </header>
  );
}

/** The card once its answer is sent: what was sent, and that the run goes on. */
export function AnswerSent({ label }: { label: string }) {
  return (
    <p className="intervention__sent" role="status" data-testid="intervention-sent">
      <Spinner /> “{label}” sent; the run continues…
    </p>
  );
}
