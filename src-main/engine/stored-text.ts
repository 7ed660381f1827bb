import { ROUND_RECORD_TEXTS } from '@shared/history/model-text';
import { boundTexts, type TrimmedText } from '@shared/util/trim-text';

/**
 * Model text is stored trimmed (src-shared/history/model-text.ts says where, for events; shared so
 * an imported event is bounded alike): the run's result (`--json`) is bounded the same way here.
 */
const RESULT_PATHS = [
  'output',
  'message',
  'intervention',
  'history.*.decision',
  'executions.*.arguments',
  ...ROUND_RECORD_TEXTS.map((p) => `rounds.*.${p}`),
];

/** The run's result as reported (`--json`, the app): the same bound. */
export function boundResult<T extends object>(result: T): T & { trimmed?: TrimmedText[] } {
  const { value, trimmed } = boundTexts(result, RESULT_PATHS);
  return trimmed.length === 0 ? value : { ...value, trimmed };
}
