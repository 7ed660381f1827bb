import { runAgent } from '../src-main/engine/run-agent';
import { openHistory } from '../src-main/events/open-history';
import { openHostWrites } from '../src-main/mcp/journal-ledger';
import { startToolHost } from '../src-main/mcp/mcp-tool-host';
import type { ToolHost } from '../src-main/mcp/tool-host';
import { acceptAll, editNotes, readingSpec } from './reading-spec';

/**
 * Test fixture (journal-ledger-crash.test.ts): a run written as the host writes it (the history
 * database, the ledger on its connection, the journal writer), on the real filesystem server. Its
 * first round's write (a dry-run edit the registry calls irreversible, so its claim is synced before the call) runs; the second round's call never answers. Before each call goes out it
 * prints `executing ROUND KEY`, so the test can kill it between the ledger's claim and its outcome.
 */
const [dataDir, workspace, runId] = process.argv.slice(2) as [string, string, string];
const spec = readingSpec(2);
const journal = openHistory(dataDir, { log: () => undefined });
const { writer, ledger } = openHostWrites(journal, dataDir);
const real = await startToolHost(spec.servers, { vars: { workspace }, overrides: {}, cwd: workspace });
let calls = 0;
const toolHost: ToolHost = {
  snapshot: (round) => real.snapshot(round),
  execute: (request) => {
    const round = calls++;
    process.stdout.write(`executing ${round} ${request.idempotency_key}\n`);
    return round === 0 ? real.execute(request) : new Promise(() => undefined);
  },
  close: () => real.close(),
};
await runAgent({ spec, specDir: workspace, workspace, runId, script: { latency_ms: 0, student: [editNotes(workspace), editNotes(workspace)], teacher: acceptAll(2) }, ledger, onEvent: writer.onEvent, toolHost });
