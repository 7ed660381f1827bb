import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { supervisorConsentText } from '@shared/supervisor/consent';
import { EXAMPLES } from '../../../test-support/workspace';
import { cliOn } from '../../../test-support/cli-capture';
import { tempFolder } from '../../../test-support/temp-folder';
import { EXIT } from './cli';

/**
 * `steward run WORKFLOW --supervise …` through the CLI's entry, on a workflow whose tool node (the
 * real MCP filesystem server) fails for one item; the supervisor model is the workflow's replay
 * script (the scripted provider supervisor double at the model boundary).
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const tempDir = () => tempFolder('steward-supervise-cli-', cleanups);
const cli = (argv: string[], dataDir: string) => cliOn(dataDir, argv);

const skipStep = { json: { step: 'verdict', verdict: { action: 'skip', reason: 'the file is not there' } } };

/** Reads each listed file with the filesystem server: a missing one fails its tool invocation. The supervisor is off in the document. */
function readEach(dir: string, supervisor: Record<string, unknown> = { enabled: false, who: { kind: 'model', model: { provider: 'script' }, script: { teacher: [skipStep] } } }): string {
  writeFileSync(join(dir, 'a.md'), 'alpha');
  writeFileSync(join(dir, 'c.md'), 'gamma');
  const file = join(dir, 'read-each.workflow.json');
  const edge = (f: string, fp: string, t: string, tp: string) => ({ from: { node: f, port: fp }, to: { node: t, port: tp } });
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'read-each',
      name: 'Read each',
      workspace: '.',
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
      supervisor,
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'files', type: 'list' }] },
        { id: 'each', kind: 'iterate', concurrency: 1 },
        { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
        { id: 'all', kind: 'collect' },
        { id: 'out', kind: 'output', fields: [{ name: 'texts', type: 'list' }] },
      ],
      edges: [edge('in', 'files', 'each', 'list'), edge('each', 'item', 'read', 'path'), edge('read', 'text', 'all', 'item'), edge('all', 'list', 'out', 'texts')],
    }),
  );
  return file;
}

const files = (dir: string) => JSON.stringify(['a.md', 'b-missing.md', 'c.md'].map((f) => join(dir, f)));

describe('steward run WORKFLOW --supervise', () => {
  it('a failing tool item is escalated and skipped by the supervisor: ⛨ lines on stderr, the summary line, exit 0 (unsupervised: exit 4); interventions in --json', async () => {
    const dir = tempDir();
    const file = readEach(dir);
    const plain = await cli(['run', file, '--input', `files=${files(dir)}`], join(dir, 'data'));
    // Unsupervised, the lost item is the run's outcome (issue 28): not a success.
    expect(plain.code).toBe(EXIT.itemsFailed);
    expect(plain.stdout).toMatch(/✗ read(\[each=1\]| · item 2) failed/);
    expect(plain.stdout).toMatch(/^completed · 1 of 3 items failed · /m);
    expect(plain.stdout).toContain('  ✗ read · item 2: read_text_file reported an error');
    expect(plain.stderr).not.toContain('⛨');

    const supervised = await cli(['run', file, '--input', `files=${files(dir)}`, '--supervise', '--max-decisions', '3', '--max-retries', '0'], join(dir, 'data'));
    expect(supervised.code).toBe(EXIT.ok);
    expect(supervised.stdout).toContain('– read · item 2 skipped');
    // As the app's status reads once a verdict carried the run.
    expect(supervised.stdout).toMatch(/^completed — supervised · /m);
    const shield = supervised.stderr.split('\n').filter((l) => l.startsWith('⛨'));
    expect(shield).toEqual([
      expect.stringMatching(/^⛨ read · item 2 escalated: failed — .* \(allowed: skip, fail\)$/),
      '⛨ read · item 2 → skip (decided by the supervisor): the file is not there',
      '⛨ supervised: 1 skipped (read · item 2) · 1 decision(s) · $0.0000',
    ]);

    const json = await cli(['run', file, '--input', `files=${files(dir)}`, '--supervise', '--json'], join(dir, 'data'));
    expect(json.code).toBe(EXIT.ok);
    const printed = JSON.parse(json.stdout) as { status: string; outputs: { texts: string[] }; supervision: { decisions: number; skipped: string[]; interventions: Array<Record<string, unknown>> } };
    expect(printed.status).toBe('completed');
    expect(printed.outputs.texts).toHaveLength(2);
    expect(printed.supervision).toMatchObject({ decisions: 1, skipped: ['read[each=1]'], cost_usd: 0 });
    expect(printed.supervision.interventions).toEqual([
      expect.objectContaining({ invocation_id: 'read[each=1]', node: 'read', next: 'skip', escalation: expect.objectContaining({ node: 'read', allowed_actions: ['retry', 'skip', 'fail'] }), verdict: expect.objectContaining({ decided_by: 'agent' }) }),
    ]);
  }, 120_000);

  it('--max-decisions bounds the supervisor: past it the item fails, decided by bounds', async () => {
    const dir = tempDir();
    // Two distinct failures (no shared signature: generic tool errors are never sticky) and one decision allowed.
    const file = readEach(dir, { enabled: true, max_decisions: 5, who: { kind: 'model', model: { provider: 'script' }, script: { teacher: [skipStep, skipStep] } } });
    const list = JSON.stringify(['x-missing.md', 'y-missing.md'].map((f) => join(dir, f)));
    const { code, stderr } = await cli(['run', file, '--input', `files=${list}`, '--max-decisions', '1'], join(dir, 'data'));
    // The item the bounds failed is lost: the run completed with failures.
    expect(code).toBe(EXIT.itemsFailed);
    expect(stderr).toContain('⛨ read · item 1 → skip (decided by the supervisor)');
    expect(stderr).toContain('⛨ read · item 2 → fail (decided by a bound (decisions, retries or cost cap used up)): the run used all 1 supervisor decisions');
    expect(stderr).toContain('⛨ supervised: 1 skipped (read · item 1), 1 failed · 1 decision(s)');
  }, 120_000);

  it('a cloud supervisor model the privacy policy does not allow: the run goes on unsupervised and says so; allowed, the consent text is printed once', async () => {
    const dir = tempDir();
    const file = readEach(dir);
    const model = ['--supervisor-model', 'https://api.example.com/v1#gpt-x'];
    const refused = await cli(['run', file, '--input', `files=${JSON.stringify([join(dir, 'a.md')])}`, '--supervise', ...model], join(dir, 'data'));
    expect(refused.code).toBe(EXIT.ok);
    expect(refused.stderr).toContain('⛨ this run is not supervised: the supervisor model api.example.com:gpt-x would send failure details to api.example.com');
    expect(refused.stderr).not.toContain('⛨ supervised:');

    const allowed = await cli(['run', file, '--input', `files=${JSON.stringify([join(dir, 'a.md')])}`, '--supervise', ...model, '--allow-host', 'api.example.com'], join(dir, 'data'));
    expect(allowed.code).toBe(EXIT.ok);
    const consent = supervisorConsentText('api.example.com:gpt-x', false);
    expect(allowed.stderr.split(consent)).toHaveLength(2);
    expect(allowed.stderr).toContain('⛨ supervised: no intervention · 0 decision(s) · $0.0000');
    // With a cost cap, an unpriced cloud model cannot be bounded: refused, the run unsupervised.
    const capped = await cli(['run', file, '--input', `files=${JSON.stringify([join(dir, 'a.md')])}`, '--supervise', ...model, '--allow-host', 'api.example.com', '--supervisor-cost-cap', '0.50'], join(dir, 'data'));
    expect(capped.stderr).toContain('has no price, so the cost cap of $0.5 cannot be kept');
  }, 120_000);

  it('bad supervision flags are bad input (exit 2), as are the flags on an agent spec or without --supervise', async () => {
    const dir = tempDir();
    const file = readEach(dir);
    const data = join(dir, 'data');
    const input = ['--input', `files=${JSON.stringify([join(dir, 'a.md')])}`];
    for (const flags of [['--max-decisions', '0'], ['--max-retries', 'many'], ['--supervisor-cost-cap', '-1'], ['--supervisor-model', 'gpt-x']]) {
      const { code, stderr } = await cli(['run', file, ...input, '--supervise', ...flags], data);
      expect(code, flags.join(' ')).toBe(EXIT.badInput);
      expect(stderr).toContain(flags[0]);
    }
    const unasked = await cli(['run', file, ...input, '--max-decisions', '2'], data);
    expect(unasked.code).toBe(EXIT.badInput);
    expect(unasked.stderr).toContain('need --supervise');
    const agent = await cli(['run', join(EXAMPLES, 'notes-assistant.json'), '--supervise'], data);
    expect(agent.code).toBe(EXIT.badInput);
    expect(agent.stderr).toContain('apply to workflows');
  }, 120_000);
});
