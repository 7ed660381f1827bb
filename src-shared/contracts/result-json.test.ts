import { describe, expect, it } from 'vitest';
import { differencesJson, interventionsJson, nodeDifferencesJson } from './result-json';
import type { RoundComparison } from '../replay/compare-runs';
import { Intervention } from './intervention';

const decisions = (round: number) => ({ round, executed: false });

describe('--json output numbers rounds from 1', () => {
  it('every kind of replay difference says the round people read, its recorded and replayed sides too', () => {
    const differences: RoundComparison[] = [
      { kind: 'differs', round: 0, fields: ['tool'], recorded: decisions(0), replayed: decisions(0) },
      { kind: 'only_recorded', round: 1, recorded: decisions(1) },
      { kind: 'only_replayed', round: 2, replayed: decisions(2) },
      { kind: 'same', round: 3 },
    ];
    expect(JSON.stringify(differencesJson(differences))).not.toMatch(/"round":0/);
    expect(differencesJson(differences).map((d) => d.round)).toEqual([1, 2, 3, 4]);
    const [differs] = differencesJson(differences);
    expect(differs?.kind === 'differs' && [differs.recorded.round, differs.replayed.round]).toEqual([1, 1]);
    const node = nodeDifferencesJson([{ kind: 'round', node: 'draft', invocation: 'draft#0', comparison: differences[0] as RoundComparison }]);
    expect(node[0]?.kind === 'round' && node[0].comparison.round).toBe(1);
  });

  it('a waiting node’s intervention says the round from 1', () => {
    const intervention = Intervention.parse({ id: 'intervention-1', run_id: 'r', round: 0, kind: 'ask_user', reason: 'which file?', options: ['reply'], requested_at: '2026-12-01T00:00:00.000Z' });
    const shown = interventionsJson([{ invocation_id: 'n#0', intervention }]);
    expect(shown[0]?.intervention.round).toBe(1);
  });
});
