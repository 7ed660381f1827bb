import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSpecFile, parseWorkflow } from './load-spec';
import { SpecError } from './spec-errors';

const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);
const TOO_DEEP = /JSON nested deeper than \d+ levels/;
const SPEC = { format: 'steward/v1', kind: 'agent', id: 'probe', name: 'Probe', instructions: 'x', task: 'y' };
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-deep-'));
  dirs.push(dir);
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

function failure(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('a spec or replay script nested 100,000 levels deep is a clear spec error, never a stack overflow', () => {
  it('a spec file', () => {
    const err = failure(() => loadSpecFile(file('spec.json', `{"format":"steward/v1","script":{"student":[{"json":${DEEP}}]}}`)));
    expect(err).toBeInstanceOf(SpecError);
    expect((err as Error).message).toMatch(TOO_DEEP);
  });

  it('a replay script file', () => {
    const path = file('s.script.json', `{"student":[{"json":${DEEP}}]}`);
    const err = failure(() => loadSpecFile(file('spec.json', JSON.stringify({ ...SPEC, script_file: path }))));
    expect(err).toBeInstanceOf(SpecError);
    expect((err as Error).message).toMatch(TOO_DEEP);
  });

  it('a spec document handed over by the app', () => {
    const err = failure(() => parseWorkflow({ ...SPEC, script: { student: [{ json: JSON.parse(DEEP) as unknown }] } }, 'the spec'));
    expect(err).toBeInstanceOf(SpecError);
    expect((err as Error).message).toMatch(TOO_DEEP);
  });
});
