import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against Steward as a
 * person uses it (steward-cli-client.ts): the scenario's server in a workflow file, then `steward
 * mcp sign-in` (auth scenarios) and `steward run` with no terminal, every client scenario the suite
 * lists, one at a time (its timing checks need a quiet machine more than a parallel one). A scenario
 * Steward cannot pass is in expected-failures.yml with the reason, and docs/mcp.md names it; the
 * suite itself fails the scenario when such an entry starts passing, so the list cannot go stale.
 *
 * The client is bundled once (esbuild) so that each scenario starts plain Node, not a TypeScript
 * loader. Sign-ins and registered clients' secrets go to the real OS keychain (Secret Service under
 * D-Bus, as CI runs every test) under a service of this file's own.
 */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));
const SUITE = `${ROOT}node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const BUNDLE = `${ROOT}node_modules/.cache/steward-conformance/steward-cli-client.mjs`;
const SERVICE = `steward-conformance-${randomBytes(6).toString('hex')}`;

function suite(args: string[], timeoutMs: number) {
  return spawnSync(process.execPath, ['--import', `${HERE}node20-register.mjs`, SUITE, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, STEWARD_CONFORMANCE_KEYCHAIN_SERVICE: SERVICE },
  });
}

/** The client scenarios, as the installed suite lists them. */
function clientScenarios(): string[] {
  const listed = suite(['list'], 60_000).stdout;
  const section = listed.slice(listed.indexOf('Client scenarios'));
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] as string);
}

const scenarios = clientScenarios();

beforeAll(async () => {
  mkdirSync(`${ROOT}node_modules/.cache/steward-conformance`, { recursive: true });
  await build({
    entryPoints: [`${HERE}steward-cli-client.ts`],
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    alias: { '@shared': `${ROOT}src-shared` },
    logLevel: 'warning',
  });
}, 60_000);

describe('the MCP conformance suite, client scenarios, against Steward’s client', () => {
  it('lists the client scenarios this file runs', () => {
    expect(scenarios).toContain('initialize');
    expect(scenarios).toContain('auth/metadata-default');
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
  });

  it.each(scenarios)('%s passes (or is a named expected failure)', (scenario) => {
    const run = suite(['client', '--command', `node ${BUNDLE}`, '--scenario', scenario, '--timeout', '60000', '--expected-failures', `${HERE}expected-failures.yml`], 120_000);
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output.slice(-4000)).toBe(0);
  }, 150_000);
});
