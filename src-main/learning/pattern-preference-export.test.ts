import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { PreferenceLine } from '@shared/contracts/learning-export';
import { WorkflowGraph } from '@shared/workflow/document';
import { EXAMPLES } from '../../test-support/workspace';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runWorkflow } from '../workflow/run-workflow';
import { exportLearning } from './export-learning';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a pattern node’s judgments as learning data', () => {
  it('the rejected draft, its feedback and the approved next draft become one preference pair in the export (and no SFT line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-pattern-learning-'));
    temps.push(dir);
    const graph = WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, 'pattern-pipeline.workflow.json'), 'utf8')));
    const events: RunEvent[] = [];
    const run = await runWorkflow({ graph, specDir: dir, inputs: {}, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
    expect(run.status).toBe('completed');
    const trace = join(dir, 'trace.jsonl');
    writeFileSync(trace, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);

    let text = '';
    const summary = await exportLearning({ trace, format: 'preference', out: (t) => (text += t) });
    expect(summary.written).toBe(1);
    const [line] = text.trim().split('\n').map((l) => PreferenceLine.parse(JSON.parse(l)));
    expect(line?.non_preferred_output[0]?.content).not.toContain('## Risks');
    expect(line?.preferred_output[0]?.content).toContain('## Risks');
    expect(line?.input.messages.at(-1)?.content).toContain('Write the release notes for release 0.9');

    let sft = '';
    expect((await exportLearning({ trace, format: 'sft', out: (t) => (sft += t) })).written).toBe(0);
  }, 60_000);
});
