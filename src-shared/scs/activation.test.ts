import { describe, expect, it } from 'vitest';
import type { EffectClass } from '../contracts/tool-effect';
import { decideActivation, type ActivationFacts } from './activation';
import type { ScsMode } from './contracts';
import { scsSettings } from './testing/fixtures';

const tool = (name: string, effect: EffectClass) => ({ name, effect });
const READ_ONLY = [tool('read_file', 'read'), tool('list_directory', 'read')];
const WITH_WRITE = [...READ_ONLY, tool('write_file', 'reversible_write')];
const settings = scsSettings({ auto_long_budget: 10 });

function facts(over: Partial<ActivationFacts> = {}): ActivationFacts {
  return { tools: READ_ONLY, max_rounds: 4, failures: 0, ...over };
}

describe('SCS activation', () => {
  const table: { claim: string; mode: ScsMode; facts: ActivationFacts; active: boolean; reason: string }[] = [
    { claim: 'off stays off even for write work', mode: 'off', facts: facts({ tools: WITH_WRITE, max_rounds: 40, failures: 3 }), active: false, reason: 'SCS is off' },
    { claim: 'on gates even a short read-only task', mode: 'on', facts: facts(), active: true, reason: 'SCS is on' },
    { claim: 'auto activates when a protected tool is offered', mode: 'auto', facts: facts({ tools: WITH_WRITE }), active: true, reason: 'auto: protected tools offered (write_file)' },
    {
      claim: 'auto treats a tool nobody described (unknown effect) as protected',
      mode: 'auto',
      facts: facts({ tools: [...READ_ONLY, tool('mystery', 'unknown')] }),
      active: true,
      reason: 'auto: protected tools offered (mystery)',
    },
    { claim: 'auto activates for a long step budget', mode: 'auto', facts: facts({ max_rounds: 10 }), active: true, reason: 'auto: long step budget (10 rounds)' },
    { claim: 'auto activates after earlier failures in the run', mode: 'auto', facts: facts({ failures: 2 }), active: true, reason: 'auto: earlier failures in this run (2)' },
    {
      claim: 'auto stays off for short read-only work without failures',
      mode: 'auto',
      facts: facts({ max_rounds: 9 }),
      active: false,
      reason: 'auto: read-only work with a short budget, SCS stays off',
    },
    { claim: 'auto stays off with no tools at all', mode: 'auto', facts: facts({ tools: [] }), active: false, reason: 'auto: read-only work with a short budget, SCS stays off' },
  ];

  for (const row of table) {
    it(row.claim, () => {
      expect(decideActivation(row.mode, row.facts, settings)).toEqual({ active: row.active, reason: row.reason });
    });
  }

  it('the reason names protected tools first, at most four of them', () => {
    const many = ['write_file', 'edit_file', 'move_file', 'create_directory', 'send_email'].map((n) => tool(n, 'reversible_write'));
    const decision = decideActivation('auto', facts({ tools: [...READ_ONLY, ...many], max_rounds: 50, failures: 1 }), settings);
    expect(decision).toEqual({ active: true, reason: 'auto: protected tools offered (write_file, edit_file, move_file, create_directory, …)' });
  });

  it('the long-budget threshold comes from the settings', () => {
    expect(decideActivation('auto', facts({ max_rounds: 6 }), scsSettings({ auto_long_budget: 6 })).active).toBe(true);
    expect(decideActivation('auto', facts({ max_rounds: 6 }), scsSettings({ auto_long_budget: 7 })).active).toBe(false);
  });
});
