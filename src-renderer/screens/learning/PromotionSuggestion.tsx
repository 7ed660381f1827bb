import type { LifecyclePhase } from '@shared/contracts/spec';
import type { suggestPhase } from '@shared/policy/promotion';
import { Spinner } from '../../components/Icons';

type Suggestion = ReturnType<typeof suggestPhase>;

/** The suggestion of a promotion card (a workflow's or one agent node's) and its "Apply" button, and the
 * line saying what Apply did. The person applies a change, never the app. */
export function PromotionSuggestion({ suggestion, subject, applying, onApply }: { suggestion: Suggestion; subject?: string; applying: boolean; onApply: (to: LifecyclePhase) => void }) {
  const verb = suggestion.action === 'promote' ? 'Suggest promoting' : suggestion.action === 'demote' ? 'Suggest demoting' : 'Suggest holding';
  const to = suggestion.to;
  return (
    <div className={`suggestion-box suggestion-box--${suggestion.action}`} data-testid="promotion-suggestion" data-action={suggestion.action}>
      <p>
        <strong>{suggestion.action !== 'hold' && subject ? `${verb} ${subject}` : verb}.</strong> {suggestion.reason}
      </p>
      {to !== undefined && suggestion.action !== 'hold' && (
        <button type="button" className="button button--primary" disabled={applying} onClick={() => onApply(to)} data-testid="promotion-apply">
          {applying && <Spinner />}
          Apply: move to phase {to}
        </button>
      )}
    </div>
  );
}

export function PromotionResult({ result }: { result: { tone: 'error' | 'ok'; text: string } | undefined }) {
  if (!result) return null;
  return (
    <p className={result.tone === 'error' ? 'error' : 'ok-text'} role={result.tone === 'error' ? 'alert' : 'status'} data-testid="promotion-result">
      {result.text}
    </p>
  );
}
