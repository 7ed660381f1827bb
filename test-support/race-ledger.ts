import { statSync } from 'node:fs';
import { openDataFolderLedger } from '../src-main/mcp/history-ledger';
import { DuplicateExecutionError, openFileLedger } from '../src-main/mcp/idempotency-ledger';

/**
 * Test fixture (idempotency-ledger.test.ts, history-ledger.test.ts): opens the ledger at argv[2] (a
 * JSONL file, or a data folder: its history database's ledger), says "ready", and on a
 * line from stdin tries to begin and finish every key after it, printing the keys it began as
 * JSON. Run twice at once on one file: both have read the journal before either begins.
 */
const [file, ...keys] = process.argv.slice(2);
if (!file) throw new Error('usage: race-ledger.ts FILE KEY...');
const ledger = statSync(file, { throwIfNoEntry: false })?.isDirectory() ? openDataFolderLedger(file) : openFileLedger(file);
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.pause();
const begun: string[] = [];
for (const key of keys) {
  try {
    ledger.begin(key, { run_id: 'race', round: 0, server: 'fs', tool: 'write_file' });
  } catch (error) {
    if (error instanceof DuplicateExecutionError) continue;
    throw error;
  }
  begun.push(key);
  ledger.finish(key, { ok: true, is_error: false });
}
process.stdout.write(JSON.stringify(begun));
