import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
