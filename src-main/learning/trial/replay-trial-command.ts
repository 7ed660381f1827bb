import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { RunEvent } from '@shared/contracts/events';
import { trialReplayHeadline } from '@shared/learning/trial-replay';
import { createEventStamper } from '../../engine/event-stamper';
import { journalFileRunEvents } from '../../replay/journal-file-run';
import { EXIT, type CliIo } from '../../shells/cli/cli-io';
import { localRecorder } from '../../shells/cli/run-recorder';
import { replayTrial } from './replay-trial';

/**
 * `steward replay RUN` of a student trial (issue 31): the recorded candidate replies given back (no
 * model is called, no tool executed), each round parsed, validated and compared again by today's
 * code, recorded as a run of its own in the data folder's history, and the replay's report
 * compared with the recorded one. Exit 0 the same report · 1 it differs (each difference listed).
 */
export async function replayTrialCommand(options: { events: readonly RunEvent[]; dataDir: string; json: boolean; io: CliIo }): Promise<number> {
  const { io, dataDir } = options;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const runId = randomUUID();
  const recorder = localRecorder(dataDir, (line) => io.stderr(`steward: ${line}\n`));
  const stamper = createEventStamper(runId, (event) => recorder.onEvent(event));
  let result;
  try {
    result = await replayTrial({ events: options.events, runId, runEvents: (id) => journalFileRunEvents(dataDir, id), emit: (payload) => stamper.emit(payload), emitted: () => stamper.count });
  } finally {
    const recorded = await recorder.finish();
    if (!recorded.ok) io.stderr(`steward: the replay is not all in the data folder's history: ${recorded.message}\n`);
  }
  const { comparison, gaps, recorded } = result;
  const of = recorded.replay_of ?? recorded.run_id;
  if (options.json) {
    io.stdout(`${JSON.stringify({ run_id: runId, replay_of: of, same: comparison.same, headline: trialReplayHeadline(comparison), differences: comparison.differences, gaps, report: result.replayed.report }, null, 2)}\n`);
  } else {
    io.stdout(`steward · replay of trial ${of} · ${recorded.candidate}'s recorded replies given back (no model is called, no tool executes) · Trial of ${recorded.candidate} on ${recorded.node.label}\n`);
    for (const gap of gaps) io.stderr(`note: ${gap}\n`);
    for (const line of result.replayed.report?.words ?? []) io.stdout(`${line}\n`);
    io.stdout(`\n${trialReplayHeadline(comparison)}\n`);
    for (const difference of comparison.differences) io.stdout(`✗ ${difference}\n`);
    io.stdout(`Recorded as run ${runId} (steward runs show ${runId.slice(0, 8)}).\n`);
  }
  return comparison.same ? EXIT.ok : EXIT.runNotCompleted;
}
