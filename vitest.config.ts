import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { OWN_PROCESS_FILES } from './test-support/own-process-files.js';

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
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One fork per core (Vitest's default leaves one idle: on CI's two cores, a single fork). Most
    // files wait on servers and subprocesses, not the CPU: 770 s -> 498 s for the suite there.
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongestFirst },
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
    projects: [
      {
        // Every file but those that change their process (test-support/own-process-files.ts) shares a process per worker: the module graph it imports (the host, the
        // MCP SDK, zod contracts, React) is evaluated once per worker, not once per file. Isolated,
        // evaluating it again was 270 s of the suite's time on two cores (the page's files alone:
        // 123 s of imports isolated, 12 s shared, the same 577 tests passing). The files a worker runs
        // share their modules: a file must leave the process and every module as it found them.
        extends: true,
        test: {
          name: 'shared-process',
          include: ['src-shared/**/*.test.ts', 'src-main/**/*.test.ts', 'src-renderer/**/*.test.{ts,tsx}', 'test-support/**/*.test.ts'],
          exclude: OWN_PROCESS_FILES,
          isolate: false,
          setupFiles: ['./test-support/indexeddb-setup.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: OWN_PROCESS_FILES, isolate: true },
      },
    ],
  },
});
