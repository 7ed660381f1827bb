import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runAgent } from '../engine/run-agent';
import { loadSpecFile } from '../spec/load-spec';
import { formatScsEvent } from '../shells/cli/format-scs';

const EXAMPLE = join(__dirname, '..', '..', 'resources', 'examples', 'scs-phases.json');

describe('the rolling-phases example (resources/examples/scs-phases.json, replay models, real filesystem server)', () => {
  it('runs phase 1, stops it on its stop condition, moves on to phase 2 and writes summary.md; the CLI lines say so', async () => {
    const loaded = loadSpecFile(EXAMPLE);
    const dir = mkdtempSync(join(tmpdir(), 'steward-scs-phases-'));
    try {
      // A copy of the sandbox, as the CLI and the app run examples: the shipped files are never written.
      const workspace = join(dir, 'notes-sandbox');
      cpSync(loaded.workspace ?? '', workspace, { recursive: true });
      const events: RunEvent[] = [];
      const result = await runAgent({ spec: loaded.spec, specDir: loaded.specDir, workspace, script: { ...loaded.script, latency_ms: 0 }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
      expect(result.status, result.message).toBe('completed');
      expect(existsSync(join(workspace, 'summary.md'))).toBe(true);
      expect(result.scs).toMatchObject({ phase: 2, status: 'finished' });
      const lines = events.flatMap((e) => formatScsEvent(e) ?? []);
      expect(lines).toEqual([
        'scs=on (SCS is on)',
        'scs committee drafted phase plan',
        'scs student approved plan confidence=0.80',
        'scs supervisor started phase 1: Find and read the meeting notes',
        'scs supervisor stopped phase 1: stop condition "the notes file is missing ("ENOENT")" (the result of round 2 contains "ENOENT")',
        'scs student accepted phase 1 confidence=0.80 → next phase',
        'scs committee drafted phase plan',
        'scs student approved plan confidence=0.85',
        'scs supervisor started phase 2: Write summary.md with every action item and its owner',
        'scs student allowed finish confidence=0.88',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
