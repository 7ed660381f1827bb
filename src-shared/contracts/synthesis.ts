import { z } from 'zod';
import type { DecisionType } from './decision';

/**
 * The Synthesis group of an agent node (seed 000, issue 29): speech for *delivered* responses only.
 * The app speaks through the browser's Web Speech API, the CLI through `espeak-ng`. What is spoken
 * is what crossed the decision boundary (`response.delivered`): never a student candidate, a shadow
 * proposal, or a rejected or replaced candidate (I1). Off unless a node turns it on.
 */

/** The delivered responses that may be spoken, in the order the editor lists them. */
export const SPOKEN_KINDS = ['present_result', 'ask_user', 'complete'] as const satisfies readonly DecisionType[];
export const SpokenKind = z.enum(SPOKEN_KINDS, { error: 'a spoken response is present_result (a presented result), ask_user (a question to you) or complete (the final answer)' });
export type SpokenKind = z.infer<typeof SpokenKind>;

export const SPOKEN_KIND_LABELS = {
  present_result: 'Presented results',
  ask_user: 'Questions to you',
  complete: 'The final answer',
} satisfies Record<SpokenKind, string>;

export const SPEECH_RATE = { min: 0.5, max: 2, default: 1 } as const;

const rateWords = `the speech rate is a number from ${SPEECH_RATE.min} to ${SPEECH_RATE.max} (1 is normal speed)`;

export const SynthesisSettings = z
  .object({
    enabled: z.boolean({ error: 'speech is on (true) or off (false)' }).default(false),
    /** A voice's name as the speaker knows it (the browser's voice list, espeak-ng's `-v`); absent: the default voice. */
    voice: z
      .string({ error: 'a voice is its name, as text' })
      .trim()
      .min(1, { error: 'a voice needs a name; leave it out for the default voice' })
      .max(200, { error: 'a voice name is at most 200 characters' })
      .optional(),
    /** 1 is normal speed; 0.5 half, 2 twice. */
    rate: z.number({ error: rateWords }).min(SPEECH_RATE.min, { error: rateWords }).max(SPEECH_RATE.max, { error: rateWords }).default(SPEECH_RATE.default),
    /** Which delivered responses are spoken. */
    speak: z.array(SpokenKind).default([...SPOKEN_KINDS]),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (new Set(s.speak).size !== s.speak.length) ctx.addIssue({ code: 'custom', path: ['speak'], message: 'name each kind of response to speak once' });
    if (s.enabled && s.speak.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['speak'], message: 'speech is on but speaks nothing: choose at least one kind of response, or turn speech off' });
    }
  });
export type SynthesisSettings = z.infer<typeof SynthesisSettings>;
export type SynthesisSettingsInput = z.input<typeof SynthesisSettings>;

export const SYNTHESIS_OFF: SynthesisSettings = SynthesisSettings.parse({});

/** The settings a node's document holds, or off: a value the schema refuses speaks nothing. */
export function synthesisOf(doc: { synthesis?: unknown }): SynthesisSettings {
  const parsed = SynthesisSettings.safeParse(doc.synthesis ?? {});
  return parsed.success ? parsed.data : SYNTHESIS_OFF;
}

/** One line a person reads: "Off", or "On · 1× · default voice · the final answer, questions to you". */
export function synthesisSummary(s: SynthesisSettings): string {
  if (!s.enabled) return 'off';
  const kinds = SPOKEN_KINDS.filter((k) => s.speak.includes(k)).map((k) => SPOKEN_KIND_LABELS[k].toLowerCase());
  return `on · ${s.rate}× · ${s.voice ?? 'default voice'} · ${kinds.join(', ')}`;
}
