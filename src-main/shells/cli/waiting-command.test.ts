import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliWith as cli } from '../../../test-support/cli-capture';
import { EXIT } from './cli';

/** Issue 12: `steward runs waiting` names the pattern member whose question it is, not only the node. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const complete = (output: string) => ({ json: { decision_type: 'complete', output } });

/** A pattern node whose member `critic` (on the replay student) asks the person which audience, after the drafter is done. */
function memberAsksWorkflow(dir: string): string {
  const file = join(dir, 'member-asks.workflow.json');
  const id = 'member-asks';
  const members = [
    { id: 'writer', role: 'writer', instructions: 'Write.', script: { student: [complete('A note about tea.')] } },
    { id: 'critic', role: 'critic', instructions: 'Criticise.', script: { student: [{ json: { decision_type: 'ask_user', question: 'Who reads this note?' } }, complete('Fine for beginners.')] } },
  ];
  // One iteration, judged by a replay judge that approves (never reached while the critic waits).
  const judged = {
    max_iterations: 1,
    judgment: { mode: 'post_step', callers: [{ kind: 'llm', profile: 'judge' }], verifier: { must_cite: ['writer'] } },
    ...{ judge_models: { judge: { provider: 'script' } }, judge_script: { teacher: [{ json: { verdict: 'approved', evidence: ['writer#1', 'critic#1'] } }] } },
  };
  const draft = { id: 'draft', kind: 'pattern', type: 'SUPERVISOR', task: 'Write a short note about {{topic}}.', inputs: [{ name: 'topic', type: 'text' }], members, ...judged };
  const nodes = [{ id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] }, draft, { id: 'out', kind: 'output', fields: [{ name: 'note', type: 'text' }] }];
  const edges = [
    { from: { node: 'in', port: 'topic' }, to: { node: 'draft', port: 'topic' } },
    { from: { node: 'draft', port: 'output' }, to: { node: 'out', port: 'note' } },
  ];
  writeFileSync(file, JSON.stringify({ format: 'steward/v1', kind: 'workflow', id, name: 'A member asks', nodes, edges }));
  return file;
}

describe('steward runs waiting', () => {
  it("names the pattern member that asks (draft › member critic), in its lines and in --json", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-waiting-member-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dataDir = join(dir, 'data');
    const run = await cli(['run', memberAsksWorkflow(dir), '--input', 'topic=tea', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(EXIT.waiting);

    const listed = await cli(['runs', 'waiting', '--data-dir', dataDir]);
    expect(listed.stdout).toMatch(/ · A member asks · node draft › member critic · round 1 · .* · since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n/);
    expect(listed.stdout).toContain('Who reads this note?');
    const json = JSON.parse((await cli(['runs', 'waiting', '--json', '--data-dir', dataDir])).stdout) as unknown[];
    expect(json).toEqual([expect.objectContaining({ name: 'A member asks', node: 'draft', member: 'critic' })]);
  }, 60_000);
});
