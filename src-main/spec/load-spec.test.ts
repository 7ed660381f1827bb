import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadSpecFile } from './load-spec';
import { findJsonSyntaxError } from '@shared/util/json-syntax';
import { SpecError } from './spec-errors';

const PLANTED = 'sk-live-PLANTED0123456789abcdef';
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-spec-'));
  dirs.push(dir);
  return dir;
}

const SPEC = { format: 'steward/v1', kind: 'agent', id: 'probe', name: 'Probe', instructions: 'x', task: 'y' };

function errorOf(run: () => unknown): SpecError {
  try {
    run();
  } catch (err) {
    if (err instanceof SpecError) return err;
    throw err;
  }
  throw new Error('expected a SpecError');
}

describe('errors about a file never quote its contents', () => {
  it('a script_file that is not JSON is reported by file, line and column, without its text', () => {
    const dir = folder();
    writeFileSync(join(dir, 'secrets.env'), `# tokens\nOPENAI_API_KEY=${PLANTED}\n`);
    writeFileSync(join(dir, 'spec.json'), JSON.stringify({ ...SPEC, script_file: 'secrets.env' }));
    const err = errorOf(() => loadSpecFile(join(dir, 'spec.json')));
    expect(err.message).toContain('secrets.env');
    expect(err.message).toMatch(/line 1, column 1/);
    expect(err.message).not.toContain(PLANTED);
    expect(err.message).not.toContain('OPENAI_API_KEY');
  });

  it('a JSON script_file whose keys and values are secrets is refused without naming them', () => {
    const dir = folder();
    writeFileSync(join(dir, 'hosts.json'), JSON.stringify({ token: PLANTED, [PLANTED]: { user: 'me' } }));
    writeFileSync(join(dir, 'spec.json'), JSON.stringify({ ...SPEC, script_file: 'hosts.json' }));
    const err = errorOf(() => loadSpecFile(join(dir, 'spec.json')));
    expect(err.message).toContain('hosts.json');
    expect(err.message).not.toContain(PLANTED);
  });

  it('a spec file with a syntax error after a planted secret says where, not what', () => {
    const dir = folder();
    writeFileSync(join(dir, 'spec.json'), `{\n  "format": "steward/v1",\n  "task": ${PLANTED}\n}`);
    const err = errorOf(() => loadSpecFile(join(dir, 'spec.json')));
    expect(err.message).toMatch(/line 3, column 11/);
    expect(err.message).not.toContain(PLANTED);
  });

  it('the syntax locator agrees with JSON.parse on whether any text is valid JSON', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string(), fc.json().map((j) => j.slice(0, -1))), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(findJsonSyntaxError(text) === undefined).toBe(valid);
      }),
      { numRuns: 500 },
    );
  });
});
