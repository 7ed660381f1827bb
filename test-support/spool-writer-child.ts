import { fdatasyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eventId, type RunEvent } from '../src-shared/contracts/events';
import { spoolDir } from '../src-main/events/cli-run-spool';
import { runLockDir } from '../src-main/events/run-lock';

/**
 * A `steward run` of an older Steward (before issue 26) with no app, as far as its spool goes: takes
 * its spool's lock, opens the spool on the data folder, writes a run's first events to it, prints the
 * spool's name, then keeps writing (slowly) until killed.
 */
const [dataDir, runId] = [process.argv[2]!, process.argv[3]!];
mkdirSync(spoolDir(dataDir), { recursive: true });
mkdirSync(runLockDir(dataDir), { recursive: true });
const name = `${process.pid}-${randomBytes(6).toString('hex')}.jsonl`;
// Taken before the spool exists, as that command did.
const lock = new Database(join(runLockDir(dataDir), `${name}.lock`));
lock.exec('BEGIN EXCLUSIVE');
// Referenced for as long as the process lives: a collected connection would let go of the lock.
process.on('exit', () => lock.close());
const fd = openSync(join(spoolDir(dataDir), name), 'a', 0o600);
const ts = new Date().toISOString();
let seq = 0;
const write = () => {
  const event: RunEvent = { type: 'round.started', id: eventId(runId, seq), run_id: runId, seq, ts, round: seq, proposer: 'student' };
  seq += 1;
  writeSync(fd, `${JSON.stringify(event)}\n`);
  fdatasyncSync(fd);
};
write();
write();
process.stdout.write(`${name}\n`);
setInterval(write, 50);
