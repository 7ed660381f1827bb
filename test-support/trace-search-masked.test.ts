import 'fake-indexeddb/auto';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src-shared/contracts/events';
import { ModelScript } from '../src-shared/contracts/script';
import { createMemoryLedger } from '../src-main/mcp/idempotency-ledger';
import { resolveProvider } from '../src-main/providers/resolve-provider';
import { runAgent } from '../src-main/engine/run-agent';
import { StewardDb } from '../src-renderer/db/db';
import { ingestEvents } from '../src-renderer/db/ingest-events';
import { searchWords } from '@shared/history/search-words';
import { queryRuns } from '../src-renderer/screens/runs/run-query';
import { NO_FILTER } from '../src-renderer/screens/runs/run-filter';
import { tempNotesWorkspace } from './workspace';
import { maskingProbeSpec } from './masking-probe';

/**
 * Issue 9: a run is found by its explanations and arguments, and a masked value stays masked. The real engine runs
 * against the real filesystem MCP server (replay models); `write_file`'s `content` is declared sensitive. Its events
 * go into the page's real database as the live path stores them, and the runs list's own query searches it.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('text search over a run’s explanations and arguments', () => {
  it('finds the run by its teacher’s explanation and a tool call’s argument, never by a sensitive argument’s value', async () => {
    const secretWord = randomBytes(12).toString('hex');
    const secret = `Kestrel ${secretWord}`;
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const spec = maskingProbeSpec();
    const write = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'quetzal-report.md', content: secret } };
    const script = ModelScript.parse({
      latency_ms: 0,
      // The student writes the secret, then says it again in prose (masked by value once seen).
      student: [{ json: write }, { text: `I wrote ${secret} as asked.` }, { text: `I wrote ${secret} as asked.` }],
      teacher: [
        { json: { verdict: 'accept', reason_codes: [], explanation: 'Stays inside the marmalade workspace.' } },
        { json: { verdict: 'replace', reason_codes: ['other'], explanation: 'Unreadable; finishing.', replacement: { decision_type: 'complete', output: 'done' } } },
      ],
    });
    const events: RunEvent[] = [];
    const result = await runAgent({
      spec,
      specDir: ws.dir,
      workspace: ws.workspace,
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(e),
      providers: { student: resolveProvider({ provider: 'script' }, 'student', { script }), teacher: resolveProvider({ provider: 'script' }, 'teacher', { script }) },
    });
    expect(result.status, result.message).toBe('completed');
    // The write ran with the real value (the host masks traces, not the tool's input).
    expect(events.some((e) => e.type === 'tool.executed' && e.execution.ok)).toBe(true);

    const db = new StewardDb(`steward-search-masked-${Math.random().toString(36).slice(2)}`);
    cleanups.push(() => db.delete());
    // In batches of a few events, as the live path pushes them.
    for (let i = 0; i < events.length; i += 3) await ingestEvents(db, events.slice(i, i + 3));
    const runId = events[0]!.run_id;
    const found = async (text: string) => (await queryRuns(db, { ...NO_FILTER, text }, 100)).map((r) => r.run_id);

    expect(await found('marmalade')).toEqual([runId]);
    expect(await found('quetzal')).toEqual([runId]);
    expect(await found(secretWord)).toEqual([]);
    expect(await found(secretWord.slice(0, 8))).toEqual([]);
    expect(await found('kestrel')).toEqual([]);
    const row = await db.runs.get(runId);
    for (const w of searchWords(secret)) {
      expect(row?.words).not.toContain(w);
      expect(JSON.stringify(row)).not.toContain(w);
    }
  });
});
