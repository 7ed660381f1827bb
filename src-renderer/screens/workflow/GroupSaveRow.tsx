/**
 * The save row of an editable Supervision & Learning group (Runtime, Synthesis): Save (only when
 * something changed and every value is valid), Discard, why nothing was saved, and what saving did.
 */
export function GroupSaveRow(props: {
  /** The test-id prefix: `${testId}-save`, `-discard`, `-refused`, `-result`. */
  testId: string;
  saveLabel: string;
  changed: boolean;
  valid: boolean;
  saving: boolean;
  /** How many values are refused: the sentence says "value" or "values". */
  refusedCount: number;
  result: { tone: 'error' | 'ok'; text: string } | undefined;
  onSave: () => void;
  onDiscard: () => void;
}) {
  const { testId, changed, valid, saving, result } = props;
  return (
    <div className="form-row">
      <span className="form-row__label" aria-hidden="true">
        {'\u00a0'}
      </span>
      <div className="form-row__control">
        <div>
          <button type="button" className="button button--primary" disabled={!changed || !valid || saving} onClick={props.onSave} data-testid={`${testId}-save`}>
            {props.saveLabel}
          </button>{' '}
          {changed && (
            <button type="button" className="button" disabled={saving} onClick={props.onDiscard} data-testid={`${testId}-discard`}>
              Discard
            </button>
          )}
        </div>
        {changed && !valid && (
          <p className="form-row__issue" role="alert" data-testid={`${testId}-refused`}>
            Not saved: fix the {props.refusedCount === 1 ? 'value' : 'values'} above first.
          </p>
        )}
        {result && (
          <p className={result.tone === 'error' ? 'error' : 'ok-text'} role={result.tone === 'error' ? 'alert' : 'status'} data-testid={`${testId}-result`}>
            {result.text}
          </p>
        )}
      </div>
    </div>
  );
}
