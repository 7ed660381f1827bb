import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { ScriptEntry } from '@shared/contracts/script';
import { AgentSpec } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runAgent } from './run-agent';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** A phase-2 run whose teacher replaces the student's write and accepts its finish: a run that teaches. */
async function reviewedRun(dryRun: boolean) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const write = (file: string): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, file), content: 'x' } } });
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'dry',
    name: 'Dry',
    instructions: 'Work in ${workspace}.',
    task: 'Write a note.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['write_file'] }],
    supervision: { phase: 2 },
  });
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec,
    specDir: ws.dir,
    workspace: ws.workspace,
    script: {
      latency_ms: 0,
      student: [write('overwrite.md'), { json: { decision_type: 'complete', output: 'done' } }],
      teacher: [
        { json: { verdict: 'replace', reason_codes: ['other'], explanation: 'Use a new file.', replacement: write('new.md').json } },
        { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } },
      ],
    },
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    dryRun,
  });
  return { result, learning: events.filter((e) => e.type === 'learning.example') };
}

describe('dry runs teach nothing', () => {
  it('a dry run records no learning example, though its rounds were reviewed exactly as a real run’s', async () => {
    const real = await reviewedRun(false);
    expect(real.result.status).toBe('completed');
    expect(real.learning.length).toBeGreaterThan(0);

    const dry = await reviewedRun(true);
    expect(dry.result.status).toBe('completed');
    expect(dry.result.rounds.map((r) => r.verdict?.verdict)).toEqual(real.result.rounds.map((r) => r.verdict?.verdict));
    expect(dry.learning).toEqual([]);
  });
});
