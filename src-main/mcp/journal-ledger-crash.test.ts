import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../composition/create-host';
import { runAgent } from '../engine/run-agent';
import { openHistory } from '../events/open-history';
import { acceptAll, editNotes, readingSpec } from '../../test-support/reading-spec';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { openDataFolderLedger } from './history-ledger';
import { DuplicateExecutionError } from './idempotency-ledger';
import { openHostWrites } from './journal-ledger';
import { startToolHost } from './mcp-tool-host';
import type { ToolHost } from './tool-host';

/**
 * I5 with one durable write per round (issue 26): a write's ledger claim commits with the round's
 * events, its outcome rides in the next commit. A process killed between the claim and the outcome
 * leaves the key in flight, the committed decision in the history, and the call never runs again.
 */

const CHILD = resolve(__dirname, '../../test-support/round-crash-child.ts');
const tsxEnv = { ...process.env, TSX_TSCONFIG_PATH: resolve(__dirname, '../../tsconfig.main.json') };

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('a host killed between a tool call\'s claim and its outcome', () => {
  it('keeps the key in flight and the committed decision, and the call never runs twice when the run is tried again', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const dataDir = join(ws.dir, 'data');
    const runId = 'run-killed-mid-call-0001';
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, ws.workspace, runId], { stdio: ['ignore', 'pipe', 'inherit'], env: tsxEnv });
    cleanups.push(() => void child.kill('SIGKILL'));
    const keys: string[] = [];
    await new Promise<void>((done, fail) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const [word, round, key] = line.split(' ');
        if (word !== 'executing' || !key) return;
        keys[Number(round)] = key;
        // The second call is going out: its claim is committed, its outcome never will be.
        if (round === '1') child.kill('SIGKILL');
      });
      child.once('exit', () => (keys.length === 2 ? done() : fail(new Error(`the fixture ended before its second call (${child.exitCode})`))));
    });
    expect(child.signalCode).toBe('SIGKILL');
    const [first, second] = keys as [string, string];

    // The ledger: the first call's outcome rode in the second's claim; the second is in flight for good.
    const ledger = openDataFolderLedger(dataDir);
    expect(ledger.state(first)).toBe('executed');
    expect(ledger.state(second)).toBe('in_flight');
    expect(() => ledger.begin(second, { run_id: runId, round: 1, server: 'fs', tool: 'edit_file' })).toThrow(DuplicateExecutionError);
    ledger.close();

    // The history: every event up to the second committed decision, in order; nothing of a result that never came.
    const journal = openHistory(dataDir, { log: () => undefined });
    const events = journal.runEvents(runId);
    journal.close();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    const committed = events.filter((e) => e.type === 'decision.committed').map((e) => e.round);
    expect(committed).toEqual([0, 1]);
    expect(events.filter((e) => e.type === 'tool.executed').map((e) => e.round)).toEqual([0]);

    // Tried again under the same run id with the same decisions: no call reaches the server.
    const reopened = openHistory(dataDir, { log: () => undefined });
    cleanups.push(() => reopened.close());
    const { writer, ledger: again } = openHostWrites(reopened, dataDir);
    const real = await startToolHost(readingSpec(2).servers, { vars: { workspace: ws.workspace }, overrides: {}, cwd: ws.workspace });
    cleanups.push(() => real.close());
    const calls: string[] = [];
    const counting: ToolHost = { snapshot: (round) => real.snapshot(round), execute: (request) => (calls.push(request.idempotency_key), real.execute(request)), close: async () => undefined };
    const retried = await runAgent({
      spec: readingSpec(2),
      specDir: ws.workspace,
      workspace: ws.workspace,
      runId: 'run-killed-mid-call-0001',
      script: { latency_ms: 0, student: [editNotes(ws.workspace), editNotes(ws.workspace)], teacher: acceptAll(2) },
      ledger: again,
      onEvent: () => undefined,
      toolHost: counting,
    });
    writer.flush();
    reopened.close();
    expect(calls).toEqual([]);
    // The first call, made with its result kept, is given that result again; the one cut off mid-call is refused.
    expect(retried.rounds[0]).toMatchObject({ outcome: 'executed', authorization: { ok: true, idempotency_key: first, recorded_result: true } });
    expect(retried.rounds[1]?.reason).toBe('duplicate_execution');

    // A host started on the folder closes the run as interrupted, after the events it kept.
    const host = await createHost({ dataDir, shell: 'browser', cliChannel: false, log: () => undefined });
    await host.close();
    const after = openHistory(dataDir, { log: () => undefined });
    const end = after.runEvents(runId).at(-1);
    after.close();
    expect(end).toMatchObject({ type: 'run.finished', status: 'interrupted', seq: events.length });
  }, 60_000);
});
