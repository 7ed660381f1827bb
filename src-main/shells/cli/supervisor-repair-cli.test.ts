import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptEntry } from '@shared/contracts/script';
import { cliOn } from '../../../test-support/cli-capture';
import { tempFolder } from '../../../test-support/temp-folder';
import { EXIT } from './cli-io';

/**
 * `steward run WORKFLOW` with a model supervisor that answers badly (issue 29): its malformed
 * verdict goes back into its conversation as a tool error, up to 3 repair rounds, and only then
 * does the node fail, said in words on the ⛨ line, the raw answer in `--json`. The supervisor model
 * is the workflow's replay script (the scripted provider double at the model boundary); the graph
 * is real (items → iterate → an assert per item → collect → output).
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const prose: ScriptEntry = { text: 'Honestly I would just skip that one.' };
const skip: ScriptEntry = { json: { step: 'verdict', verdict: { action: 'skip', reason: 'not an ok line: leave it out' } } };

/** The must-say-ok workflow, supervised by a replay model answering `teacher` in order. */
function mustSayOk(dir: string, teacher: ScriptEntry[]): string {
  const file = join(dir, 'must-say-ok.workflow.json');
  const edge = (f: string, fp: string, t: string, tp: string) => ({ from: { node: f, port: fp }, to: { node: t, port: tp } });
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'must-say-ok',
      name: 'Must say ok',
      supervisor: { enabled: true, who: { kind: 'model', model: { provider: 'script' }, script: { teacher } }, max_decisions: 5 },
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
        { id: 'each', kind: 'iterate', concurrency: 1 },
        { id: 'work', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
        { id: 'all', kind: 'collect' },
        { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
      ],
      edges: [edge('in', 'items', 'each', 'list'), edge('each', 'item', 'work', 'value'), edge('work', 'value', 'all', 'item'), edge('all', 'list', 'out', 'list')],
    }),
  );
  return file;
}

const items = ['--input', `items=${JSON.stringify(['ok one', 'not this', 'ok three'])}`];
const shieldLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('⛨'));

describe('steward run WORKFLOW: a model supervisor whose verdict is malformed', () => {
  it('is told what was wrong and answers again in the same decision: its repaired skip is applied, the run completes (exit 0)', async () => {
    const dir = tempFolder('steward-sv-repair-', cleanups);
    const file = mustSayOk(dir, [prose, { json: { step: 'verdict', verdict: { action: 'skip' } } }, skip]);
    const { code, stdout, stderr } = await cliOn(join(dir, 'data'), ['run', file, ...items]);
    expect(code, stderr).toBe(EXIT.ok);
    expect(stdout).toMatch(/^completed/m);
    expect(shieldLines(stderr)).toContainEqual(expect.stringMatching(/→ skip \(decided by the supervisor\): not an ok line: leave it out$/));
    expect(stderr).toContain('1 decision(s)');
  }, 60_000);

  it('after 3 repair rounds the item fails closed: the ⛨ line says what happened in words, --json keeps the raw answer', async () => {
    const dir = tempFolder('steward-sv-malformed-', cleanups);
    // Four bad answers: the first and its 3 repairs. The skip after them is never asked for.
    const file = mustSayOk(dir, [prose, prose, prose, prose, skip]);
    const plain = await cliOn(join(dir, 'data'), ['run', file, ...items]);
    expect(plain.code, plain.stderr).toBe(EXIT.itemsFailed);
    expect(shieldLines(plain.stderr)).toContainEqual(
      expect.stringMatching(/→ fail \(decided by Steward \(the answer was not a usable, allowed verdict\)\): the supervisor gave no usable verdict in 4 answers \(3 repair rounds\), so the node fails as it would have without supervision$/),
    );
    // Nothing of the raw answer on the line a person reads: it is one step away.
    expect(plain.stderr).not.toContain('Honestly');

    const json = await cliOn(join(dir, 'data'), ['run', file, ...items, '--json']);
    expect(json.code).toBe(EXIT.itemsFailed);
    const printed = JSON.parse(json.stdout) as { supervision: { interventions: Array<{ node: string; verdict: Record<string, unknown> }> } };
    expect(printed.supervision.interventions).toHaveLength(1);
    expect(printed.supervision.interventions[0]).toMatchObject({
      node: 'work',
      verdict: { decided_by: 'kernel', turns: 1, verdict: { action: 'fail' }, malformed: { problem: 'the answer is not a JSON object', answer: 'Honestly I would just skip that one.', repairs: 3 } },
    });
  }, 60_000);
});
