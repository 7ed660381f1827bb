import { eventId, type RunEvent } from '../src-shared/contracts/events';
import { openSpool } from '../src-main/events/cli-run-spool';

/**
 * A `steward run` with no app, as far as its spool goes: opens one on the data folder, writes a
 * run's first events to it, prints the spool's name, then keeps writing (slowly) until killed.
 */
const [dataDir, runId] = [process.argv[2]!, process.argv[3]!];
const spool = openSpool(dataDir);
const ts = new Date().toISOString();
let seq = 0;
const write = () => {
  const event: RunEvent = { type: 'round.started', id: eventId(runId, seq), run_id: runId, seq, ts, round: seq, proposer: 'student' };
  seq += 1;
  spool.append(event);
  spool.sync();
};
write();
write();
process.stdout.write(`${spool.name}\n`);
setInterval(write, 50);
