import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { runIdFromUrl, shot, storedEvents } from './helpers';

test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
const notesCard = (page: Page) => page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' });
const sandbox = () => join(dataDir, 'demo', 'notes-assistant', 'notes-sandbox');

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-'));
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the demo runs live: a read passes unreviewed, the teacher replaces the unsafe write, and every event reaches IndexedDB exactly once across reloads', async ({ page }) => {
  const originalNotes = readFileSync(join(process.cwd(), 'resources/examples/notes-sandbox/meeting-notes.md'), 'utf8');
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card')).toHaveCount(4);
  const card = notesCard(page);
  await expect(card.getByTestId('supervision-toggle')).toHaveAttribute('aria-checked', 'true');
  // Four cards, four Run buttons: each one's name says which workflow it runs.
  await expect(card.getByTestId('run-button')).toHaveAccessibleName('Run Notes assistant');
  await expect(card.getByTestId('configure-button')).toHaveAccessibleName('Supervision & Learning for Notes assistant');
  await shot(page, '01-workflows', false);

  await card.getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(page.url());

  // Rounds appear live; reload while the run is still going.
  const firstRound = page.locator('[data-testid=round-card][data-round="0"]');
  await expect(firstRound).toHaveAttribute('data-outcome', 'executed');
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'running');
  await shot(page, '02-run-live');
  await page.reload();
  await expect(firstRound).toHaveAttribute('data-outcome', 'executed');

  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('round-card')).toHaveCount(4);

  // Round 1 (index 0): the read went through without review.
  await expect(firstRound.getByTestId('review')).toContainText('no rule fired');
  // Round 3 (index 2): the student's write is struck out, the teacher's replacement selected.
  const reviewed = page.locator('[data-testid=round-card][data-round="2"]');
  await expect(reviewed.getByTestId('candidate')).toHaveAttribute('data-rejected', 'true');
  await expect(reviewed.getByTestId('candidate')).toContainText('meeting-notes.md');
  await expect(reviewed.getByTestId('verdict')).toContainText('an unsafe effect');
  await expect(reviewed.getByTestId('selected-decision')).toHaveAttribute('data-source', 'teacher');
  await expect(reviewed.getByTestId('selected-decision')).toContainText('summary.md');
  await expect(reviewed).toHaveAttribute('data-outcome', 'executed');
  await expect(page.getByTestId('run-output')).toContainText('Wrote summary.md');
  // Round 4: the answer follows the replaced write, so the teacher checked it against what ran (issue 10).
  const answer = page.locator('[data-testid=round-card][data-round="3"]');
  await expect(answer.getByTestId('review')).toContainText('final answer after a blocked or rejected decision');
  await expect(answer).toHaveAttribute('data-outcome', 'delivered');
  await shot(page, '03-run-completed');
  await reviewed.scrollIntoViewIfNeeded();
  await shot(page, '03b-replacement', false);

  // Reload after the run, then prove every event is stored exactly once.
  await page.reload();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed');
  const events = await storedEvents(page, runId);
  const finished = events.find((e) => e.type === 'run.finished');
  expect(finished?.type === 'run.finished' && finished.event_count).toBe(events.length);
  expect(events.map((e) => e.seq).sort((a, b) => a - b)).toEqual(events.map((_, i) => i));
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

  // The disk: the replacement was written, the original notes were never touched.
  expect(readFileSync(join(sandbox(), 'meeting-notes.md'), 'utf8')).toBe(originalNotes);
  expect(readFileSync(join(sandbox(), 'summary.md'), 'utf8')).toContain('## Action items');

  // The trace tab lists every stored event; the runs list survives the reload too.
  await page.getByTestId('trace-tab').click();
  // The list is virtualised (only rows near the screen are in the page): the header counts every
  // stored event, and scrolling to the end shows the last one.
  await expect(page.getByTestId('trace-shown')).toHaveText(`${events.length} events`);
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await expect(page.locator(`[data-testid=trace-event][data-seq="${events.length - 1}"]`)).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, '04-trace', false);
  await page.goto(`${host.url.split('#')[0]}#/runs`);
  await expect(page.getByTestId('run-row')).toHaveCount(1);
  await expect(page.getByTestId('run-row')).toContainText('Completed');
  await shot(page, '05-runs', false);
  // The table fits its page at 1360 and at 900 px: lower-priority columns fold into the row (their
  // facts in words under the run's name) instead of the table scrolling sideways.
  const overflow = () => page.getByTestId('runs-list').evaluate((t) => t.scrollWidth - (t.parentElement?.clientWidth ?? 0));
  await expect.poll(overflow).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 900, height: 900 });
  await expect(page.getByRole('columnheader', { name: 'Started' })).toBeHidden();
  await expect.poll(overflow).toBeLessThanOrEqual(0);
  await expect(page.getByTestId('run-row-folded')).toContainText(/Started .+ events .*models replay/);
  await shot(page, '05b-runs-900', false);
  await page.setViewportSize({ width: 1360, height: 900 });
});

test('with supervision switched off, the unsafe write is blocked and never reaches the disk', async ({ page }) => {
  const notesBefore = readFileSync(join(sandbox(), 'meeting-notes.md'), 'utf8');
  await page.goto(host.url);
  const toggle = notesCard(page).getByTestId('supervision-toggle');
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).toHaveAttribute('aria-checked', 'false');
  await page.reload();
  await expect(notesCard(page).getByTestId('supervision-toggle')).toHaveAttribute('aria-checked', 'false');

  await notesCard(page).getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'blocked', { timeout: 30_000 });
  const write = page.locator('[data-testid=round-card][data-round="2"]');
  await expect(write).toHaveAttribute('data-outcome', 'blocked');
  await expect(write.getByTestId('authorization-denied')).toContainText('never executed unreviewed');
  await shot(page, '06-supervision-off-blocked');
  expect(readFileSync(join(sandbox(), 'meeting-notes.md'), 'utf8')).toBe(notesBefore);

  // A fresh browser profile backfills every run from the host's journal, the first test's too.
  await page.goto(`${host.url.split('#')[0]}#/runs`);
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  await expect(page.getByTestId('run-row').filter({ hasText: 'Blocked' })).toHaveCount(1);
  expect(existsSync(join(dataDir, 'history.sqlite'))).toBe(true);
});

test('the boundary refusals demo: malformed output repaired by the student, parallel calls repaired by the teacher, an unusable replacement re-asked, the unsafe write blocked', async ({ page }) => {
  await page.goto(host.url);
  await page.getByTestId('workflow-card').filter({ hasText: 'Guarded writes' }).getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'blocked', { timeout: 30_000 });
  const rounds = page.getByTestId('round-card');
  await expect(rounds).toHaveCount(3);
  await expect(rounds.nth(0)).toHaveAttribute('data-outcome', 'executed');
  await expect(rounds.nth(0).getByTestId('selected-decision')).toHaveAttribute('data-source', 'student');
  await expect(rounds.nth(1).getByTestId('candidate')).toHaveAttribute('data-rejected', 'true');
  // Said in words; the code stays on the tag for details.
  await expect(rounds.nth(1).getByTestId('validation-issues')).toContainText('not a decision');
  await expect(rounds.nth(1).getByTestId('validation-issues').locator('[data-code=unparseable]')).toHaveCount(1);
  await expect(rounds.nth(1).getByTestId('selected-decision')).toHaveAttribute('data-source', 'teacher');
  await expect(rounds.nth(2)).toHaveAttribute('data-outcome', 'blocked');
  await expect(rounds.nth(2).getByTestId('verdict')).toHaveCount(2);
  // The refused replacement (move_file, not offered) is said in a sentence; the engine's message waits in a details element.
  const refused = rounds.nth(2).locator('[data-testid=verdict][data-usable=false]').getByTestId('verdict-problem');
  await expect(refused).toContainText('The teacher’s replacement (move_file) was refused, so it never ran: a tool not offered this round.');
  await expect(refused.getByTestId('verdict-problem-raw')).toBeHidden();
  await refused.getByText('What the check said').click();
  await expect(refused.getByTestId('verdict-problem-raw')).toContainText('replacement failed validation');
  await expect(page.getByTestId('run-output')).toContainText('I could not complete this safely');
  await shot(page, '08-guarded-writes');
  expect(existsSync('/tmp/ideas-archive.md')).toBe(false);
});
