import { blockedRound, eventLog, finishRun, readExecutedRound, startRun, writeReplacedRound, type EventLog } from '../../testing/event-fixtures';

/** An agent run of three rounds (a read executed, a write the teacher replaced, a write blocked): every step layer present. */
export function threeRoundRun(runId: string): EventLog {
  const log = eventLog(runId);
  startRun(log);
  readExecutedRound(log, 0);
  writeReplacedRound(log, 1);
  blockedRound(log, 2);
  finishRun(log, 'blocked', 3);
  return log;
}
