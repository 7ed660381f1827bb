import type { DraftOffer } from './use-kept-draft';

/** When the draft was kept, as a person reads it: the time today, else the day and time. */
export function keptWhen(iso: string, now = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return 'before';
  const time = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return at.toDateString() === now.toDateString() ? time : `${at.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${time}`;
}

/** Offers back what the person typed before a reload, a crash or a restart: Restore or Discard. */
export function DraftOfferBanner({ offer, onRestore, onDiscard }: { offer: DraftOffer; onRestore: () => void; onDiscard: () => void }) {
  return (
    <div className="wf-notice" role="status" data-testid="draft-offer">
      <span>
        You have unsaved changes from {keptWhen(offer.savedAt)}.
        {offer.savedSince && ' The workflow was saved since (another window or the CLI): saving yours asks before it overwrites that.'}
      </span>
      <button type="button" className="button button--small button--primary" onClick={onRestore} data-testid="draft-restore">
        Restore
      </button>
      <button type="button" className="button button--small" onClick={onDiscard} data-testid="draft-discard">
        Discard
      </button>
    </div>
  );
}
