import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunResult } from '@shared/contracts/run-result';
import { runCli, EXIT } from './cli';
import { EXAMPLES, tempNotesWorkspace } from '../../../test-support/workspace';
import { ensureBuilt } from '../../../test-support/ensure-built';
import { readTraceFile, writtenTraceEvents } from '../../../test-support/trace-file';

const execFileP = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/steward.mjs', import.meta.url));
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** A copy of an example spec (and its sandbox) in a temp folder, so runs never touch the repo. */
function exampleCopy(name: string, edit?: (spec: Record<string, unknown>) => void): { file: string; dir: string; workspace: string } {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = JSON.parse(readFileSync(join(EXAMPLES, name), 'utf8')) as Record<string, unknown>;
  if (typeof spec.script_file === 'string') {
    const script = JSON.parse(readFileSync(join(EXAMPLES, spec.script_file), 'utf8')) as Record<string, unknown>;
    delete spec.script_file;
    spec.script = { ...script, latency_ms: 0 };
  }
  edit?.(spec);
  const file = join(ws.dir, name);
  writeFileSync(file, JSON.stringify(spec));
  return { file, dir: ws.dir, workspace: ws.workspace };
}

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { STEWARD_DATA_DIR: join(cleanupDir(), 'data') },
  });
  return { code, stdout, stderr };
}

function cleanupDir(): string {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  return ws.dir;
}

describe('steward run', () => {
  it('--json prints status, output, the canonical history, every round and every execution', async () => {
    const { file, workspace } = exampleCopy('notes-assistant.json');
    const { code, stdout, stderr } = await cli(['run', file, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(EXIT.ok);
    const result = RunResult.parse(JSON.parse(stdout));
    expect(result.status).toBe('completed');
    expect(result.output).toMatch(/summary\.md/);
    // history holds selected decisions only: the teacher's write to summary.md, not the student's.
    const writes = result.history.flatMap((h) => (h.decision.decision_type === 'tool_call' && h.decision.tool_name === 'write_file' ? [h.decision.arguments.path] : []));
    expect(writes).toEqual([join(workspace, 'summary.md')]);
    const reviewed = result.rounds[2];
    expect(reviewed?.candidate.parsed?.raw).toMatchObject({ tool_name: 'write_file', arguments: { path: join(workspace, 'meeting-notes.md') } });
    expect(reviewed?.validation?.ok).toBe(true);
    expect(reviewed?.review?.rule).toBe('protected_effect');
    expect(reviewed?.verdicts[0]?.verdict?.verdict).toBe('replace');
    expect(reviewed?.verdict).toMatchObject({ verdict: 'replace', reason_codes: ['unsafe_effect', 'policy_violation'] });
    expect(reviewed?.selected?.source).toBe('teacher');
    expect(reviewed?.outcome).toBe('executed');
    expect(result.executions).toHaveLength(3);
    for (const e of result.executions) {
      expect(e.server).toBe('fs');
      expect(e.idempotency_key).toMatch(/^[0-9a-f]{64}$/);
      expect(e.ok).toBe(true);
    }
  });

  it('--trace writes every event as one JSON line, complete and in order', async () => {
    const { file, dir } = exampleCopy('notes-assistant.json');
    const trace = join(dir, 'out', 'trace.jsonl');
    const { code, stdout } = await cli(['run', file, '--trace', trace]);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/round 3 .*write_file/);
    expect(stdout).toMatch(/teacher replace \[unsafe_effect, policy_violation\]/);
    const events = readTraceFile(trace);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    const last = events.at(-1);
    expect(last?.type === 'run.finished' && last.event_count).toBe(events.length);
  });

  it('a run that ends blocked exits 1 and says why', async () => {
    const { file } = exampleCopy('guarded-writes.json');
    const { code, stdout } = await cli(['run', file]);
    expect(code).toBe(EXIT.runNotCompleted);
    expect(stdout).toMatch(/blocked/);
    expect(stdout).toMatch(/I could not complete this safely/);
  });
});

describe('steward run --scs', () => {
  it('prints compact SCS lines and a status line, and --json carries the SCS record', async () => {
    const { file } = exampleCopy('scs-summary.json', (s) => {
      (s.script as { latency_ms: number }).latency_ms = 0;
    });
    const text = await cli(['run', file]);
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout).toMatch(/scs committee drafted phase plan/);
    expect(text.stdout).toMatch(/scs student approved plan confidence=0\.82/);
    expect(text.stdout).toMatch(/scs student rejected finish: The read failed/);
    expect(text.stdout).toMatch(/^scs=on mode=on model=replay phase=1 decision=finish_allowed status=finished$/m);

    const json = await cli(['run', file, '--json']);
    const result = RunResult.parse(JSON.parse(json.stdout));
    expect(result.scs).toMatchObject({ mode: 'on', active: true, status: 'finished', plan: { allowed_tools: ['list_directory', 'read_text_file', 'write_file'] } });
  });

  it('--scs off runs the same spec without SCS; a bad mode is bad input', async () => {
    const { file } = exampleCopy('scs-summary.json', (s) => {
      (s.script as { latency_ms: number }).latency_ms = 0;
    });
    const off = await cli(['run', file, '--scs', 'off', '--json']);
    expect(RunResult.parse(JSON.parse(off.stdout)).scs).toBeUndefined();
    const bad = await cli(['run', file, '--scs', 'sometimes']);
    expect(bad.code).toBe(EXIT.badInput);
    expect(bad.stderr).toMatch(/--scs takes on, off or auto/);
  });
});

describe('bad input gets exit code 2 and one clear message', () => {
  it('an unreadable file', async () => {
    const { code, stderr } = await cli(['run', '/no/such/spec.json']);
    expect(code).toBe(EXIT.badInput);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/spec file not found: \/no\/such\/spec\.json/);
    // A folder typed for a file is said in words, not as the system's EISDIR.
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const folder = await cli(['run', `${ws.dir}/`]);
    expect(folder.code).toBe(EXIT.badInput);
    expect(folder.stderr).toMatch(/^steward: cannot read spec file .*: it is a folder, not a file\n$/);
  });

  it('an invalid spec names the field', async () => {
    const { file } = exampleCopy('notes-assistant.json', (s) => {
      s.supervision = { phase: 9 };
    });
    const { code, stderr } = await cli(['run', file]);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/supervision\.phase/);
  });

  it('an allowlisted tool the server does not have', async () => {
    const { file } = exampleCopy('notes-assistant.json', (s) => {
      (s.servers as Array<Record<string, unknown>>)[0]!.tools = ['read_text_file', 'launch_rockets'];
    });
    const { code, stderr } = await cli(['run', file]);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/launch_rockets/);
  });

  it('a server that will not start', async () => {
    const { file } = exampleCopy('notes-assistant.json', (s) => {
      s.servers = [{ id: 'ghost', command: '/nonexistent/mcp-server' }];
    });
    const { code, stderr } = await cli(['run', file]);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/MCP server "ghost" did not start/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an unknown command or a missing file argument', async () => {
    expect((await cli(['fly'])).code).toBe(EXIT.badInput);
    const missing = await cli(['run']);
    expect(missing.code).toBe(EXIT.badInput);
    expect(missing.stderr).toMatch(/run needs exactly one spec FILE/);
  });
});

describe('steward validate', () => {
  it('lists the tools with their effect class and says valid', async () => {
    const { file } = exampleCopy('notes-assistant.json');
    const { code, stdout } = await cli(['validate', file]);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/tool fs\/write_file: Irreversible write \(Steward’s shipped default\)/);
    expect(stdout).toMatch(/valid: /);
  });

  it('reports an unknown variable as invalid', async () => {
    const { file } = exampleCopy('notes-assistant.json', (s) => {
      s.task = 'Summarise ${nowhere}';
    });
    const { code, stderr } = await cli(['validate', file]);
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toMatch(/unknown variable \$\{nowhere\}/);
  });
});

describe('the installed command (bin/steward.mjs over the built bundle)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('runs the demo spec end to end in a separate process', async () => {
    const { file, dir } = exampleCopy('notes-assistant.json');
    const { stdout } = await execFileP(process.execPath, [BIN, 'run', file, '--json'], { env: { ...process.env, STEWARD_DATA_DIR: join(dir, 'data') } });
    expect(RunResult.parse(JSON.parse(stdout)).status).toBe('completed');
    // The run is in the data folder's history database, its tool calls in the ledger there.
    const history = new Database(join(dir, 'data', 'history.sqlite'), { readonly: true });
    expect((history.prepare('SELECT count(*) AS c FROM runs').get() as { c: number }).c).toBe(1);
    expect((history.prepare("SELECT count(*) AS c FROM ledger WHERE state = 'executed'").get() as { c: number }).c).toBeGreaterThan(0);
    history.close();
  });

  it('a killed run keeps a valid trace up to the kill; Ctrl+C ends the run cancelled with its trace closed', async () => {
    for (const signal of ['SIGKILL', 'SIGINT'] as const) {
      const { file, dir } = exampleCopy('notes-assistant.json', (s) => {
        (s.script as { latency_ms: number }).latency_ms = 400;
      });
      const trace = join(dir, 'trace.jsonl');
      const child = spawn(process.execPath, [BIN, 'run', file, '--trace', trace], { env: { ...process.env, STEWARD_DATA_DIR: join(dir, 'data') }, stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const lines = () => (existsSync(trace) ? readFileSync(trace, 'utf8').split('\n').filter(Boolean) : []);
      await expect.poll(() => lines().some((l) => l.includes('"type":"round.completed"')), { timeout: 20_000 }).toBe(true);
      child.kill(signal);
      const code = await exited;
      const events = writtenTraceEvents(lines().join('\n'));
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      if (signal === 'SIGKILL') {
        expect(events.some((e) => e.type === 'run.finished')).toBe(false);
      } else {
        expect(code).toBe(1);
        expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
      }
      // Killed or cancelled before the reviewed write: the original notes are intact.
      expect(readFileSync(join(dir, 'notes-sandbox', 'meeting-notes.md'), 'utf8')).toContain('Team sync');
    }
  });

  it('a reader that goes away early (steward runs list | head -1) ends nothing: a run still completes and is recorded, and no stack trace is printed', async () => {
    const { file, dir } = exampleCopy('notes-assistant.json');
    const env = { ...process.env, STEWARD_DATA_DIR: join(dir, 'data') };
    /** The bin with its standard output's reading end closed at once, as `| head -1` closes it. */
    const closedEarly = (argv: string[]) => {
      const child = spawn(process.execPath, [BIN, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('close', (code) => resolve({ code, stderr })));
    };
    const ran = await closedEarly(['run', file]);
    expect(ran).toEqual({ code: EXIT.ok, stderr: expect.not.stringMatching(/EPIPE|Error|at /) as unknown as string });
    const listed = await closedEarly(['runs', 'list']);
    expect(listed).toEqual({ code: EXIT.ok, stderr: '' });
    // The run went on to its end though nobody read what it printed.
    const { stdout } = await execFileP(process.execPath, [BIN, 'runs', 'list'], { env });
    expect(stdout).toMatch(/Completed\s+Notes assistant/);
  });

  it('exits 2 with one line on stderr for an unreadable file', async () => {
    const err = await execFileP(process.execPath, [BIN, 'run', '/no/such.json']).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(2);
    expect((err as { stderr: string }).stderr.trim().split('\n')).toHaveLength(1);
  });
});
