import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { REASON_CODES } from '../src-shared/contracts/verdict';
import { VALIDATION_CODES } from '../src-shared/contracts/validation-result';
import { INTERVENTION_KINDS } from '../src-shared/contracts/intervention';
import { MONITOR_DECISIONS } from '../src-shared/scs/contracts';
import { ERROR_CODES } from '../src-shared/contracts/host-api';
import { WORDED_FAILURE_CODES, WORDED_ROUND_REASONS } from '../src-shared/contracts/code-words';
import { DENIAL_REASONS } from '../src-shared/boundary/authorization';
import { wordCheckWorkflow } from '../test-support/word-check-workflow';
import { shot } from './helpers';

/**
 * Issue 28, "words, not internals": every screen a person reaches with the demos, a workflow run that
 * lost items, a run whose key the keychain could not give, and the editor's problem list, read as a
 * person reads it (the rendered text: what is inside a details — open or not —, a title, a data
 * attribute are not read), holds no reason code, no stack trace, no schema path and no parser
 * message. The raw text stays one click away (details, titles); this test does not look there.
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
const GRAPH_PROBLEM_CODES = ['collect_without_iterate', 'connected_twice', 'duplicate_port', 'invalid_check', 'invalid_output_schema', 'item_reaches_output', 'no_output', 'not_connected', 'stream_input_optional', 'too_deep', 'type_mismatch', 'undeclared_input', 'unknown_judge_model', 'unknown_node', 'unknown_port', 'unknown_server', 'unknown_tool', 'unreachable_output', 'unrelated_scopes'];
const CODES = [
  ...REASON_CODES,
  ...VALIDATION_CODES,
  ...INTERVENTION_KINDS,
  ...MONITOR_DECISIONS,
  ...WORDED_FAILURE_CODES,
  ...WORDED_ROUND_REASONS,
  ...DENIAL_REASONS,
  ...ERROR_CODES,
  ...GRAPH_PROBLEM_CODES,
  'not_confirmed',
  'assert_failed',
  'tool_not_offered',
  'internal_error',
  'template_error',
  'agent_failed',
  'completed_with_failures',
];
const INTERNALS: Array<[string, RegExp]> = [
  ['a reason code', new RegExp(`\\b(${[...new Set(CODES)].filter((code) => code.includes('_')).join('|')})\\b`)],
  ['a stack trace', /\bat \S+ \([^)]*:\d+:\d+\)|\n\s+at [\w.<>]+ /],
  // A validator's path (data/type) or a Zod one (servers.0.server, servers.0 has…): entries are said by their place in words.
  ['a schema path', /\bdata\/[\w/]+|must be equal to one of the allowed values|schema is invalid|(?<![\w.@/-])[a-z_]{2,}\.\d+(?:\.[a-z_]+\b|(?=[\s;:,)]|$))/],
  ['a parser message', /Unexpected token|is not valid JSON|SyntaxError|Unexpected end of JSON input/],
  ['an error class', /\b(TypeError|ReferenceError|ZodError|CredentialStoreError)\b/],
  ['a keychain internal', /DBus error|zbus|Platform failure|unix:path=/i],
];

/**
 * What a person can read on the page now without opening anything: innerText (no titles, no hidden
 * elements), with every details' content left out, open or not (its summary is read).
 */
async function readable(): Promise<string> {
  return page.evaluate(() => {
    const style = document.createElement('style');
    style.textContent = 'details > :not(summary) { display: none !important; }';
    document.head.append(style);
    try {
      return document.body.innerText;
    } finally {
      style.remove();
    }
  });
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

/** Imports a workflow file as a person does (Workflows → Import), waiting for its card. */
async function importWorkflow(doc: { id: string } & Record<string, unknown>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'steward-e2e-words-file-'));
  try {
    const file = join(dir, `${doc.id}.workflow.json`);
    writeFileSync(file, JSON.stringify(doc));
    await go('#/workflows');
    await page.getByTestId('import-workflow-file').setInputFiles(file);
    await expect(page.getByTestId(`open-workflow-${doc.id}`)).toBeVisible();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs an imported workflow from its Run button with these inputs; returns once its run view shows an end. */
async function runWorkflow(id: string, inputs: Record<string, string>): Promise<void> {
  await go('#/workflows');
  await page.getByTestId(`run-workflow-${id}`).click();
  for (const [name, value] of Object.entries(inputs)) await page.getByTestId(`run-input-${name}`).fill(value);
  await page.getByTestId('run-start').click();
  await page.getByTestId('open-run').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('run-status')).not.toHaveAttribute('data-status', /^(running|waiting)$/, { timeout: 60_000 });
}

test('a workflow run that lost items says so in words: its run view, the reason a click away, the failed item\'s node and its Runs row', async () => {
  await importWorkflow(wordCheckWorkflow({ id: 'words-word-check', name: 'Word check (words)' }));
  await runWorkflow('words-word-check', { words: JSON.stringify(['apple', 'Banana!', 'cherry']) });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed_with_failures');
  await expect(page.getByTestId('run-status')).toHaveText('Completed · 1 of 3 items failed');
  await expectPlainWords('a run that completed with failures');
  // Its report: why the item failed, opened as a person opens it (the code stays inside it).
  const partial = page.getByTestId('run-partial');
  await partial.getByText('Why it failed').click();
  await expect(partial.getByTestId('run-partial-item')).toContainText('work · item 2: check 1 (regex)');
  await expectPlainWords('a run that completed with failures, its reason opened');
  await shot(page, 'words-02-partial-run');
  // The failed item's node, from the report's link.
  await partial.getByTestId('run-partial-item').getByRole('link', { name: 'work · item 2' }).click();
  await expect(page.getByTestId('node-failure')).toContainText('the value does not match');
  await expectPlainWords('the failed item\'s node');
  await shot(page, 'words-03-partial-node');
  // Runs: its row and the status filter.
  await go('#/runs');
  const row = page.getByTestId('run-row').filter({ hasText: 'Word check (words)' });
  await expect(row.locator('[data-status]').first()).toHaveText('Completed · 1 of 3 items failed');
  await expectPlainWords('Runs, with a run that completed with failures');
});

test('a workflow whose agent\'s model key the keychain cannot give: the run says what happened and what to do, the keychain\'s own reason one click away', async ({ browser }) => {
  // A machine with no Secret Service: a host of its own whose session bus does not exist.
  const ownData = mkdtempSync(join(tmpdir(), 'steward-e2e-words-nokeychain-'));
  const noKeychain = await startHostProcess(ownData, { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/steward-e2e-no-secret-service' });
  const main = page;
  page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  try {
    await page.goto(noKeychain.url);
    await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
    // An agent whose model (a local OpenAI-compatible server) takes its API key from the keychain.
    const model = { provider: 'openai_compatible', base_url: 'http://127.0.0.1:9/v1', model: 'local-writer', api_key: 'keychain:local-writer' };
    await importWorkflow({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'keyed-writer',
      name: 'Keyed writer',
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
        { id: 'write', kind: 'agent', instructions: 'Write what is asked.', task: 'Write one line about {{topic}}.', inputs: [{ name: 'topic', type: 'text' }], models: { student: model, teacher: model } },
        { id: 'out', kind: 'output', fields: [{ name: 'text', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'topic' }, to: { node: 'write', port: 'topic' } },
        { from: { node: 'write', port: 'output' }, to: { node: 'out', port: 'text' } },
      ],
    });
    await runWorkflow('keyed-writer', { topic: 'tea' });
    await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'failed');
    const message = page.getByTestId('run-message');
    await expect(message).toContainText('The system keychain did not answer, so Steward could not read the API key of the student model local-writer (keychain:local-writer). Start or unlock your keychain');
    await expect(message).toContainText('and run again.');
    await expectPlainWords('a run the keychain failed');
    await shot(page, 'words-04-keychain-run');
    // The keychain's own reason, one click away.
    const details = message.getByTestId('message-details');
    await expect(details.locator('code')).toBeHidden();
    await details.getByText('Details').click();
    await expect(details.locator('code')).toContainText(/DBus|zbus/i);
    await shot(page, 'words-05-keychain-details');
  } finally {
    await page.close();
    page = main;
    await noKeychain.stop();
    rmSync(ownData, { recursive: true, force: true });
  }
});

test('a file that is no Steward workflow is refused in words: which entry lacks what, its unknown fields by name, the schema paths one click away', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'steward-e2e-words-file-'));
  try {
    // A CLI workflow file (its server launched from a package), imported into the app.
    const file = join(dir, 'cli-format.workflow.json');
    writeFileSync(file, JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'cli-format',
      name: 'CLI format',
      servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['.'] }],
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
        { id: 'out', kind: 'output', fields: [{ name: 'text', type: 'text' }] },
      ],
      edges: [{ from: { node: 'in', port: 'text' }, to: { node: 'out', port: 'text' } }],
    }));
    await go('#/workflows');
    await page.getByTestId('import-workflow-file').setInputFiles(file);
    const notice = page.getByTestId('workflows-notice');
    await expect(notice).toContainText('the first server entry has no `server`: name the registered server it uses');
    await expect(notice).toContainText('the first server entry has unknown fields "package", "args"');
    await expectPlainWords('a refused import');
    const details = notice.getByTestId('message-details');
    await details.getByText('Details').click();
    await expect(details.locator('code')).toContainText('servers.0.server');
    await shot(page, 'words-07-refused-import');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the editor\'s problem list says every problem in words: no codes, no schema paths', async () => {
  await importWorkflow({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'words-problems',
    name: 'Problems (words)',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
      // An input that nothing feeds, an output schema with a type JSON Schema does not have, a server the workflow does not have.
      { id: 'write', kind: 'agent', instructions: 'Write what is asked.', task: 'Write about {{topic}} for {{audience}}.', inputs: [{ name: 'topic', type: 'text' }, { name: 'audience', type: 'text' }], output_schema: { type: 'strnig' } },
      { id: 'save', kind: 'tool', server: 'nowhere', tool: 'write_file', arguments: { path: 'x.md' } },
      { id: 'check', kind: 'assert', checks: [{ check: 'regex', pattern: '([' }] },
      { id: 'out', kind: 'output', fields: [{ name: 'text', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'topic' }, to: { node: 'write', port: 'topic' } },
      { from: { node: 'write', port: 'output' }, to: { node: 'out', port: 'text' } },
    ],
  });
  await page.getByTestId('open-workflow-words-problems').click();
  const problems = page.getByTestId('problems-list');
  await expect(problems).toHaveAttribute('data-state', 'checked', { timeout: 20_000 });
  await expect.poll(async () => Number(await problems.getAttribute('data-count'))).toBeGreaterThanOrEqual(3);
  await problems.scrollIntoViewIfNeeded();
  await expectPlainWords('the editor\'s problem list');
  await shot(page, 'words-06-editor-problems');
});
