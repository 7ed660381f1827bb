import { useId, useState } from 'react';
import type { LimitsSpec } from '@shared/contracts/spec';
import { parseRuntimeTexts, runtimeTextsOf, typeRuntimeField, type RuntimeField, type RuntimeTexts } from '../../supervision/runtime-edit';
import { RuntimeFields } from '../../supervision/RuntimeFields';

/** The editor's test ids: the round limit keeps the one it had as a lone "Max rounds" field. */
const TEST_IDS = {
  max_rounds: 'inspector-max-rounds',
  decision_timeout_s: 'inspector-decision-timeout',
  max_output_tokens: 'inspector-max-output-tokens',
} satisfies Record<RuntimeField, string>;

/**
 * An agent node's Runtime limits in the graph editor's inspector, the fields and checks of the
 * workflow panel's Runtime group (RuntimeFields, runtime-edit.ts): what parses goes into the draft
 * at once (the editor saves drafts itself); a value the schema refuses stays typed with its problem
 * said under it and changes nothing.
 */
export function NodeRuntimeFields({ limits, onChange }: { limits: LimitsSpec; onChange: (limits: LimitsSpec) => void }) {
  const id = useId();
  const storedTexts = runtimeTextsOf(limits);
  const storedKey = JSON.stringify(storedTexts);
  // What was typed, against the limits it started from: an undo or another edit shows through.
  const [typed, setTyped] = useState<{ base: string; texts: RuntimeTexts }>();
  const texts = typed && typed.base === storedKey ? typed.texts : storedTexts;
  const parsed = parseRuntimeTexts(texts, limits);

  const change = (field: RuntimeField, value: string) => {
    const typedNow = typeRuntimeField(texts, field, value, limits);
    // Kept against the limits it stores, so "30.0" stays as typed once the draft holds 30 s.
    setTyped({ base: typedNow.limits ? JSON.stringify(runtimeTextsOf(typedNow.limits)) : storedKey, texts: typedNow.texts });
    if (typedNow.limits) onChange(typedNow.limits);
  };

  return (
    <fieldset className="wf-ports" data-testid="inspector-runtime">
      <legend className="wf-ports__title">Runtime</legend>
      <RuntimeFields texts={texts} issues={parsed.ok ? {} : parsed.issues} onChange={change} idOf={(field) => `${id}-${field}`} testIdOf={(field) => TEST_IDS[field]} />
    </fieldset>
  );
}
