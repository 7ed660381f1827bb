import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import { boundaryInputs, FUZZ_RUNS } from '../../test-support/fuzz-arbitraries';
import { loadSpecFile, parseWorkflow } from './load-spec';
import { SpecError } from './spec-errors';

const SPEC = {
  format: 'steward/v1',
  kind: 'agent',
  id: 'probe',
  name: 'Probe',
  instructions: 'Work in ${workspace}.',
  task: 'Summarise.',
  workspace: 'notes',
  servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file'] }],
  tool_effects: { 'fs/write_file': { effect: 'reversible_write', sensitive_arguments: ['content'] } },
  supervision: { phase: 2 },
  script: { student: [{ json: { decision_type: 'complete', output: 'ok' } }], teacher: [] },
};

const dir = mkdtempSync(join(tmpdir(), 'steward-fuzz-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A spec either loads or fails with a SpecError (a message for the person) — nothing else escapes. */
function loadsOrSpecError(run: () => unknown): void {
  try {
    run();
  } catch (err) {
    expect(err, err instanceof Error ? err.stack : String(err)).toBeInstanceOf(SpecError);
  }
}

describe('spec files under arbitrary input (property)', () => {
  it('any document handed over is a spec or a SpecError', () => {
    fc.assert(
      fc.property(boundaryInputs([SPEC]), (input) => {
        loadsOrSpecError(() => {
          const spec = parseWorkflow(input, 'the spec');
          expect(AgentSpec.safeParse(spec).success).toBe(true);
        });
      }),
      FUZZ_RUNS,
    );
  });

  it('any file text (JSON of a mutated spec, cut off, or anything) loads or is a SpecError', () => {
    const json = boundaryInputs([SPEC]).map((v) => JSON.stringify(v) ?? '');
    const texts = fc.oneof(json, fc.tuple(json, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))), fc.string(), fc.string({ unit: 'binary' }));
    let n = 0;
    fc.assert(
      fc.property(texts, (text) => {
        const path = join(dir, `spec-${(n += 1)}.json`);
        writeFileSync(path, text);
        loadsOrSpecError(() => loadSpecFile(path));
      }),
      FUZZ_RUNS,
    );
  });
});
