import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { EXAMPLES } from '../../../test-support/workspace';
import { ensureBuilt } from '../../../test-support/ensure-built';
import { readTraceFile, writtenTraceEvents } from '../../../test-support/trace-file';
import { EXIT, runCli } from './cli';

const execFileP = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/steward.mjs', import.meta.url));
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-wf-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The shipped folder-triage example and its sandbox, copied to a temp folder. */
function triageCopy(): { file: string; dir: string; sandbox: string } {
  const dir = tempDir();
  cpSync(join(EXAMPLES, 'folder-triage.workflow.json'), join(dir, 'folder-triage.workflow.json'));
  cpSync(join(EXAMPLES, 'triage-sandbox'), join(dir, 'triage-sandbox'), { recursive: true });
  return { file: join(dir, 'folder-triage.workflow.json'), dir, sandbox: join(dir, 'triage-sandbox') };
}

function workflowFile(dir: string, doc: Record<string, unknown>): string {
  const file = join(dir, 'w.workflow.json');
  writeFileSync(file, JSON.stringify({ format: 'steward/v1', kind: 'workflow', id: 'w', name: 'W', ...doc }));
  return file;
}

async function cli(argv: string[], dataDir = join(tempDir(), 'data')) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

const echo = {
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'name', type: 'text' }, { name: 'count', type: 'number' }, { name: 'tags', type: 'list' }] },
    { id: 'say', kind: 'template', inputs: [{ name: 'name', type: 'text' }, { name: 'count', type: 'number' }, { name: 'tags', type: 'list' }], template: '{{name}} × {{count}} #{{tags.0}}' },
    { id: 'check', kind: 'assert', checks: [{ check: 'contains', text: '#a' }] },
    { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'any' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'name' }, to: { node: 'say', port: 'name' } },
    { from: { node: 'in', port: 'count' }, to: { node: 'say', port: 'count' } },
    { from: { node: 'in', port: 'tags' }, to: { node: 'say', port: 'tags' } },
    { from: { node: 'say', port: 'output' }, to: { node: 'check', port: 'value' } },
    { from: { node: 'check', port: 'value' }, to: { node: 'out', port: 'said' } },
  ],
};

describe('steward run WORKFLOW', () => {
  it('runs the shipped folder triage: a progress line per node invocation, the outputs, the reviewed report on disk', async () => {
    const { file, sandbox } = triageCopy();
    const { code, stdout, stderr } = await cli(['run', file]);
    expect(stderr).toBe('');
    expect(code).toBe(EXIT.ok);
    // Named and numbered from 1 as the app's nodes list shows them (the node's label, else its id).
    expect(stdout).toContain('  ▸ Read the file · item 3 running');
    expect(stdout).toContain('  ✓ classify · item 5 done');
    expect(stdout).toContain('  ✓ Write the report (reviewed) done');
    expect(stdout).toMatch(/^completed · \d+ node invocation\(s\)$/m);
    expect(readFileSync(join(sandbox, 'triage-report.md'), 'utf8')).toContain('# Folder triage');
  });

  it('--json prints the workflow run: status, outputs, every invocation with its lineage; --trace holds every event of one journal', async () => {
    const { file, dir } = triageCopy();
    const trace = join(dir, 'trace.jsonl');
    const { code, stdout } = await cli(['run', file, '--json', '--trace', trace]);
    expect(code).toBe(EXIT.ok);
    const run = JSON.parse(stdout) as { status: string; outputs: Record<string, unknown>; invocations: Array<{ id: string; lineage: unknown[]; status: string }>; checkpoint?: unknown };
    expect(run.status).toBe('completed');
    expect(Object.keys(run.outputs).sort()).toEqual(['files', 'report', 'written']);
    expect(run.invocations.find((i) => i.id === 'read[each-file=3]')).toMatchObject({ lineage: [{ iterate: 'each-file', index: 3 }], status: 'done' });
    expect(run.checkpoint).toBeUndefined();
    const events = readTraceFile(trace);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events[0]?.type).toBe('workflow.started');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', event_count: events.length });
  });

  it('--input values: text for a text field, JSON otherwise; --inputs from a file, --input wins', async () => {
    const dir = tempDir();
    const file = workflowFile(dir, echo);
    const inputs = join(dir, 'inputs.json');
    writeFileSync(inputs, JSON.stringify({ name: 'from file', count: 1, tags: ['z'] }));
    const { code, stdout } = await cli(['run', file, '--inputs', inputs, '--input', 'name=3', '--input', 'count=2', '--input', 'tags=["a"]', '--json']);
    expect(code).toBe(EXIT.ok);
    expect((JSON.parse(stdout) as { outputs: unknown }).outputs).toEqual({ said: '3 × 2 #a' });
  });

  it('a "__proto__" key in --inputs or --input is an undeclared input, never a prototype that answers for a required one (issue 27)', async () => {
    const dir = tempDir();
    const file = workflowFile(dir, echo);
    const inputs = join(dir, 'inputs.json');
    // JSON.parse makes "__proto__" an own key, as a person's file holds it.
    writeFileSync(inputs, '{"__proto__": {"name": "from the prototype", "count": 1, "tags": ["z"]}}');
    const fromFile = await cli(['run', file, '--inputs', inputs, '--json']);
    expect(fromFile.code).toBe(EXIT.badInput);
    expect(fromFile.stdout).not.toContain('from the prototype');
    expect(fromFile.stderr).toMatch(/__proto__|input name is required/);
    const fromFlag = await cli(['run', file, '--input', '__proto__={"name":"p","count":1,"tags":["z"]}', '--json']);
    expect(fromFlag.code).toBe(EXIT.badInput);
  });

  it('a failed check prints its node and reason and exits 1', async () => {
    const dir = tempDir();
    const { code, stdout } = await cli(['run', workflowFile(dir, echo), '--input', 'name=x', '--input', 'count=1', '--input', 'tags=["b"]']);
    expect(code).toBe(EXIT.runNotCompleted);
    expect(stdout).toMatch(/ {2}✗ check failed: .*#a/);
    expect(stdout).toMatch(/^failed · /m);
  });

  it('bad input exits 2 before anything runs: a graph problem, a missing input, a malformed --input, --phase on a workflow', async () => {
    const dir = tempDir();
    const broken = workflowFile(dir, { ...echo, edges: echo.edges.filter((e) => e.to.port !== 'count') });
    const problem = await cli(['run', broken, '--input', 'name=x', '--input', 'count=1', '--input', 'tags=[]']);
    expect(problem.code).toBe(EXIT.badInput);
    expect(problem.stderr).toMatch(/count/);
    expect(problem.stdout).not.toMatch(/running/);
    const file = workflowFile(dir, echo);
    expect((await cli(['run', file, '--input', 'name=x'])).stderr).toMatch(/input count is required/);
    expect((await cli(['run', file, '--input', 'nokey'])).code).toBe(EXIT.badInput);
    expect((await cli(['run', file, '--phase', '2'])).code).toBe(EXIT.badInput);
  });

  it('a protected tool with no teacher runs only once confirmed: --yes, or an answer to the run that waits for it; --no-confirm declines it, said as the person\'s decision', async () => {
    const dir = tempDir();
    const file = workflowFile(dir, {
      workspace: '.',
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
        { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: join(dir, 'saved.md'), content: '{{text}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'text' }, to: { node: 'save', port: 'text' } },
        { from: { node: 'save', port: 'text' }, to: { node: 'out', port: 'said' } },
      ],
    });
    const data = join(dir, 'data');
    const declined = await cli(['run', file, '--input', 'text=hello', '--no-confirm'], data);
    expect(declined.code).toBe(EXIT.runNotCompleted);
    expect(declined.stdout).toContain('✗ save failed: you declined fs/write_file');
    expect(declined.stdout).toMatch(/^declined by you · \d+ node invocation\(s\) · you declined fs\/write_file$/m);
    expect(existsSync(join(dir, 'saved.md'))).toBe(false);
    // --json says it too: the person's decision has its own status, not `failed` (issue 28); still exit 1 (not completed).
    const declinedJson = await cli(['run', file, '--input', 'text=hello', '--no-confirm', '--json'], data);
    expect(declinedJson.code).toBe(EXIT.runNotCompleted);
    expect((JSON.parse(declinedJson.stdout) as { status: string }).status).toBe('declined');
    // Nobody to ask here: the confirmation waits in the data folder, as an escalation does (issue 22).
    const waits = await cli(['run', file, '--input', 'text=hello'], data);
    expect(waits.code).toBe(EXIT.waiting);
    const runId = /the run (\S+) waits for you/.exec(waits.stdout)?.[1] ?? '';
    expect(waits.stdout).toContain(`steward answer ${runId} approve`);
    expect(existsSync(join(dir, 'saved.md'))).toBe(false);
    const answered = await cli(['answer', runId, 'approve', '--data-dir', data], data);
    expect(answered.code).toBe(EXIT.ok);
    expect(readFileSync(join(dir, 'saved.md'), 'utf8')).toBe('hello');
    const confirmed = await cli(['run', file, '--input', 'text=hello', '--yes'], data);
    expect(confirmed.code).toBe(EXIT.ok);
    expect(readFileSync(join(dir, 'saved.md'), 'utf8')).toBe('hello');
  });

  it('agent specs still run as before, and --input is refused for them', async () => {
    const dir = tempDir();
    cpSync(join(EXAMPLES, 'notes-sandbox'), join(dir, 'notes-sandbox'), { recursive: true });
    const spec = JSON.parse(readFileSync(join(EXAMPLES, 'notes-assistant.json'), 'utf8')) as Record<string, unknown>;
    delete spec.script_file;
    spec.script = { ...(JSON.parse(readFileSync(join(EXAMPLES, 'notes-assistant.script.json'), 'utf8')) as object), latency_ms: 0 };
    const file = join(dir, 'notes-assistant.json');
    writeFileSync(file, JSON.stringify(spec));
    expect((await cli(['run', file, '--input', 'a=1'])).code).toBe(EXIT.badInput);
    const { code, stdout } = await cli(['run', file, '--json']);
    expect(code).toBe(EXIT.ok);
    expect((JSON.parse(stdout) as { status: string; rounds: unknown[] }).rounds.length).toBeGreaterThan(0);
  });
});

describe('the steward binary', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('runs a workflow file end to end in a separate process', async () => {
    const { file, dir, sandbox } = triageCopy();
    const { stdout } = await execFileP(process.execPath, [BIN, 'run', file, '--json'], { env: { ...process.env, STEWARD_DATA_DIR: join(dir, 'data') } });
    expect((JSON.parse(stdout) as { status: string }).status).toBe('completed');
    expect(existsSync(join(sandbox, 'triage-report.md'))).toBe(true);
  });

  it('Ctrl+C cancels a workflow: every running invocation ends, the trace closes cancelled, exit 1', async () => {
    const dir = tempDir();
    const file = workflowFile(dir, {
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
        { id: 'slow', kind: 'agent', instructions: 'Think.', task: 'Think about {{topic}}.', inputs: [{ name: 'topic', type: 'text' }], servers: [], script: { student: [{ json: { decision_type: 'complete', output: 'done' }, delay_ms: 60_000 }] } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'topic' }, to: { node: 'slow', port: 'topic' } },
        { from: { node: 'slow', port: 'output' }, to: { node: 'out', port: 'said' } },
      ],
    });
    const trace = join(dir, 'trace.jsonl');
    const child = spawn(process.execPath, [BIN, 'run', file, '--input', 'topic=x', '--trace', trace], { env: { ...process.env, STEWARD_DATA_DIR: join(dir, 'data') }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines = () => (existsSync(trace) ? readFileSync(trace, 'utf8').split('\n').filter(Boolean) : []);
    await expect.poll(() => lines().some((l) => l.includes('"type":"agent.started"')), { timeout: 20_000 }).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(EXIT.runNotCompleted);
    const events = writtenTraceEvents(lines().join('\n'));
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
    const last = new Map(events.flatMap((e) => (e.type === 'node.invocation' ? [[e.invocation_id, e.status] as const] : [])));
    expect([...last.values()].filter((s) => s === 'running' || s === 'pending')).toEqual([]);
  });
});
