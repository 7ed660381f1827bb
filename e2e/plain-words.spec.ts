import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { REASON_CODES } from '../src-shared/contracts/verdict';
import { VALIDATION_CODES } from '../src-shared/contracts/validation-result';
import { INTERVENTION_KINDS } from '../src-shared/contracts/intervention';
import { MONITOR_DECISIONS } from '../src-shared/scs/contracts';
import { shot } from './helpers';

/**
 * Issue 28, "words, not internals": every screen a person reaches with the demos, read as a person
 * reads it (the rendered text: a closed details, a title, a data attribute are not read), holds no
 * reason code, no stack trace, no schema path and no parser message. The raw text stays one click
 * away (details, titles); this test does not look there.
 */
test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
let page: Page;
const card = (name: string) => page.getByTestId('workflow-card').filter({ hasText: name });

/**
 * Codes the app must say in words: those that are not English words already (snake_case). Tool names
 * (read_text_file) and ids are a person's words too, so only these are checked.
 */
const CODES = [...REASON_CODES, ...VALIDATION_CODES, ...INTERVENTION_KINDS, ...MONITOR_DECISIONS, 'not_confirmed', 'assert_failed', 'tool_not_offered', 'internal_error', 'template_error', 'agent_failed'];
const INTERNALS: Array<[string, RegExp]> = [
  ['a reason code', new RegExp(`\\b(${[...new Set(CODES)].filter((code) => code.includes('_')).join('|')})\\b`)],
  ['a stack trace', /\bat \S+ \([^)]*:\d+:\d+\)|\n\s+at [\w.<>]+ /],
  ['a schema path', /\bdata\/[\w/]+|must be equal to one of the allowed values|schema is invalid/],
  ['a parser message', /Unexpected token|is not valid JSON|SyntaxError|Unexpected end of JSON input/],
  ['an error class', /\b(TypeError|ReferenceError|ZodError|CredentialStoreError)\b/],
];

/** What a person can read on the page now (innerText skips closed details, titles and hidden elements). */
async function readable(): Promise<string> {
  return page.evaluate(() => document.body.innerText);
}

async function expectPlainWords(where: string): Promise<void> {
  const text = await readable();
  const found = INTERNALS.flatMap(([what, pattern]) => {
    const match = pattern.exec(text);
    if (!match) return [];
    const at = Math.max(0, match.index - 60);
    return [`${what} on ${where}: “…${text.slice(at, match.index + match[0].length + 60).replace(/\s+/g, ' ')}…”`];
  });
  expect(found, found.join('\n')).toEqual([]);
}

async function go(hash: string): Promise<void> {
  await page.evaluate((h) => (window.location.hash = h), hash);
}

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-words-'));
  host = await startHostProcess(dataDir);
  page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the demos\' screens and runs say what happened in words: no reason codes, stack traces, schema paths or parser messages', async () => {
  await expectPlainWords('Workflows');

  // A supervised agent run: a read, a write the teacher replaces, the answer.
  await card('Notes assistant').getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await expectPlainWords('a completed supervised run');
  await shot(page, 'words-01-run');

  // The boundary's refusals: malformed output repaired, parallel calls repaired, an unusable
  // replacement re-asked, an unsafe write blocked.
  await go('#/workflows');
  await card('Guarded writes').getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'blocked', { timeout: 60_000 });
  await expectPlainWords('a run the boundary refused');

  // A run that asks a person: its card, and Waiting for you.
  await go('#/workflows');
  await card('Ask a human').getByTestId('run-button').click();
  await expect(page.getByTestId('intervention-card')).toBeVisible({ timeout: 60_000 });
  await expectPlainWords('a run waiting for a person');
  await go('#/interventions');
  await expect(page.getByTestId('intervention-row').first()).toBeVisible();
  await expectPlainWords('Waiting for you');

  await go('#/runs');
  await expect(page.getByTestId('runs-table').or(page.getByRole('table')).first()).toBeVisible();
  await expectPlainWords('Runs');

  for (const [hash, name] of [
    ['#/learning', 'Learning'],
    ['#/registry', 'MCP registry'],
    ['#/settings', 'Settings'],
  ] as const) {
    await go(hash);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await page.waitForTimeout(500);
    await expectPlainWords(name);
  }
});
