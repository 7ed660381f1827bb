import type { RunEvent } from '@shared/contracts/events';
import { newSpeechMemory, spokenResponses, type SpeechMemory, type SpokenResponse } from '@shared/history/spoken-responses';

/**
 * The app speaks a run's delivered responses while a person watches it (issue 29): exactly what
 * src-shared/history/spoken-responses.ts selects (never a candidate, a shadow proposal, a rejected
 * or replaced candidate), each once. Live only: a response delivered before the person started
 * watching (less a short grace for the moment between pressing Run and the run screen opening) is
 * history and stays silent, and an id this tab spoke is never spoken again (a reload, the feed
 * sending an event twice, a run opened again).
 */

/** Between pressing Run and the run screen opening, the first responses may already be delivered. */
export const WATCH_GRACE_MS = 15_000;
const SPOKEN_KEY = 'steward.spoken-responses';
const KEEP_SPOKEN = 500;

/** Where the words go: the browser's speech synthesis, or a stand-in. */
export interface Speaker {
  speak: (said: SpokenResponse) => void;
  cancel: () => void;
}

/** The ids this tab has spoken (kept in sessionStorage, so a reload does not speak them again). */
export interface SpokenIds {
  has: (id: string) => boolean;
  add: (id: string) => void;
}

export function sessionSpokenIds(storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = typeof sessionStorage === 'undefined' ? undefined : sessionStorage): SpokenIds {
  const read = (): string[] => {
    try {
      const value: unknown = JSON.parse(storage?.getItem(SPOKEN_KEY) ?? '[]');
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    } catch {
      return [];
    }
  };
  const ids = new Set(read());
  return {
    has: (id) => ids.has(id) || read().includes(id),
    add: (id) => {
      ids.add(id);
      try {
        storage?.setItem(SPOKEN_KEY, JSON.stringify([...new Set([...read(), id])].slice(-KEEP_SPOKEN)));
      } catch {
        // Storage full or refused: this page still remembers.
      }
    },
  };
}

/** The Web Speech API speaker: one utterance per response, with its voice (when this browser has it) and rate. */
export function webSpeaker(speech: SpeechSynthesis): Speaker {
  return {
    speak: (said) => {
      const utterance = new SpeechSynthesisUtterance(said.text);
      utterance.rate = said.rate;
      const voice = said.voice === undefined ? undefined : speech.getVoices().find((v) => v.name === said.voice);
      if (voice) {
        try {
          utterance.voice = voice;
          utterance.lang = voice.lang;
        } catch {
          // Not a voice this browser can use: its default speaks.
        }
      }
      speech.speak(utterance);
    },
    cancel: () => speech.cancel(),
  };
}

/** One watched run: feed it the run's events (stored, then live, in any overlap); it speaks what is new and delivered. */
export class RunSpeech {
  private readonly memory: SpeechMemory = newSpeechMemory();
  private muted = false;
  /** Responses spoken while watching (the control shows it). */
  spokenCount = 0;
  private readonly listeners = new Set<() => void>();
  private state: RunSpeechState = { speaking: false, muted: false, count: 0 };

  constructor(
    private readonly runId: string,
    private readonly speaker: Speaker,
    private readonly spoken: SpokenIds,
    /** Responses delivered before this (ISO time) are history. */
    private readonly since: string,
  ) {}

  /** Whether an agent of this run has speech on (from the starts seen so far). */
  get speaking(): boolean {
    for (const agent of this.memory.values()) if (agent.settings?.enabled && !agent.dry) return true;
    return false;
  }

  get isMuted(): boolean {
    return this.muted;
  }

  /**
   * The run's events, any of them, any number of times (the page's stored list, live batches): what
   * is delivered and new is spoken, once. A delivery whose agent's start has not been fed yet waits
   * for a feed that has it.
   */
  feed(events: readonly RunEvent[]): SpokenResponse[] {
    const fresh = events.filter((e) => e.run_id === this.runId);
    const said: SpokenResponse[] = [];
    const byId = new Map(fresh.map((e) => [e.id, e]));
    for (const response of spokenResponses([...fresh].sort((a, b) => a.seq - b.seq), this.memory)) {
      const event = byId.get(response.event_id);
      if (!event || event.ts < this.since || this.spoken.has(response.event_id)) continue;
      // Muted: it is not spoken now, nor later.
      this.spoken.add(response.event_id);
      if (this.muted) continue;
      this.speaker.speak(response);
      this.spokenCount += 1;
      said.push(response);
    }
    this.changed();
    return said;
  }

  /** Stop speaking now, and say nothing more of this run until unmuted. */
  mute(): void {
    this.muted = true;
    this.speaker.cancel();
    this.changed();
  }

  unmute(): void {
    this.muted = false;
    this.changed();
  }

  /** Stop what is being said (the person left the run). */
  cancel(): void {
    if (this.spokenCount > 0) this.speaker.cancel();
  }

  /** For useSyncExternalStore: told after each change. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** For useSyncExternalStore: the same object until something changed. */
  readonly snapshot = (): RunSpeechState => this.state;

  private changed(): void {
    const next = { speaking: this.speaking, muted: this.muted, count: this.spokenCount };
    if (next.speaking === this.state.speaking && next.muted === this.state.muted && next.count === this.state.count) return;
    this.state = next;
    for (const listener of this.listeners) listener();
  }
}

export interface RunSpeechState {
  /** An agent of the run has speech on. */
  speaking: boolean;
  muted: boolean;
  /** Responses spoken while watching. */
  count: number;
}
