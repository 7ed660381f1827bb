import { openWaitingStores } from '../src-main/engine/waiting-stores';

/**
 * Test fixture (checkpoint-claim.test.ts): opens the waiting runs of the data folder argv[2] on a
 * connection of its own (as a host or a `steward answer` does), says "ready", and on a line from
 * stdin claims each run id after it, printing the ids it got as JSON. Then it holds its claims,
 * never resuming the runs, until it is killed: a process that died mid-claim.
 */
const [dataDir, ...runIds] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: claim-waiting-child.ts DATA_DIR RUN_ID...');
const { checkpoints } = openWaitingStores(dataDir);
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
const claimed = runIds.filter((runId) => checkpoints.claim(runId) !== undefined);
process.stdout.write(`${JSON.stringify(claimed)}\n`);
setInterval(() => undefined, 60_000);
