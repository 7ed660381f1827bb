import { defineConfig } from '@playwright/test';

const jsonReport = process.env.STEWARD_PLAYWRIGHT_JSON;

/**
 * The files that take longest on CI's two cores (up to 3–6.5 min of one worker each: seeding 10,000
 * runs, whole journeys with restarts, accessibility scans in two themes), in a project of their own
 * listed first, so they start while the other workers take the short files. Where alphabetical order
 * put them they started late and could set when the suite ended.
 */
const LONGEST = ['accessibility.spec.ts', 'own-workflow.spec.ts', 'runs-scale.spec.ts', 'supervision.spec.ts'];

/** Headless Debian Chromium (Playwright cannot download its own browser here). */
export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  // A safety net, not a timing claim: on three workers sharing two cores the longest scenarios (the
  // accessibility scans of a state in two themes) took up to 83 s.
  timeout: 150_000,
  expect: { timeout: 20_000 },
  // Files run side by side (each test file owns its data folder, host process and ephemeral
  // ports); the tests inside a file keep their order. Three workers on CI's two cores: a test spends
  // most of its time waiting on its host, its MCP servers and the page (1665 s of tests took 937 s
  // on two workers), so a third keeps the cores busy.
  fullyParallel: false,
  workers: Number(process.env.STEWARD_E2E_WORKERS ?? 3),
  retries: 0,
  reporter: jsonReport ? [['list'], ['json', { outputFile: jsonReport }]] : [['list']],
  projects: [
    { name: 'longest', testMatch: LONGEST },
    { name: 'e2e', testIgnore: LONGEST },
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1360, height: 900 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.STEWARD_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
