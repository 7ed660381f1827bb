import { useState } from 'react';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { SPEECH_RATE, SPOKEN_KIND_LABELS, SPOKEN_KINDS, synthesisOf, synthesisSummary, type SpokenKind } from '@shared/contracts/synthesis';
import { useHost } from '../../app/HostProvider';
import { CheckField, fieldDomId, FieldRow } from '../../components/Form';
import { setSynthesis } from '../../db/workflow-synthesis';
import { parseSynthesisDraft, synthesisDraftOf, type SynthesisDraft, type SynthesisField } from '../../supervision/synthesis-edit';
import { useBrowserVoices, type BrowserVoice } from '../../speech/browser-voices';
import { GroupSaveRow } from './GroupSaveRow';

const IDS = {
  enabled: fieldDomId('synthesis.enabled'),
  voice: fieldDomId('synthesis.voice'),
  rate: fieldDomId('synthesis.rate'),
  speak: fieldDomId('synthesis.speak'),
} as const satisfies Record<SynthesisField, string>;

const KIND_HINTS = {
  present_result: 'A result the agent shows you on its way.',
  ask_user: 'A question the agent asks you (the run waits for your answer).',
  complete: 'The answer the run ends with.',
} satisfies Record<SpokenKind, string>;

/** The accordion's one-line summary of the stored settings. */
export function synthesisGroupSummary(doc: HostedWorkflow): string {
  return `speech ${synthesisSummary(synthesisOf(doc))}`;
}

/**
 * The Synthesis group (seed 000, issue 29): speech for the agent's delivered responses. Off or on,
 * the voice (this browser's), the rate and which kinds of response are spoken, validated by the
 * contract's own schema (the one `steward validate` and the host use) and stored in the workflow's
 * document; the next run records them on its start and is spoken by them.
 */
export function SynthesisGroup({ doc }: { doc: HostedWorkflow }) {
  const { db } = useHost();
  const voices = useBrowserVoices();
  const stored = synthesisOf(doc);
  const storedDraft = synthesisDraftOf(stored);
  const storedKey = JSON.stringify(storedDraft);
  const [typed, setTyped] = useState<{ base: string; draft: SynthesisDraft }>();
  const [result, setResult] = useState<{ tone: 'ok' | 'error'; text: string }>();
  const [saving, setSaving] = useState(false);
  const draft = typed && typed.base === storedKey ? typed.draft : storedDraft;
  const parsed = parseSynthesisDraft(draft);
  const changed = JSON.stringify(draft) !== storedKey;
  const issues = parsed.ok ? {} : parsed.issues;

  const change = (next: Partial<SynthesisDraft>) => {
    setResult(undefined);
    setTyped({ base: storedKey, draft: { ...draft, ...next } });
  };
  const save = async () => {
    if (!parsed.ok) return;
    setSaving(true);
    try {
      await setSynthesis(db, doc.id, parsed.settings);
      setTyped(undefined);
      setResult({
        tone: 'ok',
        text: parsed.settings.enabled ? 'Saved in the workflow: the next run speaks its delivered responses while you watch it.' : 'Saved in the workflow: nothing is spoken.',
      });
    } catch (err) {
      setResult({ tone: 'error', text: err instanceof Error ? err.message : String(err) });
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="form-grid" id={fieldDomId('synthesis')} tabIndex={-1} data-testid="synthesis-group">
      <p className="form-note">
        Speech reads out what this agent <em>delivered</em>: only a decision that crossed the decision boundary is spoken. A student’s candidate, a shadow proposal, or a candidate the teacher
        rejected or replaced is never spoken. The app speaks through this browser while you watch a run (the run screen has Stop speaking); <code>steward run</code> speaks through espeak-ng
        (<code>--no-speech</code> silences it).
      </p>
      <SynthesisFields draft={draft} issues={issues} voices={voices} onChange={change} idOf={(field) => IDS[field]} testIdOf={(name) => `synthesis-${name}`} />
      <GroupSaveRow
        testId="synthesis"
        saveLabel="Save speech settings"
        changed={changed}
        valid={parsed.ok}
        saving={saving}
        refusedCount={Object.keys(issues).length}
        result={result}
        onSave={() => void save()}
        onDiscard={() => setTyped(undefined)}
      />
    </div>
  );
}

/**
 * The Synthesis fields — speech on or off, the voice (this browser's), the rate, which kinds of
 * delivered response are spoken — with each field's problem in words (synthesis-edit.ts validates
 * with the contract's schema). The workflow panel's Synthesis group and the graph editor's agent
 * inspector both use it; each keeps and stores the settings its own way. The kinds are a labelled
 * group of checkboxes (Tab and Space reach and set each one).
 */
export function SynthesisFields({
  draft,
  issues,
  voices,
  onChange,
  idOf,
  testIdOf,
}: {
  draft: SynthesisDraft;
  issues: Partial<Record<SynthesisField, string>>;
  voices: readonly BrowserVoice[] | undefined;
  onChange: (next: Partial<SynthesisDraft>) => void;
  idOf: (field: SynthesisField) => string;
  /** `enabled`, `voice`, `rate`, `speak-<kind>`: the field's test id. */
  testIdOf: (name: string) => string;
}) {
  const off = !draft.enabled;
  const ids = { enabled: idOf('enabled'), voice: idOf('voice'), rate: idOf('rate'), speak: idOf('speak') };
  const toggleKind = (kind: SpokenKind, on: boolean) => onChange({ speak: SPOKEN_KINDS.filter((k) => (k === kind ? on : draft.speak.includes(k))) });
  return (
    <>
      <CheckField id={ids.enabled} label="Speak delivered responses" checked={draft.enabled} onChange={(enabled) => onChange({ enabled })} testId={testIdOf('enabled')} />
      <FieldRow label="Voice" htmlFor={ids.voice} hint={voiceHint(voices)} issue={issues.voice}>
        <select id={ids.voice} className="select" value={draft.voice} disabled={off} data-testid={testIdOf('voice')} onChange={(e) => onChange({ voice: e.target.value })}>
          <option value="">Default voice</option>
          {voiceOptions(voices, draft.voice).map((v) => (
            <option key={v.name} value={v.name}>
              {v.label}
            </option>
          ))}
        </select>
      </FieldRow>
      <FieldRow label="Rate" htmlFor={ids.rate} hint={`1 is normal speed; from ${SPEECH_RATE.min} (half) to ${SPEECH_RATE.max} (twice as fast).`} issue={issues.rate}>
        <span className="input-with-unit">
          <input
            id={ids.rate}
            className="input input--number"
            inputMode="decimal"
            value={draft.rate}
            disabled={off}
            data-testid={testIdOf('rate')}
            onChange={(e) => onChange({ rate: e.target.value })}
            {...(issues.rate ? { 'aria-invalid': true, 'aria-describedby': `${ids.rate}-issue` } : {})}
          />{' '}
          <span className="muted">× normal</span>
        </span>
      </FieldRow>
      <div className="form-row" id={ids.speak} tabIndex={-1} role="group" aria-labelledby={`${ids.speak}-label`} aria-describedby={issues.speak ? `${ids.speak}-issue` : undefined}>
        <span className="form-row__label" id={`${ids.speak}-label`}>
          Speak
        </span>
        <div className="form-row__control synthesis-kinds">
          {SPOKEN_KINDS.map((kind) => (
            <CheckField
              key={kind}
              id={`${ids.speak}-${kind}`}
              label={SPOKEN_KIND_LABELS[kind]}
              hint={KIND_HINTS[kind]}
              checked={draft.speak.includes(kind)}
              disabled={off}
              testId={testIdOf(`speak-${kind}`)}
              onChange={(on) => toggleKind(kind, on)}
            />
          ))}
          {issues.speak && (
            <p className="form-row__issue" id={`${ids.speak}-issue`}>
              {issues.speak}
            </p>
          )}
        </div>
      </div>
    </>
  );
}

/** The browser's voices, plus the stored one when this browser lacks it (kept, and said so). */
function voiceOptions(voices: readonly BrowserVoice[] | undefined, current: string): { name: string; label: string }[] {
  const listed = (voices ?? []).map((v) => ({ name: v.name, label: `${v.name}${v.lang ? ` (${v.lang})` : ''}${v.isDefault ? ' · default' : ''}` }));
  if (current !== '' && !listed.some((v) => v.name === current)) listed.unshift({ name: current, label: `${current} · not in this browser (its default voice speaks)` });
  return listed;
}

function voiceHint(voices: readonly BrowserVoice[] | undefined): string {
  if (voices === undefined) return 'This browser cannot speak (it has no Web Speech API): runs watched here stay silent. steward run still speaks through espeak-ng.';
  if (voices.length === 0) return 'This browser offers no voices yet (some install them with the system’s speech settings): the default voice speaks, where there is one.';
  return `${voices.length} voice${voices.length === 1 ? '' : 's'} in this browser. steward run passes the name to espeak-ng; a name it does not know is noted and nothing is spoken there.`;
}
