import { eventId } from '../src-shared/contracts/events';
import { openHistory } from '../src-main/events/open-history';

/**
 * Fills a data folder's history until a write fails (the test runs it under a file size limit: a
 * full disk as the process sees it), then prints the last position it was told of and the error.
 */
process.on('SIGXFSZ', () => undefined); // the write then fails with EFBIG instead of killing the process
const dataDir = process.argv[2]!;
const history = openHistory(dataDir, { log: () => undefined });
const ts = new Date().toISOString();
const text = 'x'.repeat(480);
let told = 0;
history.subscribe((slice) => (told = slice.position));
for (let run = 0; ; run++) {
  const runId = `run-fill-${String(run).padStart(6, '0')}`;
  try {
    history.append(Array.from({ length: 20 }, (_, seq) => ({ type: 'run.notice' as const, id: eventId(runId, seq), run_id: runId, seq, ts, message: text })), { made: true });
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ told, error: error instanceof Error ? error.message : String(error) })}\n`);
    history.close();
    break;
  }
}
