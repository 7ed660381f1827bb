import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MASK } from '@shared/util/mask';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { ensureBuilt } from '../../../test-support/ensure-built';
import { tempFolder } from '../../../test-support/temp-folder';
import { readTraceFile } from '../../../test-support/trace-file';
import { filesHoldingPlanted, MASKED_WRITE, pinGraph, plantedIn, plantedPins } from '../../../test-support/sensitive-input-workflow';

/**
 * Issue 27: `steward run WF --input pin=…` where the PIN flows (through a template) into a sensitive
 * argument. The real `steward` process and the real filesystem server: the tool gets the value, and
 * no trace, history row, `--json`, `runs show`, search or OTLP file holds it.
 */
const execFileP = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/steward.mjs', import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function steward(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [BIN, ...args], { env: { ...process.env, STEWARD_DATA_DIR: dataDir }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('steward run with a sensitive input (a separate process)', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('the tool gets the PIN; the trace, history, --json, runs show, search and OTLP never hold it', async () => {
    const dir = tempFolder('steward-pin-cli-', cleanups);
    const dataDir = join(dir, 'data');
    mkdirSync(join(dir, 'box'));
    const file = join(dir, 'pin.workflow.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...pinGraph('pin-setter'),
        workspace: 'box',
        servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'], tools: ['write_file'] }],
        tool_effects: { 'fs/write_file': MASKED_WRITE },
      }),
    );
    const pins = plantedPins();
    const trace = join(dir, 'trace.jsonl');

    const run = await steward(['run', file, '--input', `pin=${pins.pin}`, '--input', `code=${pins.code}`, '--input', `owner=${pins.owner}`, '--yes', '--json', '--trace', trace], dataDir);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { run_id: string; status: string; outputs: Record<string, unknown> };
    expect(result.status).toBe('completed');
    // The call itself had the real values.
    expect(readFileSync(join(dir, 'box', `card-${pins.owner}.txt`), 'utf8')).toBe(`PIN ${pins.pin} / code ${pins.code}`);
    // What is not sensitive stays readable: the owner names the file, in the output too.
    expect(result.outputs.note).toContain(pins.owner);

    expect(plantedIn(run.stdout + run.stderr, pins), 'steward run --json').toEqual([]);
    const traceText = readFileSync(trace, 'utf8');
    expect(plantedIn(traceText, pins), '--trace').toEqual([]);
    // Masked where it entered: the run's inputs, the input node's outputs, the tool node's running inputs.
    const events = readTraceFile(trace);
    const started = events.find((e) => e.type === 'workflow.started');
    expect(started?.type === 'workflow.started' && started.inputs).toEqual({ pin: MASK, code: MASK, owner: pins.owner });
    const invocation = (node: string, status: string) => events.find((e) => e.type === 'node.invocation' && e.node === node && e.status === status);
    expect(invocation('in', 'done')).toMatchObject({ outputs: { pin: MASK, code: MASK, owner: pins.owner } });
    expect(invocation('set', 'running')).toMatchObject({ inputs: { card: MASK, owner: pins.owner } });

    const show = await steward(['runs', 'show', result.run_id, '--json'], dataDir);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(result.run_id);
    expect(plantedIn(show.stdout, pins), 'steward runs show --json').toEqual([]);
    const search = await steward(['runs', 'search', pins.pin, '--json'], dataDir);
    expect(search.stdout).not.toContain(result.run_id);
    const otlp = join(dir, 'otlp.json');
    const exported = await steward(['trace', 'otlp', trace, '-o', otlp], dataDir);
    expect(exported.code, exported.stderr).toBe(0);
    expect(plantedIn(readFileSync(otlp, 'utf8'), pins), 'OTLP').toEqual([]);
    // history.sqlite (its WAL too) and everything else the run left in the data folder.
    expect(filesHoldingPlanted(dataDir, pins)).toEqual([]);
  }, 120_000);
});
