// Prints "N passed, N failed" over vitest's and Playwright's JSON reports (and lint/typecheck as
// one check each when they failed), then exits non-zero if anything failed.
import { existsSync, readFileSync } from 'node:fs';

const [vitestPath, playwrightPath, statusArg] = process.argv.slice(2);
let passed = 0;
let failed = 0;

function read(path) {
  if (!path || !existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

const vitest = read(vitestPath);
if (vitest) {
  passed += vitest.numPassedTests ?? 0;
  failed += (vitest.numFailedTests ?? 0) + (vitest.numFailedTestSuites > 0 && vitest.numFailedTests === 0 ? vitest.numFailedTestSuites : 0);
  console.log(`vitest: ${vitest.numPassedTests} passed, ${vitest.numFailedTests} failed (${vitest.testResults?.length ?? '?'} files)`);
  // The failures by name, with the first line of their message: the log's tail is often all that is kept.
  for (const file of vitest.testResults ?? []) {
    const failures = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    if (failures.length === 0 && file.status === 'failed') console.log(`  failed: ${file.name}: ${String(file.message ?? '').split('\n')[0].slice(0, 300)}`);
    for (const t of failures) console.log(`  failed: ${file.name} › ${t.fullName}: ${String(t.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300)}`);
  }
} else {
  failed += 1;
  console.log('vitest: no report (did not run to the end)');
}

const pw = read(playwrightPath);
if (pw?.stats) {
  const ok = (pw.stats.expected ?? 0) + (pw.stats.flaky ?? 0);
  const bad = (pw.stats.unexpected ?? 0);
  passed += ok;
  failed += bad;
  console.log(`playwright: ${ok} passed, ${bad} failed, ${pw.stats.skipped ?? 0} skipped`);
} else {
  failed += 1;
  console.log('playwright: no report (did not run to the end)');
}

const otherFailure = statusArg !== '0' && failed === 0;
if (otherFailure) failed += 1; // lint or typecheck failed
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
