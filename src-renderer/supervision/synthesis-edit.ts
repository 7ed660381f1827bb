import { SPOKEN_KINDS, SynthesisSettings, type SpokenKind } from '@shared/contracts/synthesis';

/** The Synthesis group's fields as a person sets them (the rate as typed). */
export interface SynthesisDraft {
  enabled: boolean;
  /** Empty: the default voice. */
  voice: string;
  rate: string;
  speak: readonly SpokenKind[];
}
export type SynthesisField = 'enabled' | 'voice' | 'rate' | 'speak';

export function synthesisDraftOf(s: SynthesisSettings): SynthesisDraft {
  return { enabled: s.enabled, voice: s.voice ?? '', rate: String(s.rate), speak: SPOKEN_KINDS.filter((k) => s.speak.includes(k)) };
}

export type SynthesisParse = { ok: true; settings: SynthesisSettings } | { ok: false; issues: Partial<Record<SynthesisField, string>> };

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
const FIELDS: readonly SynthesisField[] = ['enabled', 'voice', 'rate', 'speak'];

/** The draft as settings, validated by the contract's own schema (the one `steward validate` and the host use), or each field's problem in words. */
export function parseSynthesisDraft(draft: SynthesisDraft): SynthesisParse {
  const issues: Partial<Record<SynthesisField, string>> = {};
  const typed = draft.rate.trim();
  const rate = typed === '' ? 1 : Number(typed);
  if (!Number.isFinite(rate)) issues.rate = `The speech rate is a number; “${typed.slice(0, 20)}” is not one.`;
  const parsed = SynthesisSettings.safeParse({
    enabled: draft.enabled,
    ...(draft.voice.trim() !== '' ? { voice: draft.voice } : {}),
    rate: Number.isFinite(rate) ? rate : 1,
    speak: SPOKEN_KINDS.filter((k) => draft.speak.includes(k)),
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path[0];
      const field = FIELDS.find((f) => f === key);
      if (field && issues[field] === undefined) issues[field] = sentence(issue.message);
    }
  }
  if (Object.keys(issues).length > 0 || !parsed.success) return { ok: false, issues };
  return { ok: true, settings: parsed.data };
}
