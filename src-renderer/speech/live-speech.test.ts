import { describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { SupervisionSpec } from '@shared/contracts/spec';
import type { SpokenResponse } from '@shared/history/spoken-responses';
import { RunSpeech, sessionSpokenIds, type Speaker } from './live-speech';
import { parseSynthesisDraft, synthesisDraftOf } from '../supervision/synthesis-edit';
import { SynthesisSettings } from '@shared/contracts/synthesis';

/** The run screen's speaker (issue 29): live only, each delivered response once, muted on request. */

const RUN = 'run-live-speech-01';
const at = (second: number) => `2026-12-05T12:00:${String(second).padStart(2, '0')}.000Z`;
const ev = (seq: number, second: number, payload: Record<string, unknown>): RunEvent =>
  RunEvent.parse({ id: `${RUN}:${String(seq).padStart(6, '0')}`, run_id: RUN, seq, ts: at(second), ...payload });
const start = ev(0, 1, {
  type: 'run.started',
  spec_id: 's',
  spec_name: 'Speaker',
  task: 't',
  supervision: SupervisionSpec.parse({}),
  models: { student: 'replay', teacher: 'replay' },
  synthesis: SynthesisSettings.parse({ enabled: true }),
});
const delivered = (seq: number, second: number, output: string) => ev(seq, second, { type: 'response.delivered', round: seq, decision: { decision_type: 'complete', output } });
const candidate = (seq: number, second: number, output: string) =>
  ev(seq, second, { type: 'candidate.proposed', round: seq, reply: { text: output, tool_calls: [], model: 'replay' }, parsed: { raw: { decision_type: 'complete', output }, tool_call_count: 0 } });

function recorder(): Speaker & { said: string[]; cancels: number } {
  const r = {
    said: [] as string[],
    cancels: 0,
    speak: (s: SpokenResponse) => void r.said.push(s.text),
    cancel: () => void (r.cancels += 1),
  };
  return r;
}

function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> {
  const values = new Map<string, string>();
  return { getItem: (k) => values.get(k) ?? null, setItem: (k, v) => void values.set(k, v) };
}

describe('RunSpeech', () => {
  it('speaks what is delivered after watching began, once however often it is fed, and never a candidate', () => {
    const speaker = recorder();
    const run = new RunSpeech(RUN, speaker, sessionSpokenIds(memoryStorage()), at(10));
    run.feed([start, delivered(1, 5, 'before you watched'), candidate(2, 11, 'a candidate'), delivered(3, 12, 'live answer')]);
    run.feed([start, delivered(1, 5, 'before you watched'), candidate(2, 11, 'a candidate'), delivered(3, 12, 'live answer')]);
    expect(speaker.said).toEqual(['live answer']);
    expect(run.snapshot()).toEqual({ speaking: true, muted: false, count: 1 });
  });

  it('a delivery pushed before its run’s start reached the page is spoken once the start is fed', () => {
    const speaker = recorder();
    const run = new RunSpeech(RUN, speaker, sessionSpokenIds(memoryStorage()), at(0));
    run.feed([delivered(3, 12, 'early push')]);
    expect(speaker.said).toEqual([]);
    run.feed([start, delivered(3, 12, 'early push')]);
    expect(speaker.said).toEqual(['early push']);
  });

  it('a reload (a new watcher on the same tab storage) speaks nothing again; muted, nothing is spoken later either', () => {
    const storage = memoryStorage();
    const first = recorder();
    new RunSpeech(RUN, first, sessionSpokenIds(storage), at(0)).feed([start, delivered(1, 2, 'once')]);
    const again = recorder();
    new RunSpeech(RUN, again, sessionSpokenIds(storage), at(0)).feed([start, delivered(1, 2, 'once')]);
    expect([first.said, again.said]).toEqual([['once'], []]);

    const muted = recorder();
    const run = new RunSpeech(RUN, muted, sessionSpokenIds(memoryStorage()), at(0));
    run.feed([start]);
    run.mute();
    run.feed([start, delivered(2, 3, 'while muted')]);
    run.unmute();
    run.feed([start, delivered(2, 3, 'while muted'), delivered(4, 5, 'after')]);
    expect(muted.said).toEqual(['after']);
    expect(muted.cancels).toBe(1);
  });
});

describe('the Synthesis group’s fields', () => {
  it('round-trip the stored settings and refuse a rate that is not a number or out of range, in words', () => {
    const draft = synthesisDraftOf(SynthesisSettings.parse({ enabled: true, voice: 'en', rate: 1.5 }));
    expect(parseSynthesisDraft(draft)).toEqual({ ok: true, settings: { enabled: true, voice: 'en', rate: 1.5, speak: ['present_result', 'ask_user', 'complete'] } });
    expect(parseSynthesisDraft({ ...draft, rate: 'fast' })).toEqual({ ok: false, issues: { rate: 'The speech rate is a number; “fast” is not one.' } });
    expect(parseSynthesisDraft({ ...draft, rate: '3' })).toEqual({ ok: false, issues: { rate: 'The speech rate is a number from 0.5 to 2 (1 is normal speed).' } });
    expect(parseSynthesisDraft({ ...draft, speak: [] })).toMatchObject({ ok: false, issues: { speak: expect.stringContaining('Speech is on but speaks nothing') } });
    expect(parseSynthesisDraft({ ...draft, enabled: false, speak: [] })).toMatchObject({ ok: true });
  });
});
