import { useEffect, useState, useSyncExternalStore } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import { useHost } from '../app/HostProvider';
import { browserSpeech } from './browser-voices';
import { RunSpeech, sessionSpokenIds, WATCH_GRACE_MS, webSpeaker, type RunSpeechState } from './live-speech';

/**
 * Speaks the watched run's delivered responses (live-speech.ts) and shows the control to stop it:
 * present on the run screen while an agent of the run has speech on. Stop speaking cancels what is
 * being said (speechSynthesis.cancel) and keeps the rest of this run silent; Speak again resumes
 * with the next response. Leaving the run stops its speech too. Keyed by run: one watcher per run
 * opened, and what was delivered before it opened (less the grace) is history.
 */
export function RunSpeechControl({ runId, running, events }: { runId: string; running: boolean; events: readonly RunEvent[] }) {
  const [watcher] = useState(() => {
    const speech = browserSpeech();
    return speech ? new RunSpeech(runId, webSpeaker(speech), sessionSpokenIds(), new Date(Date.now() - WATCH_GRACE_MS).toISOString()) : undefined;
  });
  return watcher ? <WatchedRunSpeech watcher={watcher} running={running} events={events} /> : null;
}

function WatchedRunSpeech({ watcher, running, events }: { watcher: RunSpeech; running: boolean; events: readonly RunEvent[] }) {
  const { client } = useHost();
  const state = useSyncExternalStore(watcher.subscribe, watcher.snapshot);

  // Live events as they arrive (before the page has stored them), for the shortest delay; leaving the run stops its speech.
  useEffect(() => {
    const off = client.onEvents((pushed) => void watcher.feed(pushed));
    return () => {
      off();
      watcher.cancel();
    };
  }, [client, watcher]);

  // The run's events as the page holds them: a start or delivery pushed before this screen opened is here.
  useEffect(() => {
    watcher.feed(events);
  }, [watcher, events]);

  if (!state.speaking && state.count === 0) return null;
  return (
    <section className="run-speech" aria-label="Speech" data-testid="run-speech">
      <span className="run-speech__text" role="status" data-testid="run-speech-text">
        {speechText(state, running)}
      </span>{' '}
      {state.muted ? (
        <button type="button" className="button" onClick={() => watcher.unmute()} data-testid="speech-resume">
          Speak again
        </button>
      ) : (
        (running || state.count > 0) && (
          <button type="button" className="button" onClick={() => watcher.mute()} data-testid="speech-stop">
            Stop speaking
          </button>
        )
      )}
    </section>
  );
}

function speechText(state: RunSpeechState, running: boolean): string {
  if (state.muted) return 'Speech stopped for this run: its delivered responses are not read out.';
  if (state.count > 0) return `Read out ${state.count} delivered response${state.count === 1 ? '' : 's'} of this run: only what crossed the decision boundary, never a rejected candidate.`;
  if (running) return 'Speech is on: this run’s delivered responses are read out as they come.';
  return 'Speech is on for this agent; responses delivered before you opened the run are not read out again.';
}
