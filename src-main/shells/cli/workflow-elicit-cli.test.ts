import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { elicitingWorkflow } from '../../../test-support/elicitation-workflow';
import { cliWith } from '../../../test-support/cli-capture';
import { everythingBin } from '../../../test-support/slow-tool-workflow';
import { readTraceFile } from '../../../test-support/trace-file';
import { EXIT } from './cli';

/**
 * Issue 13: a server's elicitation reaches the person at the terminal for a workflow run too (as it
 * does for an agent spec): the real server-everything asks during its tool call; the typed lines are
 * the test's stand-in for the person. Without a terminal the server is told nobody can answer.
 */
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

/** The app's eliciting workflow as a file of the user's own: its server a command, not a registry id. */
function workflowFile(): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-wf-elicit-'));
  dirs.push(dir);
  const { servers: _refs, ...graph } = elicitingWorkflow('cli-asks-person');
  const file = join(dir, 'asks.workflow.json');
  writeFileSync(file, JSON.stringify({ ...graph, servers: [{ id: 'ev', command: process.execPath, args: [everythingBin], tools: ['trigger-elicitation-request'] }] }));
  return { file, dir };
}

describe('steward run WORKFLOW: a server asks the person at the terminal', () => {
  it('the person declines at the prompt: the server hears it, the run completes, and the trace records the ask without values', async () => {
    const { file, dir } = workflowFile();
    const trace = join(dir, 'run.jsonl');
    const shown: string[] = [];
    const typed = ['decline'];
    const run = await cliWith(['run', file, '--data-dir', join(dir, 'data'), '--trace', trace], {
      line: async (question: string) => {
        shown.push(question);
        return typed.shift();
      },
    });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(`${run.stderr}${shown.join('\n')}`).toContain('MCP server "ev" asks you');
    const events = readTraceFile(trace);
    const asked = events.find((e) => e.type === 'mcp.elicitation');
    expect(asked).toMatchObject({ type: 'mcp.elicitation', server: 'ev', action: 'decline' });
    const executed = events.find((e) => e.type === 'tool.executed');
    expect(executed?.type === 'tool.executed' && executed.execution.content).toMatch(/declin/i);
  }, 90_000);
});
