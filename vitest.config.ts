import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's longest files start first. On a clean clone Vitest has no timings cached and orders
 * files by size, so these (small files that run external suites and hosts for minutes) started last
 * and ran alone at the end: the 2026-07-28 conformance scenarios, the 0.1.16 ones, the SIGKILL storm.
 */
const LONGEST_FIRST = [/conformance-2026\.test/, /conformance-suite\.test/, /history-faults\.test/, /run-into-history\.test/, /mcp-tool-host\.test/, /host-replay\.test/, /machine\.paths\.test/];
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const at = LONGEST_FIRST.findIndex((re) => re.test(file.moduleId));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

const jsonReport = process.env.STEWARD_VITEST_JSON;

export default defineConfig({
  resolve: { alias: { '@shared': fileURLToPath(new URL('./src-shared', import.meta.url)) } },
  test: {
    include: ['src-shared/**/*.test.ts', 'src-main/**/*.test.ts', 'src-renderer/**/*.test.{ts,tsx}', 'test-support/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One fork per core (Vitest's default leaves one idle: on CI's two cores, a single fork). Most
    // files wait on servers and subprocesses, not the CPU: 770 s -> 498 s for the suite there.
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongestFirst },
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
