import { openHistory } from '../src-main/events/open-history';

/**
 * A second process on a data folder: opens its history (moving an old journal in, as a host's first
 * start does), printing what it says line by line, so a test can kill it mid-way.
 */
const dataDir = process.argv[2]!;
const history = openHistory(dataDir, { log: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(`open ${history.head}\n`);
history.close();
