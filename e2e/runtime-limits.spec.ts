import { expect, test } from '@playwright/test';
import { shot } from './helpers';
import { ownHostAndPage } from './own-host';

// Issue 29: the Runtime group is editable. A round limit typed in the panel is validated in words,
// saved in the workflow, honoured by the next run and shown in its report. The model is the demo's
// replay script (the test double at the model boundary); the MCP filesystem server is real.

const own = ownHostAndPage('runtime');

test('a round limit set in the Runtime group is refused out of range, saved in range, and the next run stops at it and reports it', async () => {
  const { page } = own;
  await page.goto(own.host.url);
  const card = page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' });
  await expect(card).toBeVisible({ timeout: 30_000 });
  await card.getByTestId('configure-button').click();
  const panel = page.getByTestId('supervision-panel');
  const group = panel.getByTestId('group-runtime');
  await group.getByRole('button', { name: /Runtime/ }).click();
  const rounds = group.getByTestId('runtime-max_rounds');
  await expect(rounds).toHaveValue('8');

  // Out of range: said in words under the field, and nothing can be saved.
  await rounds.fill('0');
  await expect(group.locator('#cfg-limits-max_rounds-issue')).toHaveText('The round limit is a whole number of rounds from 1 to 200.');
  await expect(rounds).toHaveAttribute('aria-invalid', 'true');
  await expect(group.getByTestId('runtime-refused')).toContainText('Not saved');
  await expect(group.getByTestId('runtime-save')).toBeDisabled();
  await group.getByTestId('runtime-decision_timeout_s').fill('900');
  await expect(group.locator('#cfg-limits-decision_timeout_ms-issue')).toHaveText('The decision timeout is from 1 to 600 seconds, in whole milliseconds.');
  await shot(page, 'runtime-group-refused', false);

  // In range: saved in the workflow's document.
  await rounds.fill('2');
  await group.getByTestId('runtime-decision_timeout_s').fill('30');
  await group.getByTestId('runtime-max_output_tokens').fill('4096');
  await group.getByTestId('runtime-save').click();
  await expect(group.getByTestId('runtime-result')).toContainText('the next run uses these limits');
  await expect(group).toContainText('2 rounds · 30 s per decision · 4,096 tokens per reply');
  await shot(page, 'runtime-group-saved', false);

  // The next run: the demo's script (its file allows 8 rounds) needs four; the limit stops it after two.
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await card.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'max_rounds', { timeout: 20_000 });
  await expect(page.getByTestId('run-rounds')).toHaveText('2');
  await expect(page.getByTestId('round-card')).toHaveCount(2);
  await page.getByTestId('run-setup').locator('summary').click();
  const limits = page.getByTestId('run-limits');
  await expect(limits.locator('[data-limit=max_rounds]')).toHaveText('Round limit: 2 rounds');
  await expect(limits.locator('[data-limit=decision_timeout_ms]')).toHaveText('Decision timeout: 30 s per decision or review');
  await expect(limits.locator('[data-limit=max_output_tokens]')).toHaveText('Model reply bound: 4,096 output tokens per reply');
  await shot(page, 'runtime-limits-run-report');
});
