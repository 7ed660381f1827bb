import { useId, useState } from 'react';
import { SPEECH_RATE, SPOKEN_KINDS, SYNTHESIS_OFF, synthesisSummary, type SynthesisSettings } from '@shared/contracts/synthesis';
import { parseSynthesisDraft, synthesisDraftOf, type SynthesisDraft } from '../../supervision/synthesis-edit';
import { useBrowserVoices } from '../../speech/browser-voices';
import { SynthesisFields } from '../workflow/SynthesisGroup';

/**
 * An agent node's Synthesis (speech, issue 29) in the graph editor's inspector: the fields and checks
 * of the agent panel's Synthesis group (SynthesisFields, synthesis-edit.ts). What parses goes into
 * the draft at once (the editor saves drafts itself); settings the schema refuses stay as set, with
 * the problem said under the field, and change nothing. Speech off with every other setting at its
 * default leaves the node without a `synthesis` entry (off is its default).
 */
export function NodeSynthesisFields({ synthesis, onChange }: { synthesis: SynthesisSettings | undefined; onChange: (synthesis: SynthesisSettings | undefined) => void }) {
  const id = useId();
  const voices = useBrowserVoices();
  const stored = synthesis ?? SYNTHESIS_OFF;
  const storedKey = JSON.stringify(synthesisDraftOf(stored));
  // What was set, against the settings it started from: an undo or another edit shows through.
  const [typed, setTyped] = useState<{ base: string; draft: SynthesisDraft }>();
  const draft = typed && typed.base === storedKey ? typed.draft : synthesisDraftOf(stored);
  const parsed = parseSynthesisDraft(draft);

  const change = (next: Partial<SynthesisDraft>) => {
    const nextDraft = { ...draft, ...next };
    const nextParsed = parseSynthesisDraft(nextDraft);
    // Kept against the settings it stores, so "1.50" stays as typed once the draft holds 1.5.
    setTyped({ base: nextParsed.ok ? JSON.stringify(synthesisDraftOf(nextParsed.settings)) : storedKey, draft: nextDraft });
    if (nextParsed.ok) onChange(isDefaultOff(nextParsed.settings) ? undefined : nextParsed.settings);
  };

  return (
    <fieldset className="wf-ports wf-synthesis" data-testid="inspector-synthesis">
      <legend className="wf-ports__title">Synthesis</legend>
      <p className="form-note" data-testid="inspector-synthesis-summary">
        Speech {synthesisSummary(stored)}. Only what crossed the decision boundary is spoken, never a rejected or replaced candidate.
      </p>
      <SynthesisFields draft={draft} issues={parsed.ok ? {} : parsed.issues} voices={voices} onChange={change} idOf={(field) => `${id}-synthesis-${field}`} testIdOf={(name) => `inspector-synthesis-${name}`} />
    </fieldset>
  );
}

function isDefaultOff(s: SynthesisSettings): boolean {
  return !s.enabled && s.voice === undefined && s.rate === SPEECH_RATE.default && s.speak.length === SPOKEN_KINDS.length;
}
