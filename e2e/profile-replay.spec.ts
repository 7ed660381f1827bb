import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { connectHost } from '../test-support/host-process';
import { startFakeOllama } from '../test-support/fake-ollama';
import { teacherVerdictsHistory } from '../test-support/teacher-verdicts-history';
import { twoAgentHistory } from '../test-support/two-agent-workflow';
import { shot } from './helpers';
import { ownHostAndPage } from './own-host';

// Issue 31's button on a profile: "Replay past verdicts" on a supervision profile asks the host to
// put its review rules to the recorded rounds (no model call, as `steward eval verdicts --profile`)
// and says the outcome in words: an empty history first, then an imported one (recorded rounds of a
// workflow whose models were replay scripts, the test double at the model boundary).

const own = ownHostAndPage('profile-replay');

test('a supervision profile replays the past verdicts: nothing recorded yet, then every reviewed round still reviewed', async () => {
  const { page, host } = own;
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/settings'));
  const item = page.locator('[data-testid=profile-item][data-profile-id=fully-gated]');
  // Supervision profiles replay their review rules, teacher profiles their model; no other kind has one.
  await expect(page.locator('[data-testid=profile-kind][data-kind=student] [data-testid=profile-replay]')).toHaveCount(0);

  await item.getByTestId('profile-replay').click();
  await expect(item.getByTestId('profile-replay-headline')).toHaveText(/^No reviewed rounds in this history yet: a supervised run records one each time the teacher is asked\./, { timeout: 20_000 });

  const api = await connectHost(host);
  await api.request('runs.import', { import_id: 'replay-history', events: twoAgentHistory('two-agents', { runs: 1, roundsPerNode: 6, writerBlockEvery: 2 }) as never });
  await item.getByTestId('profile-replay').click();
  await expect(item.getByTestId('profile-replay-headline')).toHaveText('Under Fully gated v1, every one of the 12 reviewed rounds from 1 run would still go to the teacher.', { timeout: 20_000 });
  await expect(item.getByTestId('profile-replay-result')).toHaveAttribute('data-tone', 'ok');
  await shot(page, 'profile-replay');
  await item.getByTestId('profile-replay-close').click();
  await expect(item.getByTestId('profile-replay-result')).toHaveCount(0);
});

// The same button on a teacher profile puts every recorded teacher verdict to the profile's model
// (as `steward eval verdicts --teacher`): here a TEST DOUBLE at the model boundary, a local server
// speaking the Ollama API whose model accepts everything, so the writes the recorded teacher blocked
// (a protected effect) would now be accepted — listed first, under a warning.
test('a teacher profile replays the past verdicts: the protected writes the new model would let through come first, with a warning', async () => {
  const { page, host } = own;
  // It accepts every review, and approves every pattern output it is asked to judge (citing what it was shown).
  const yes = await startFakeOllama({
    models: [{ name: 'yes' }],
    chat: (request) => {
      const judging = String(request.messages[0]?.content ?? '').includes('pattern');
      const cited = [...String(request.messages.at(-1)?.content ?? '').matchAll(/^\[([^\]]+)\]/gm)].map((m) => m[1]);
      return { message: { content: JSON.stringify(judging ? { verdict: 'approved', evidence: cited } : { verdict: 'accept', reason_codes: [], explanation: 'Looks fine.' }) } };
    },
  });
  try {
    const api = await connectHost(host);
    await api.request('runs.import', { import_id: 'teacher-history', events: teacherVerdictsHistory('two-agents', { runs: 1, roundsPerNode: 6, writerBlockEvery: 2, runPrefix: 'teacher-' }) as never });
    // A pattern node's judgments are cases too (seed 002): the debate example, run on this host (its judge rejects, then approves).
    const debate = JSON.parse(readFileSync(join(process.cwd(), 'resources/examples/pattern-debate.workflow.json'), 'utf8')) as Record<string, unknown>;
    await api.request('workflows.save', { workflow: debate as never });
    const { run_id: debated } = (await api.request('workflows.run', { id: String(debate.id), inputs: { topic: 'the storage engine' } } as never)) as { run_id: string };
    await expect.poll(async () => ((await api.request('runs.list', {} as never)) as { runs: Array<{ run_id: string; status: string }> }).runs.find((r) => r.run_id === debated)?.status, { timeout: 30_000 }).toBe('completed');
    const model = { provider: 'ollama', model: 'yes', host: yes.url, mode: 'structured', timeout_ms: 30_000 };
    await api.request('profiles.save', { profiles: [{ origin: 'user', profile: { kind: 'teacher', id: 'yes-teacher', name: 'Says yes', version: 1, created_at: '2026-12-01T09:00:00.000Z', description: '', model } }], workflow_choices: [] } as never);
    await page.reload();
    await page.evaluate(() => (window.location.hash = '#/settings'));
    const item = page.locator('[data-testid=profile-item][data-profile-id=yes-teacher]');
    await expect(item).toBeVisible({ timeout: 20_000 });
    const button = item.getByTestId('profile-replay');
    // The built-in replay teacher only repeats scripted verdicts: nothing to replay (the host refuses one in words).
    await expect(page.locator('[data-testid=profile-item][data-profile-id=replay-teacher] [data-testid=profile-replay]')).toHaveCount(0);
    await expect(button).toHaveAccessibleName('Replay past verdicts under Says yes');
    // Keyboard: focus and Enter start it.
    await button.focus();
    await page.keyboard.press('Enter');
    const result = item.getByTestId('profile-replay-result');
    await expect(item.getByTestId('profile-replay-headline')).toHaveText(
      'Under ollama:yes, 3 of the 12 past verdicts from 1 run flip; 3 past blocks of a protected effect would now be accepted. Do not switch to this teacher as it is. 1 of the 2 pattern judgments flip: it would approve 1 output a judge or a person stopped.',
      { timeout: 30_000 },
    );
    await expect(result).toHaveAttribute('data-tone', 'bad');
    const flips = item.getByTestId('teacher-replay-flip');
    await expect(flips).toHaveCount(3);
    await expect(flips.first()).toHaveAttribute('data-protected-catch-lost', 'true');
    await expect(flips.first().getByTestId('teacher-replay-flip-words')).toHaveText(/^the call write_file .*\(irreversible write, protected\) would now be accepted; the recorded teacher blocked it — then block \(an unsafe effect\): "Not this write\."; now accept: "Looks fine\."$/i);
    // The raw verdicts one click away.
    await flips.first().getByText('Raw verdicts').click();
    await expect(flips.first().getByTestId('teacher-replay-flip-raw')).toContainText('"verdict": "block"');
    // The judge's rejection the candidate would approve, listed apart: a judgment is no effect, never a protected catch.
    const judged = item.getByTestId('teacher-replay-judgment-flip');
    await expect(judged).toHaveCount(1);
    await expect(judged).toHaveAttribute('data-kind', 'catch_lost');
    await expect(judged.getByTestId('teacher-replay-judgment-words')).toHaveText(/^the output would now be approved and leave the node; then the model judge “judge” rejected: "The proponent has not answered/);
    await shot(page, 'profile-replay-teacher');
    expect(yes.requests.filter((r) => r.path === '/api/chat')).toHaveLength(14);
    await item.getByTestId('profile-replay-close').click();
    await expect(result).toHaveCount(0);
  } finally {
    await yes.close();
  }
});
