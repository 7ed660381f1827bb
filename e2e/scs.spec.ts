import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { ARTIFACTS, runIdFromUrl, shot, storedEvents } from './helpers';

// Everything is real (host process, filesystem MCP server, IndexedDB, the disk) except the models:
// the SCS demo runs on the replay provider, the test double at the model boundary, whose script
// has committee and monitor queues of its own (resources/examples/scs-summary.json).
test.describe.configure({ mode: 'serial' });

let host: HostProcess;
let dataDir: string;
let page: Page;
const sandbox = () => join(dataDir, 'demo', 'scs-summary', 'notes-sandbox');
const scsCard = () => page.getByTestId('workflow-card').filter({ hasText: 'Phase-gated summary (SCS)' });

/** Opens the app through its access link (so either test can run alone), then goes to `hash`. */
async function openApp(hash: string): Promise<void> {
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible();
  await page.evaluate((h) => (window.location.hash = h), hash);
}

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-scs-'));
  host = await startHostProcess(dataDir);
  // One page (one IndexedDB) for the story: the mode chosen in the first test is the second's.
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the SCS demo: the panel shows On; the run shows the phase gates beside its rounds, the finish the monitor refused, and writes summary.md', async () => {
  await openApp('#/workflows');
  await expect(scsCard().getByTestId('workflow-scs')).toHaveAttribute('data-mode', 'on');
  await expect(scsCard().getByTestId('workflow-scs')).toContainText('On');
  await scsCard().scrollIntoViewIfNeeded();
  await shot(page, '30-scs-workflow-card', false);

  await scsCard().getByTestId('configure-button').click();
  await expect(page).toHaveURL(/#\/workflows\/scs-summary$/);
  await expect(page.getByTestId('config-scs')).toHaveAttribute('data-mode', 'on');
  await shot(page, '31a-scs-panel-status', false);
  const mode = page.getByTestId('scs-mode');
  await expect(mode).toHaveAttribute('data-mode', 'on');
  await expect(mode.getByRole('radio', { name: /^On / })).toBeChecked();
  await expect(mode.getByRole('radio', { name: /^Off / })).not.toBeChecked();
  await page.getByTestId('group-scs').getByRole('button', { name: /SCS settings/ }).click();
  await expect(page.getByTestId('scs-monitor-every')).toHaveValue('6');
  await page.getByTestId('scs-section').scrollIntoViewIfNeeded();
  await shot(page, '31-scs-panel', false);

  await page.getByTestId('workflow-run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(page.url());
  const timeline = page.getByTestId('scs-timeline');
  const entries = timeline.getByTestId('scs-entry');

  // Live: the plan gate comes before any round.
  await expect(entries.first()).toBeVisible();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'running');
  await shot(page, '32-scs-run-live', false);

  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('round-card')).toHaveCount(5);

  // The timeline, in order: committee drafted → student approved → supervisor started phase 1 →
  // student accepted the phase after the failed read → student refused the finish → … allowed it.
  await expect(entries).toHaveCount(7);
  expect(await entries.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual([
    'enabled',
    'plan_drafted',
    'plan_approved',
    'phase_started',
    'phase_accepted',
    'finish_rejected',
    'finish_allowed',
  ]);
  const entry = (kind: string) => timeline.locator(`[data-testid=scs-entry][data-kind=${kind}]`);
  await expect(entry('plan_drafted')).toContainText('Committee · planner');
  await expect(entry('plan_drafted').getByTestId('scs-plan')).toContainText('Write summary.md from the meeting notes');
  await expect(entry('plan_drafted').getByTestId('scs-plan')).toContainText('summary.md lists every action item with its owner');
  await expect(entry('plan_drafted').getByTestId('scs-plan')).toContainText('write_file');
  await expect(entry('plan_drafted').getByTestId('scs-plan')).toContainText('the notes cannot be found');
  await expect(entry('plan_approved')).toContainText('Student · monitor');
  await expect(entry('plan_approved')).toContainText('Approved the plan');
  await expect(entry('plan_approved')).toContainText('0.82');
  await expect(entry('phase_started')).toContainText('Supervisor · executor');
  await expect(entry('phase_started')).toContainText('Started phase 1');
  await expect(entry('phase_accepted')).toContainText('after a failed round');
  await expect(entry('finish_rejected')).toContainText('Refused the finish');
  await expect(entry('finish_rejected')).toContainText('summary.md does not exist');
  await expect(entry('finish_allowed')).toContainText('Allowed the finish');

  // Each gate is placed among the rounds: the plan before round 1, the review after round 1, the
  // finish gates inside rounds 2 and 5.
  const markers = timeline.getByTestId('scs-marker');
  expect(await markers.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-at')}:${e.getAttribute('data-round')}`))).toEqual(['before_rounds:0', 'after:0', 'during:1', 'during:4']);
  // Beside the rounds, a gate never sits above the round it belongs to (a long plan may push it
  // lower); with room, it is level with it: the last finish gate sits beside round 5.
  const place = async (marker: string, round: number) => {
    const group = await timeline.locator(`[data-testid=scs-marker][data-at=${marker}][data-round="${round}"]`).boundingBox();
    const card = await page.locator(`[data-testid=round-card][data-round="${round}"]`).boundingBox();
    if (!group || !card) return 'missing';
    if (group.x <= card.x + card.width) return 'not beside';
    const start = marker === 'after' ? card.y + card.height : card.y;
    return group.y < start - 2 ? 'above its round' : group.y < card.y + card.height ? 'level' : 'below';
  };
  await expect.poll(() => place('during', 4)).toBe('level');
  expect(['level', 'below']).toContain(await place('during', 1));
  expect(['level', 'below']).toContain(await place('after', 0));

  // The round the finish gate blocked says so, with the monitor's reason; nothing reached history.
  const refused = page.locator('[data-testid=round-card][data-round="1"]');
  await expect(refused).toHaveAttribute('data-outcome', 'blocked');
  await expect(refused.getByTestId('round-finish-gate')).toHaveAttribute('data-allowed', 'false');
  await expect(refused.getByTestId('round-finish-gate')).toContainText('Finish refused by the monitor');
  await expect(refused.getByTestId('finish-gate-reason')).toHaveText('The read failed and summary.md does not exist: no evidence for either criterion.');
  await expect(refused.getByTestId('candidate')).toHaveAttribute('data-rejected', 'true');
  const allowed = page.locator('[data-testid=round-card][data-round="4"]');
  await expect(allowed).toHaveAttribute('data-outcome', 'delivered');
  await expect(allowed.getByTestId('round-finish-gate')).toHaveAttribute('data-allowed', 'true');

  // The status line, in the seed's form, and why SCS was on.
  await expect(page.getByTestId('scs-status-words')).toHaveText('On · model replay · SCS phase 1 · the finish was allowed');
  // The seed's compact line, one click away.
  await page.getByTestId('scs-status').getByText('Compact line').click();
  await expect(page.getByTestId('scs-status-line')).toHaveText('scs=on model=replay phase=1 decision=finish_allowed');
  await expect(page.getByTestId('scs-status-reason')).toHaveText('SCS is on');
  await shot(page, '33-scs-run-completed');
  await timeline.screenshot({ path: `${ARTIFACTS}/33b-scs-timeline.png` });

  // A marker's round link takes you to the round (and focuses it, for the keyboard).
  await timeline.locator('[data-testid=scs-marker][data-at=during][data-round="1"]').getByRole('button').click();
  await expect(refused).toBeFocused();
  await shot(page, '34-scs-finish-refused', false);

  // Transcripts are not shown until asked for; the toggle works from the keyboard.
  await expect(page.getByTestId('scs-transcript')).toHaveCount(0);
  const toggle = entry('finish_rejected').getByTestId('scs-transcript-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const transcript = entry('finish_rejected').getByTestId('scs-transcript');
  await expect(transcript).toContainText('You are asked because of: finish');
  await expect(transcript).toContainText('"decision":"finish_rejected"');
  await expect(page.getByTestId('scs-transcript')).toHaveCount(1);
  await entry('finish_rejected').scrollIntoViewIfNeeded();
  await shot(page, '35-scs-transcript', false);

  // The trace holds the scs.* events; the disk holds summary.md (written in round 4, after the refusal).
  const events = await storedEvents(page, runId);
  const types = events.sort((a, b) => a.seq - b.seq).map((e) => e.type);
  expect(types.filter((t) => t.startsWith('scs.') && t !== 'scs.transcript')).toEqual([
    'scs.enabled',
    'scs.committee.plan_drafted',
    'scs.student.plan_approved',
    'scs.supervisor.phase_started',
    'scs.student.phase_accepted',
    'scs.student.finish_rejected',
    'scs.student.finish_allowed',
  ]);
  expect(types.filter((t) => t === 'scs.transcript')).toHaveLength(5);
  // The monitor's evidence: facts it stated (the replay script cites no event ids) are shown as such.
  await expect(entry('finish_allowed')).toContainText('round 4: write_file summary.md executed');
  // An event outside the rounds opens in the trace (where an evidence link to it leads).
  const approved = events.find((e) => e.type === 'scs.student.plan_approved');
  await page.evaluate((h) => (window.location.hash = h), `#/runs/${runId}/trace/${approved?.seq}`);
  await expect(page.locator(`[data-testid=trace-event][data-seq="${approved?.seq}"]`)).toHaveAttribute('open', '');
  await expect(page.locator(`[data-testid=trace-event][data-seq="${approved?.seq}"]`)).toContainText('Reads before writing');
  // The trace nests it in its SCS phase, the phase's rounds beside it.
  await expect(page.locator(`[role=treeitem]:has(> [data-testid=trace-event][data-seq="${approved?.seq}"])`)).toHaveAttribute('aria-level', '2');
  await expect(page.locator('[data-testid=trace-span][data-layer=phase]')).toContainText('Phase 1');
  await shot(page, '35b-scs-trace', false);
  await page.evaluate((h) => (window.location.hash = h), `#/runs/${runId}`);
  await expect(timeline).toBeVisible();
  const summary = readFileSync(join(sandbox(), 'summary.md'), 'utf8');
  expect(summary).toContain('Bo: migration guide draft by Friday');
  expect(summary).toContain('Ana: book the offsite venue');

  // Narrow: the timeline goes above the rounds.
  await page.setViewportSize({ width: 900, height: 900 });
  // (Polled: the groups' alignment margins of the wide layout are dropped on the next frame.)
  await expect
    .poll(async () => {
      const side = await timeline.boundingBox();
      const firstRound = await page.locator('[data-testid=round-card][data-round="0"]').boundingBox();
      return side !== null && firstRound !== null && side.y + side.height <= firstRound.y && side.x === firstRound.x;
    })
    .toBe(true);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, '36-scs-run-narrow', false);
  await page.setViewportSize({ width: 1360, height: 900 });
});

test('switching the mode to Off in the panel: it is stored, and the next run has no timeline and no scs events', async () => {
  await openApp('#/workflows/scs-summary');
  const mode = page.getByTestId('scs-mode');
  await expect(mode).toHaveAttribute('data-mode', 'on');
  // The keyboard: the status block's Change link lands on the chosen mode; arrows move and choose.
  await page.getByTestId('config-scs').getByRole('button', { name: 'Change' }).click();
  await expect(mode.getByRole('radio', { name: /^On / })).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(mode.getByRole('radio', { name: /^Off / })).toBeChecked();
  await expect(mode).toHaveAttribute('data-mode', 'off');
  await page.getByTestId('scs-section').scrollIntoViewIfNeeded();
  await shot(page, '37-scs-mode-off', false);

  // Stored in the workflow's document: a reload, and the card, show it.
  await page.reload();
  await expect(page.getByTestId('scs-mode')).toHaveAttribute('data-mode', 'off');
  await expect(page.getByTestId('config-scs')).toContainText('SCS task gates: Off');
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await expect(scsCard().getByTestId('workflow-scs')).toHaveAttribute('data-mode', 'off');

  const summaryBefore = readFileSync(join(sandbox(), 'summary.md'), 'utf8');
  await scsCard().getByTestId('run-button').click();
  await expect(page).toHaveURL(/#\/runs\//);
  const runId = runIdFromUrl(page.url());
  // Without the finish gate the executor's early "Done." goes through after the failed read.
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('round-card')).toHaveCount(2);
  await expect(page.getByTestId('run-output')).toHaveText('Done.');
  await expect(page.getByTestId('scs-timeline')).toHaveCount(0);
  await expect(page.getByTestId('scs-status')).toHaveCount(0);
  await expect(page.getByTestId('round-finish-gate')).toHaveCount(0);
  await shot(page, '38-scs-off-run', false);

  const events = await storedEvents(page, runId);
  const finished = events.find((e) => e.type === 'run.finished');
  expect(finished?.type === 'run.finished' && finished.event_count).toBe(events.length);
  expect(events.filter((e) => e.type.startsWith('scs.'))).toEqual([]);
  // Nothing was written this time.
  expect(readFileSync(join(sandbox(), 'summary.md'), 'utf8')).toBe(summaryBefore);
  expect(existsSync(join(sandbox(), 'notes.md'))).toBe(false);
});
