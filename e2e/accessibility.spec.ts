import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import axe from 'axe-core';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { runIdFromUrl, terminalCode } from './helpers';
import { startHostOnPort } from './host-on-port';

/**
 * Issue 32: every screen and state at WCAG 2.1 AA, scanned by axe-core in real Chromium at
 * 1360×900, in the light and the dark system theme (the app follows prefers-color-scheme). Real
 * host, MCP servers and IndexedDB; runs and interventions come from the demos' replay models (the
 * scripted model double at the model boundary). A violation fails the test and names the element.
 */
// Each state is scanned twice (light, dark): more time than a usual spec's 90 s per test. Each test
// has its own data folder, host and page (started in beforeEach, about a second), so the tests
// spread over the workers instead of running one after another on one of them for minutes.
test.describe.configure({ mode: 'parallel', timeout: 240_000 });

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const SHOTS = '/tmp/shots';
mkdirSync(SHOTS, { recursive: true });

let host: HostProcess;
let dataDir: string;
let otherDataDir: string | undefined;
let context: BrowserContext;
let page: Page;
const card = (name: string) => page.getByTestId('workflow-card').filter({ hasText: name });

test.beforeEach(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-a11y-'));
  host = await startHostProcess(dataDir);
  // axe needs a page of a context it may open a page in (not browser.newPage's own context).
  context = await browser.newContext();
  page = await context.newPage();
  // Opened with the host's one-time link: every test starts on a fresh app that is connected.
  await page.goto(host.url);
  await expect(card('Notes assistant')).toBeVisible();
});

test.afterEach(async () => {
  await context?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (otherDataDir) rmSync(otherDataDir, { recursive: true, force: true });
  otherDataDir = undefined;
});

/**
 * Holds the page still for a scan or a screenshot: the colour transitions a theme switch started run
 * to their end, and the running animations (a spinner, a pulsing dot) pause at the frame they are at.
 * axe looks at one moment either way; a spinner left turning made each scan about three times slower.
 */
async function holdStill(p: Page): Promise<void> {
  await p.evaluate(async () => {
    // getAnimations() applies pending style first, so it includes the transitions the switch just started.
    const running = document.getAnimations();
    for (const a of running) if (!(a instanceof CSSTransition)) a.pause();
    await Promise.all(running.filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => undefined)));
  });
}

/** The paused animations run on. */
async function letMove(p: Page): Promise<void> {
  await p.evaluate(() => {
    for (const a of document.getAnimations()) if (a.playState === 'paused') a.play();
  });
}

/**
 * What axe refuses on the page as it is now, by the WCAG 2.1 AA tags: the engine @axe-core/playwright
 * injects (the same axe-core), put in once per document (a hash change keeps it) and run with axe.run
 * in the page. AxeBuilder put the whole engine in again on every scan and finished each one in a
 * blank page of its own; that was most of this file's time. A page with frames goes through AxeBuilder.
 */
async function axeViolations(p: Page): Promise<axe.Result[]> {
  if (p.frames().length > 1) return (await new AxeBuilder({ page: p }).withTags(TAGS).analyze()).violations;
  type WithAxe = { axe?: { run(context: Document, options: axe.RunOptions): Promise<axe.AxeResults> } };
  if (!(await p.evaluate(() => typeof (window as unknown as WithAxe).axe?.run === 'function'))) await p.evaluate(axe.source);
  return p.evaluate(
    async (tags) => {
      const engine = (window as unknown as WithAxe).axe;
      if (!engine) throw new Error('axe-core is not in the page');
      return (await engine.run(document, { runOnly: { type: 'tag', values: tags } })).violations;
    },
    TAGS,
  );
}

/**
 * One line per element axe refused: theme, state, rule, the element and why. With `shot`, the page
 * in each theme is also saved for a person to look at, at the moment it was scanned.
 */
async function violations(p: Page, state: string, shot?: string): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await p.emulateMedia({ colorScheme: scheme });
    // Colours settle (no transition mid-scan).
    await holdStill(p);
    const refused = await axeViolations(p);
    for (const v of refused) {
      // Up to eight elements by name per rule; a list of a hundred alike says no more than its first ones.
      for (const node of v.nodes.slice(0, 8)) found.push(`${scheme} · ${state} · ${v.id} (${v.impact ?? 'unknown'}): ${node.target.join(' ')} — ${(node.failureSummary ?? v.help).replace(/\s+/g, ' ')}`);
      if (v.nodes.length > 8) found.push(`${scheme} · ${state} · ${v.id}: and ${v.nodes.length - 8} more elements`);
    }
    if (shot) await p.screenshot({ path: `${SHOTS}/a11y-${shot}-${scheme}.png` });
  }
  await p.emulateMedia({ colorScheme: 'light' });
  await letMove(p);
  return found;
}

/**
 * Scans the page as it is now, in both themes; a violation fails the test (softly: every state is
 * still scanned). `shot`: also saves the page in both themes (see `shots`) while each theme is on.
 */
async function expectAccessible(state: string, p: Page = page, shot?: string): Promise<void> {
  expect.soft(await violations(p, state, shot), `WCAG 2.1 AA violations on ${state}`).toEqual([]);
}

/** The page in the light and the dark theme, for a person to look at. */
async function shots(name: string, p: Page = page): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await p.emulateMedia({ colorScheme: scheme });
    await holdStill(p);
    await p.screenshot({ path: `${SHOTS}/a11y-${name}-${scheme}.png` });
  }
  await p.emulateMedia({ colorScheme: 'light' });
  await letMove(p);
}

async function go(hash: string): Promise<void> {
  await page.evaluate((h) => (window.location.hash = h), hash);
}

/**
 * Tabs through the page from its top and lists every element that took the focus without a visible
 * focus indicator (an outline or a ring on it, its parent or the box it stands for).
 */
async function unringedFocusStops(p: Page, stops: number): Promise<{ reached: number; missing: string[] }> {
  // Each Tab press (its keydown, before the focus moves on) notes how the element the previous press
  // focused looks now: one round trip per stop instead of a press and a look. The first press notes
  // the page itself (nothing focused yet); the press after the last stop notes that stop.
  await p.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
    const held = window as unknown as { focusVerdicts?: (string | null)[]; stopNotingFocus?: () => void };
    held.stopNotingFocus?.();
    const verdicts: (string | null)[] = [];
    const verdict = (): string | null => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const ringed = (e: Element | null): boolean => {
        if (!e) return false;
        const s = getComputedStyle(e);
        return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1) || (s.boxShadow !== 'none' && s.boxShadow !== '');
      };
      // A graph's edge (SVG) shows its focus by drawing its line thicker.
      const thick = el instanceof SVGElement && [...el.querySelectorAll('path')].some((path) => parseFloat(getComputedStyle(path).strokeWidth) >= 3);
      const shown = ringed(el) || ringed(el.parentElement) || ringed(el.firstElementChild) || thick;
      const name = `${el.tagName.toLowerCase()}${el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`;
      return shown ? '' : name;
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Tab') verdicts.push(verdict());
    };
    window.addEventListener('keydown', onKey, true);
    held.focusVerdicts = verdicts;
    held.stopNotingFocus = () => window.removeEventListener('keydown', onKey, true);
  });
  const noted = () =>
    p.evaluate(() => (window as unknown as { focusVerdicts: (string | null)[] }).focusVerdicts.slice(1));
  // Pressed in tens; stops early once the focus has left the page's controls (nothing focused).
  for (let pressed = 0; pressed <= stops; ) {
    const batch = Math.min(10, stops + 1 - pressed);
    for (let i = 0; i < batch; i++) await p.keyboard.press('Tab');
    pressed += batch;
    if ((await noted()).includes(null)) break;
  }
  const verdicts = (await noted()).slice(0, stops);
  await p.evaluate(() => (window as unknown as { stopNotingFocus: () => void }).stopNotingFocus());
  const end = verdicts.indexOf(null);
  const reachedStops = (end === -1 ? verdicts : verdicts.slice(0, end)) as string[];
  return { reached: reachedStops.length, missing: reachedStops.filter((v) => v !== '') };
}

test('the screens of a fresh app with the demos pass WCAG 2.1 AA in the light and the dark theme', async () => {
  await expect(page.getByTestId('connection-banner')).toHaveCount(0);
  await expectAccessible('Workflows', page, 'workflows');

  await go('#/runs');
  await expect(page.getByRole('heading', { name: 'Runs', level: 1 })).toBeVisible();
  await expectAccessible('Runs (empty)');

  await go('#/interventions');
  await expect(page.getByTestId('interventions-empty')).toBeVisible();
  await expectAccessible('Waiting for you (nothing waits)');

  await go('#/learning');
  await expect(page.getByTestId('learning-page')).toBeVisible();
  await expectAccessible('Learning (no examples)');

  await go('#/registry');
  await expect(page.getByTestId('registry-page')).toBeVisible();
  await expect(page.getByTestId('registry-server').first()).toBeVisible();
  await expectAccessible('MCP registry');
  await page.getByTestId('add-server').click();
  await expectAccessible('MCP registry, adding a server', page, 'registry-add');

  await go('#/settings');
  await expect(page.getByTestId('privacy-section')).toBeVisible();
  await expectAccessible('Settings', page, 'settings');
});

test('a workflow’s panel passes, with every advanced group open, and with unsaved edits and its validation', async () => {
  await go('#/workflows/notes-assistant');
  const panel = page.getByTestId('supervision-panel');
  await expect(panel.getByTestId('config-phase')).toBeVisible();
  await expectAccessible('a workflow’s panel');
  for (const group of ['models', 'rules', 'handover', 'tools', 'trace', 'synthesis', 'deployment', 'runtime']) {
    const toggle = panel.getByTestId(`group-${group}`).getByRole('button').first();
    if ((await panel.getByTestId(`group-${group}`).getAttribute('data-open')) !== 'true') await toggle.click();
  }
  await expectAccessible('a workflow’s panel, every group open');
  await panel.getByTestId('phase-select').selectOption('2');
  await expect(panel.getByTestId('save-bar')).toBeVisible();
  await panel.getByTestId('validate-button').click();
  await expect(panel.getByTestId('validation-report')).toBeVisible();
  await expectAccessible('a workflow’s panel with unsaved edits and its validation', page, 'panel');
  await panel.getByTestId('discard-profiles').click();
});

test('a run mid-run and finished, its trace, the Runs list and Learning pass; the run’s status is announced as it changes', async () => {
  await go('#/workflows');
  await card('Notes assistant').getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(page.url());
  const status = page.getByTestId('run-status');
  await expect(status).toHaveAttribute('data-status', 'running');
  // A screen reader hears the status change: it is in a polite live region, named for what it is.
  const live = page.getByRole('status').filter({ has: status });
  await expect(live).toContainText('Run status: Running');
  await expect(page.locator('[data-testid=round-card][data-round="0"]')).toBeVisible();
  await expectAccessible('a run mid-run', page, 'run-live');

  await expect(status).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(live).toContainText('Run status: Completed');
  await expect(page.getByTestId('round-card')).toHaveCount(4);
  await expectAccessible('a finished run (its rounds, the teacher’s replacement)', page, 'run-completed');

  await page.getByTestId('trace-tab').click();
  await expect(page.getByTestId('trace-event').first()).toBeVisible();
  await page.getByTestId('trace-event').first().click();
  await expectAccessible('a run’s trace');
  await page.getByTestId('privacy-tab').click();
  await expect(page).toHaveURL(/\/privacy$/);
  await expectAccessible('a run’s privacy log');

  await go('#/runs');
  await expect(page.locator(`[data-testid=run-row][data-run-id="${runId}"]`)).toBeVisible();
  await expectAccessible('Runs with a run');
  await page.getByTestId('select-run').first().check();
  await expect(page.getByTestId('runs-selected')).toBeVisible();
  await expectAccessible('Runs with a run selected', page, 'runs');

  await go('#/learning');
  await expect(page.getByTestId('learning-row').first()).toBeVisible({ timeout: 30_000 });
  await expectAccessible('Learning with examples');
  await page.getByTestId('learning-row-toggle').first().click();
  await expect(page.getByTestId('example-detail').first()).toBeVisible();
  await expectAccessible('Learning with an example open', page, 'learning');
});

test('an intervention card and Waiting for you pass, and a new wait is announced', async () => {
  await go('#/workflows');
  await card('Ask a human').getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('intervention-card')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'waiting');
  // Announced once, politely, wherever the person is: the sidebar's live region says it.
  await expect(page.getByTestId('waiting-announcement')).toHaveText('1 waiting for you');
  await expect(page.getByRole('status').filter({ has: page.getByTestId('run-status') })).toContainText('Run status: Waiting');
  await expectAccessible('a run waiting, its intervention card', page, 'intervention-card');
  await page.getByTestId('intervention-card').getByTestId('intervention-edit-arguments').click();
  await expectAccessible('an intervention card editing the arguments');

  await go('#/interventions');
  const row = page.getByTestId('interventions-view').getByTestId('intervention-row').first();
  await expect(row).toBeVisible();
  await expectAccessible('Waiting for you, one run waiting');
  await row.getByTestId('intervention-answer-here').click();
  await expectAccessible('Waiting for you, answering here', page, 'waiting');
  await row.getByTestId('intervention-approve').click();
  await expect(page.getByTestId('interventions-view').getByTestId('interventions-empty')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('waiting-announcement')).toHaveText('Nothing waits for you');
});

test('the editor with a selected node and its problems, and the leave dialog, pass; nodes and ports have names', async () => {
  await go('#/workflows/new');
  await expect(page.getByTestId('node-input')).toBeVisible();
  await page.getByTestId('workflow-name').fill('Accessible pipeline');
  await page.getByTestId('palette-item-agent').press('Enter');
  await page.getByTestId('node-agent').click();
  const inspector = page.getByTestId('inspector');
  await inspector.getByTestId('inspector-inputs-add').click();
  await inspector.getByTestId('inspector-inputs-0-name').fill('listing');
  await expect(page.getByTestId('problem-agent')).toBeVisible();
  await expect(page.getByTestId('problems-list')).toBeVisible();

  // A node is named for a screen reader: its kind, its name, its ports and its problems.
  const agent = page.locator('.react-flow__node[data-id="agent"]');
  await expect(agent).toHaveAttribute('aria-label', /^Agent node “agent”.*inputs: listing.*1 problem/);
  await expect(page.locator('.react-flow__node[data-id="input"]')).toHaveAttribute('aria-label', /^Input node/);
  // Each port too: which way it goes, its name and type, and its problem.
  await expect(page.getByTestId('port-agent-in-listing')).toHaveAttribute('aria-label', /^input listing, \w+, .+/);
  await expect(page.getByTestId('port-input-out-text')).toHaveAttribute('aria-label', /^output text, \w+$/);
  await expectAccessible('the editor, a node selected with its problems', page, 'editor');

  // Leaving with unsaved changes asks first: the dialog passes too.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  await expect(page.getByTestId('leave-dialog')).toBeVisible();
  await expectAccessible('the leave dialog', page, 'leave-dialog');
  await page.getByTestId('leave-discard').click();
  await expect(page).toHaveURL(/#\/runs$/);
});

/** The example batch-fanout workflow, imported from its file on Workflows. */
async function importBatchFanout(): Promise<void> {
  const file = join(process.cwd(), 'resources/examples/batch-fanout.workflow.json');
  await go('#/workflows');
  await page.getByTestId('import-workflow-file').setInputFiles({ name: 'batch-fanout.workflow.json', mimeType: 'application/json', buffer: readFileSync(file) });
}

test('a workflow run: the editor’s run form and banner, the run’s nodes opened, and the graph showing the run pass', async () => {
  await importBatchFanout();
  await page.getByTestId('run-workflow-batch-fanout').click();
  await expect(page.getByTestId('run-start')).toBeVisible();
  await expectAccessible('the editor’s run form');
  await page.getByTestId('run-start').click();
  await expect(page.getByTestId('open-run')).toBeVisible();
  await expectAccessible('the editor with its run’s banner');
  await page.getByTestId('open-run').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expectAccessible('a finished workflow run, its nodes');
  await page.locator('[data-testid=node-invocation][data-node=summarize]').first().getByRole('button').first().click();
  await expect(page.getByTestId('node-invocation-body').first()).toBeVisible();
  await expectAccessible('a workflow run with a node’s invocation open', page, 'workflow-run');
  await page.getByTestId('open-in-editor').click();
  await expect(page.locator('.react-flow__node[data-id="summarize"]')).toHaveAttribute('aria-label', /^Agent node “summarize”; inputs: ticket; outputs: output; 4\/4 done/);
  await expectAccessible('a workflow’s graph showing its run');
});

test('a confirmation waiting for its terminal code, and its error, pass', async () => {
  await go('#/settings');
  const privacy = page.getByTestId('privacy-section');
  const printed = host.stderr?.().length ?? 0;
  await privacy.getByTestId('privacy-host').fill('api.example.com');
  await privacy.getByRole('button', { name: 'Allow' }).click();
  const confirm = privacy.getByTestId('confirm-code-panel');
  await expect(confirm).toContainText('api.example.com');
  await expectAccessible('a confirmation waiting for its code');
  const code = await terminalCode(() => host.stderr?.() ?? '', printed);
  await confirm.getByTestId('confirm-code').fill(code === '000-000' ? '000-001' : '000-000');
  await confirm.getByTestId('confirm-approve').click();
  await expect(confirm.getByRole('alert')).toContainText('attempts left');
  await expectAccessible('a refused confirmation code');
  await privacy.scrollIntoViewIfNeeded();
  await shots('confirm-code');
});

/** Tabs through the screen: many controls take the focus, and each shows it. */
async function expectFocusVisible(where: string, stops = 60): Promise<void> {
  const { reached, missing } = await unringedFocusStops(page, stops);
  expect.soft(reached, `controls reached by Tab on ${where}`).toBeGreaterThanOrEqual(5);
  expect.soft(missing, `focus without a visible ring on ${where}`).toEqual([]);
}

test('focus is visible on every control a person reaches by Tab', async () => {
  // An app used for a while: a demo's run finished (Learning has its examples), a workflow imported and run.
  await go('#/workflows');
  await card('Notes assistant').getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await importBatchFanout();
  await page.getByTestId('run-workflow-batch-fanout').click();
  await page.getByTestId('run-start').click();
  await page.getByTestId('open-run').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(page.url());
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });

  // Each screen is shown (what it lists is there) before it is tabbed through.
  const shown: [string, () => Promise<void>][] = [
    ['#/workflows', () => expect(card('Notes assistant')).toBeVisible()],
    ['#/runs', () => expect(page.locator(`[data-testid=run-row][data-run-id="${runId}"]`)).toBeVisible()],
    ['#/interventions', () => expect(page.getByTestId('interventions-empty')).toBeVisible()],
    ['#/settings', () => expect(page.getByTestId('privacy-section')).toBeVisible()],
    ['#/registry', () => expect(page.getByTestId('registry-server').first()).toBeVisible()],
    ['#/learning', () => expect(page.getByTestId('learning-row').first()).toBeVisible({ timeout: 30_000 })],
    ['#/workflows/notes-assistant', () => expect(page.getByTestId('supervision-panel').getByTestId('config-phase')).toBeVisible()],
  ];
  for (const [hash, isShown] of shown) {
    await go(hash);
    await isShown();
    await expectFocusVisible(hash);
  }
  await go('#/runs');
  // The newest run: the workflow's.
  await page.getByTestId('run-row').first().getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`#/runs/${runId}`));
  await expect(page.getByTestId('run-status')).toBeVisible();
  await expectFocusVisible('a run');
  await go('#/workflows/batch-fanout/edit');
  await expect(page.getByTestId('node-summarize')).toBeVisible();
  await expectFocusVisible('the editor', 80);
});

test('the banners a page shows when it cannot reach Steward pass', async ({ browser }) => {
  await expectBanner(browser, `http://127.0.0.1:${host.port}/`, 'a page without access');
  await expectBanner(browser, `http://127.0.0.1:${host.port}/#launch=not-a-code-this-host-gave`, 'a launch link that did not work');

  // The host stops: the page says so and keeps trying.
  const port = host.port;
  await host.stop();
  await expect(page.getByTestId('connection-banner')).toBeVisible({ timeout: 20_000 });
  await expectAccessible('the host stopped (reconnecting)', page, 'reconnecting');

  // Another data folder's Steward on the same port refuses this page's token: the page says what to do.
  otherDataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-a11y-other-'));
  host = await startHostOnPort(otherDataDir, port);
  await expect(page.locator('[data-testid=connection-banner][data-state=refused]')).toBeVisible({ timeout: 30_000 });
  await expectAccessible('a host that no longer accepts this page', page, 'refused');
});

async function expectBanner(browser: Browser, url: string, state: string): Promise<void> {
  const other = await browser.newContext();
  try {
    const p = await other.newPage();
    await p.goto(url);
    await expect(p.locator('[data-testid=connection-banner][data-state=refused], [data-testid=launch-refused]').first()).toBeVisible({ timeout: 20_000 });
    await expectAccessible(state, p, state.replace(/\W+/g, '-'));
  } finally {
    await other.close();
  }
}
