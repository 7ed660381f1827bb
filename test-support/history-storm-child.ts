import { eventId, type RunEvent } from '../src-shared/contracts/events';
import { openHistory } from '../src-main/events/open-history';

/**
 * A write storm on a data folder's history, as a host's journal writer makes one: batches of events
 * appended as fast as it can, most of them as the writer's window commits them (synced on the thread
 * pool, told after), some synced as they commit (a claim, a flush). Whenever subscribers are told, it
 * prints the last event id and its position: what a page would have been told. A test kills it at
 * a random moment and checks that everything told is there.
 */
const [dataDir, runId] = [process.argv[2]!, process.argv[3]!];
const history = openHistory(dataDir, { log: () => undefined });
// Printed as it is told (a pipe's writes are synchronous): a kill right after is still checked.
history.subscribe((slice) => process.stdout.write(`told ${slice.events.at(-1)!.id} ${slice.position} ${slice.after}\n`));
const ts = new Date().toISOString();
let seq = 0;
const write = () => {
  const size = 1 + (seq % 17);
  const batch: RunEvent[] = Array.from({ length: size }, () => {
    const s = seq++;
    return { type: 'round.started', id: eventId(runId, s), run_id: runId, seq: s, ts, round: s, proposer: 'student' };
  });
  history.append(batch, { made: true, deferSync: seq % 3 !== 0 });
  setImmediate(write);
};
write();
