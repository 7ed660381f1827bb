import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { askingSpecInput } from '../../../test-support/asking-spec';
import { cliWith, journalEvents } from '../../../test-support/cli-capture';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { EXIT, type CliIo } from './cli';

/**
 * A tool call that needs the person's confirmation, answered from the command line as a person types
 * it (issue 28): an agent's call rejected with a note is proposed again (the agent was told), stop
 * ends the run cancelled; a workflow step's call nobody proposed offers approve / decline / stop and
 * a declined one ends the run saying so. Real filesystem MCP server; the models are replay scripts
 * (the scripted provider at the model boundary).
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-confirm-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** TEST DOUBLE for the person at the terminal: types these lines, in order. */
function typing(...lines: string[]): NonNullable<CliIo['line']> {
  return async () => lines.shift();
}

const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };

/** An agent spec whose write needs the person's confirmation: it first proposes to overwrite the notes, then (told no) a new file. */
function confirmingSpec(): { file: string; workspace: string } {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const write = (name: string) => ({ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, name), content: '# Summary\n' } } });
  const file = join(ws.dir, 'confirms.json');
  writeFileSync(
    file,
    JSON.stringify({
      ...askingSpecInput({ phase: 3 }),
      tool_effects: { 'fs/write_file': { effect: 'reversible_write', requires_user_confirmation: true } },
      script: { latency_ms: 0, student: [write('meeting-notes.md'), write('summary.md'), { json: { decision_type: 'complete', output: 'Wrote summary.md.' } }], teacher: [accept, accept, accept, accept] },
    }),
  );
  return { file, workspace: ws.workspace };
}

/** A workflow whose tool step writes with the author's arguments; the write needs the person's confirmation. */
function savingWorkflow(dir: string): string {
  const file = join(dir, 'save.workflow.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'save-note',
      name: 'Save a note',
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: [dir] }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
        { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: join(dir, 'saved.md'), content: '{{text}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
        { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'said' } },
      ],
    }),
  );
  return file;
}

const runIdOf = (stdout: string) => /the run (\S+) waits/.exec(stdout)?.[1] ?? '';

describe('an agent\'s tool call that needs your confirmation, from the command line', () => {
  it('steward answer … reject --note: nothing runs, the agent is told (its next round shows it) and proposes again; approve then runs the new call', async () => {
    const { file, workspace } = confirmingSpec();
    const dataDir = tempDir();
    const run = await cliWith(['run', file, '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = runIdOf(run.stdout);
    expect(run.stdout).toContain(`steward answer ${runId} reject`);
    expect(run.stdout).toContain(`steward answer ${runId} stop`);

    const rejected = await cliWith(['answer', runId, 'reject', '--note', 'Keep the notes; write summary.md.', '--data-dir', dataDir]);
    // Asked again, about the new call.
    expect(rejected.code).toBe(EXIT.waiting);
    expect(rejected.stdout).toContain('told by you: The user rejected your call of write_file; it did not run. Their note: "Keep the notes; write summary.md.". Propose something else.');
    expect(rejected.stdout).toContain(`the run ${runId} waits for you: write_file needs your confirmation before it runs.`);
    expect(readFileSync(join(workspace, 'meeting-notes.md'), 'utf8')).not.toBe('# Summary\n');

    const approved = await cliWith(['answer', runId, 'approve', '--data-dir', dataDir]);
    expect(approved.code).toBe(EXIT.ok);
    expect(approved.stdout).toContain('Wrote summary.md.');
    expect(readFileSync(join(workspace, 'summary.md'), 'utf8')).toBe('# Summary\n');
    const answers = journalEvents(dataDir).filter((e) => e.type === 'intervention.answered').map((e) => (e.type === 'intervention.answered' ? e.answer : undefined));
    expect(answers).toEqual([{ action: 'reject', note: 'Keep the notes; write summary.md.' }, { action: 'approve' }]);
  }, 60_000);

  it('steward answer … stop ends the run stopped by you (not failed, not cancelled): nothing is written', async () => {
    const { file, workspace } = confirmingSpec();
    const dataDir = tempDir();
    const runId = runIdOf((await cliWith(['run', file, '--data-dir', dataDir])).stdout);
    const stopped = await cliWith(['answer', runId, 'stop', '--data-dir', dataDir]);
    expect(stopped.code).toBe(EXIT.runNotCompleted);
    expect(stopped.stdout).toMatch(/^stopped by you · 1 round\(s\) · you stopped the run$/m);
    expect(existsSync(join(workspace, 'summary.md'))).toBe(false);
  }, 60_000);

  it('at a terminal it asks with the app\'s answers and what a rejection does: reject, a note, then approve', async () => {
    const { file, workspace } = confirmingSpec();
    const dataDir = tempDir();
    let asked = '';
    const run = await cliWith(['run', file, '--data-dir', dataDir], { line: typing('reject', 'Keep the notes; write summary.md.', 'approve'), stderr: (t) => (asked += t) });
    expect(run.code).toBe(EXIT.ok);
    expect(asked).toContain('answers: approve (Approve and run it) · reject (Reject; let the agent try again) · stop (Stop the run)');
    expect(asked).toContain('reject: Nothing runs; the agent is told why (with your note) and proposes again in its next round. It has 11 rounds left; when they are used up, the run stops (Round limit reached).');
    expect(run.stdout).toContain('told by you: The user rejected your call of write_file');
    expect(readFileSync(join(workspace, 'summary.md'), 'utf8')).toBe('# Summary\n');
  }, 60_000);
});

describe('a workflow step\'s tool call that needs your confirmation, from the command line', () => {
  it('offers approve, decline and stop (no agent can try again); steward answer … decline --note ends the run saying you declined it', async () => {
    const dir = tempDir();
    const file = savingWorkflow(dir);
    const dataDir = join(dir, 'data');
    const run = await cliWith(['run', file, '--input', 'text=hello', '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.waiting);
    const runId = runIdOf(run.stdout);
    expect(run.stdout).toContain(`steward answer ${runId} approve`);
    expect(run.stdout).toContain(`steward answer ${runId} decline`);
    expect(run.stdout).toContain(`steward answer ${runId} stop`);
    expect(run.stdout).not.toContain(`steward answer ${runId} reject`);

    const declined = await cliWith(['answer', runId, 'decline', '--note', 'not today', '--data-dir', dataDir]);
    expect(declined.code).toBe(EXIT.runNotCompleted);
    expect(declined.stdout).toContain('✗ save failed: you declined fs/write_file: not today');
    expect(declined.stdout).toMatch(/^declined by you · 0 round\(s\) · you declined fs\/write_file: not today$/m);
    expect(declined.stdout).not.toContain('not_confirmed');
    expect(existsSync(join(dir, 'saved.md'))).toBe(false);
  }, 60_000);

  it('at a terminal: "Don\'t run it" with why, typed as decline, ends the run as the person decided', async () => {
    const dir = tempDir();
    const file = savingWorkflow(dir);
    let asked = '';
    const typed = typing('decline', 'not today');
    const run = await cliWith(['run', file, '--input', 'text=hello', '--data-dir', join(dir, 'data')], { line: (question) => ((asked += question), typed(question)), stderr: (t) => (asked += t) });
    expect(asked).toContain('answers: approve (Approve and run it) · decline (Don’t run it) · stop (Stop the run)');
    expect(asked).toContain('decline: Nothing runs; this step ends declined, and the run’s outcome says you declined it (with your note).');
    expect(asked).toContain('Your answer (approve / decline / stop): Why you don’t run it (optional, Enter to skip): ');
    expect(run.code).toBe(EXIT.runNotCompleted);
    expect(run.stdout).toMatch(/^declined by you · \d+ node invocation\(s\) · you declined fs\/write_file: not today$/m);
  }, 60_000);
});
