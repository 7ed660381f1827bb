import type { RecordedSynthesis, RunEvent } from '../contracts/events';
import { SPOKEN_KINDS, type SpokenKind } from '../contracts/synthesis';
import type { Decision } from '../contracts/decision';

/**
 * What gets spoken (the Synthesis group, issue 29), for both shells: the app's Web Speech API and
 * the CLI's espeak-ng read this and nothing else. Only a `response.delivered` event speaks: the
 * boundary emits it once the *selected* decision crossed delivery, so a student candidate, a shadow
 * proposal, a rejected or replaced candidate (`candidate.proposed`, `verdict.received`,
 * `learning.example`, `decision.selected` before delivery…) never reaches a speaker (I1).
 * Per agent: the settings recorded on its start (run.started, or agent.started for a workflow's
 * agent node, keyed by its invocation). Never spoken: a dry run, a pattern member (its output is
 * only a proposal to the pattern's judge), an agent with speech off or a kind it does not speak.
 */

export interface SpokenResponse {
  /** The delivering event's id: a speaker speaks each id once. */
  event_id: string;
  run_id: string;
  kind: SpokenKind;
  text: string;
  voice?: string;
  /** 0.5–2, 1 normal. */
  rate: number;
  /** Which agent spoke: its node or spec name. */
  agent: string;
}

interface AgentSpeech {
  settings?: RecordedSynthesis;
  dry: boolean;
  agent: string;
}

/** What a speaker learned from the start events it saw (one per run's agent): keep one per speaker and pass it to every batch. */
export type SpeechMemory = Map<string, AgentSpeech>;
export const newSpeechMemory = (): SpeechMemory => new Map();

const agentKey = (e: { run_id: string; invocation_id?: string | undefined }) => `${e.run_id}\u0000${e.invocation_id ?? ''}`;

const isSpokenKind = (type: string): type is SpokenKind => (SPOKEN_KINDS as readonly string[]).includes(type);

/** The words of a delivered response a person hears. */
export function spokenTextOf(decision: Decision): string | undefined {
  switch (decision.decision_type) {
    case 'present_result':
      return decision.content;
    case 'ask_user':
      return decision.question;
    case 'complete':
      return decision.output;
    case 'tool_call':
    case 'request_confirmation':
    case 'reroute':
      return undefined;
  }
}

/** The agents whose speech is on, by name (from the start events in `events`): for a note such as "espeak-ng is not installed". */
export function agentsWithSpeech(events: readonly RunEvent[]): string[] {
  const names: string[] = [];
  for (const e of events) {
    if ((e.type === 'run.started' || e.type === 'agent.started') && e.pattern_member === undefined && e.synthesis?.enabled === true && !e.dry_run) names.push(e.spec_name);
  }
  return names;
}

/**
 * The responses `events` (in order; a live batch, or a run's events) deliver that are to be spoken.
 * `memory` carries what earlier batches started (pass the same map each time); an agent whose start
 * was not seen speaks nothing.
 */
export function spokenResponses(events: readonly RunEvent[], memory: SpeechMemory = newSpeechMemory()): SpokenResponse[] {
  const spoken: SpokenResponse[] = [];
  for (const e of events) {
    if (e.pattern_member !== undefined) continue;
    if (e.type === 'run.started' || e.type === 'agent.started') {
      memory.set(agentKey(e), { ...(e.synthesis ? { settings: e.synthesis } : {}), dry: e.dry_run, agent: e.spec_name });
      continue;
    }
    if (e.type !== 'response.delivered') continue;
    const agent = memory.get(agentKey(e));
    const settings = agent?.settings;
    if (!agent || agent.dry || !settings?.enabled) continue;
    const kind = e.decision.decision_type;
    if (!isSpokenKind(kind) || !settings.speak.includes(kind)) continue;
    const text = spokenTextOf(e.decision)?.trim();
    if (!text) continue;
    spoken.push({ event_id: e.id, run_id: e.run_id, kind, text, rate: settings.rate, agent: agent.agent, ...(settings.voice !== undefined ? { voice: settings.voice } : {}) });
  }
  return spoken;
}
