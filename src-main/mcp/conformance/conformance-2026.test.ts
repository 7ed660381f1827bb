import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * MCP 2026-07-28 as the conformance suite's pre-release (0.2.0-alpha.12, installed as
 * `mcp-conformance-next`) requires it of a client: `list --requirements 2026-07-28` names the frozen
 * client scenarios (and the extensions it runs without scoring); each runs at the 2026-07-28 wire
 * against Steward as a person uses it (steward-cli-client.ts: sign-in, `steward run` with no
 * terminal), two at a time. A scenario Steward cannot pass is in expected-failures-2026-07-28.yml
 * with the reason (docs/mcp.md names them); the suite fails a listed scenario that starts passing.
 *
 * The suite needs Node 22's `fs.globSync`; node20-register.mjs supplies it on Node 20.
 */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));
const SUITE = `${ROOT}node_modules/mcp-conformance-next/dist/index.js`;
const BUNDLE = `${ROOT}node_modules/.cache/steward-conformance/steward-cli-client-2026.mjs`;
const SERVICE = `steward-conformance-${randomBytes(6).toString('hex')}`;
const REVISION = '2026-07-28';
const AT_ONCE = 2;

function listed(): { required: string[]; unscored: string[] } {
  const run = spawnSync(process.execPath, ['--import', `${HERE}node20-register.mjs`, SUITE, 'list', '--requirements', REVISION], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const text = run.stdout;
  const client = text.slice(text.indexOf('Client scenarios'), text.indexOf('Run and reported'));
  const unscored = text.slice(text.indexOf('Run and reported'));
  return {
    required: [...client.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1] as string),
    unscored: [...unscored.matchAll(/^\s+- (\S+) \[client\]$/gm)].map((m) => m[1] as string),
  };
}

const { required, unscored } = listed();
const scenarios = [...required, ...unscored];
const outcomes = new Map<string, { status: number | null; output: string }>();
let results: string;

/** One scenario at the 2026-07-28 wire (an unscored one forced onto it), its outcome kept for its own test. */
function runScenario(scenario: string): Promise<void> {
  const args = ['--import', `${HERE}node20-register.mjs`, SUITE, 'client', '--command', `node ${BUNDLE}`, '--scenario', scenario, '--spec-version', REVISION, '--timeout', '60000', '--expected-failures', `${HERE}expected-failures-2026-07-28.yml`, '-o', results];
  if (unscored.includes(scenario)) args.push('--force');
  return new Promise((resolve) => {
    // A keychain service per scenario: two run at once, and each stores (and at its end wipes) credentials of the same names.
    const service = `${SERVICE}-${scenario.replace(/[^a-z0-9]+/gi, '-')}`;
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, STEWARD_CONFORMANCE_KEYCHAIN_SERVICE: service }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      outcomes.set(scenario, { status, output });
      resolve();
    });
  });
}

beforeAll(async () => {
  mkdirSync(`${ROOT}node_modules/.cache/steward-conformance`, { recursive: true });
  results = mkdtempSync(join(tmpdir(), 'steward-conformance-2026-'));
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
  const queue = [...scenarios];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await runScenario(next);
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
}, 900_000);

afterAll(() => rmSync(results, { recursive: true, force: true }));

describe(`the MCP conformance suite's ${REVISION} requirements (0.2.0 pre-release), client scenarios, against Steward's client`, () => {
  it('lists the frozen client scenarios and the unscored ones it runs', () => {
    expect(required).toContain('tools_call');
    expect(required).toContain('sep-2322-client-request-state');
    expect(required).toContain('auth/iss-supported');
    expect(required.length).toBeGreaterThanOrEqual(30);
    expect(unscored).toContain('auth/client-credentials-basic');
  });

  it.each(scenarios)('%s passes (or is a named expected failure)', (scenario) => {
    const outcome = outcomes.get(scenario);
    expect(outcome, `${scenario} did not run`).toBeDefined();
    expect(outcome?.status, outcome?.output.slice(-4000)).toBe(0);
  });
});
