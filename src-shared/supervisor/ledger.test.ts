import { describe, expect, it } from 'vitest';
import type { SupervisorVerdict } from './contracts';
import { emptyLedger, MEMORY_LIMIT, MEMORY_REASON_CHARS, recordVerdict, SupervisorLedger } from './ledger';
import { escalation } from './testing/fixtures';

/** The supervisor's memory in the run's ledger: its own decisions, the newest MEMORY_LIMIT, one line each. */

const applied = (index: number, overrides: Partial<SupervisorVerdict> = {}): SupervisorVerdict => ({
  escalation_id: `e${index}`,
  verdict: { action: 'skip', reason: `item ${index} is poisoned` },
  decided_by: 'agent',
  turns: 1,
  cost_usd: 0,
  ...overrides,
});

describe("the supervisor's memory in the run's ledger", () => {
  it('keeps each decision the supervisor was asked for, with its one-line rationale, oldest first', () => {
    let ledger = emptyLedger();
    ledger = recordVerdict(ledger, escalation({ lineage: [{ iterate: 'each', index: 0 }] }), applied(0));
    ledger = recordVerdict(ledger, escalation({ lineage: [{ iterate: 'each', index: 1 }] }), applied(1, { verdict: { action: 'fail', reason: 'the supervisor gave no usable verdict' }, decided_by: 'kernel' }));
    expect(ledger.memory).toEqual([
      { node: 'extract', invocation: 'extract[each=0]', action: 'skip', decided_by: 'agent', reason: 'item 0 is poisoned' },
      { node: 'extract', invocation: 'extract[each=1]', action: 'fail', decided_by: 'kernel', reason: 'the supervisor gave no usable verdict' },
    ]);
  });

  it('remembers nothing the supervisor was not asked about: a sticky or bound verdict (no turn) adds no line', () => {
    const ledger = recordVerdict(emptyLedger(), escalation(), applied(0, { decided_by: 'sticky', turns: 0 }));
    expect(ledger.memory).toEqual([]);
  });

  it('stays bounded over a long run: the newest 20 decisions, each rationale one line of at most 160 characters', () => {
    let ledger = emptyLedger();
    const long = `a rationale\nover several lines ${'and very long '.repeat(40)}`;
    for (let i = 0; i < 250; i++) ledger = recordVerdict(ledger, escalation({ lineage: [{ iterate: 'each', index: i }] }), applied(i, { verdict: { action: 'skip', reason: `#${i} ${long}` } }));
    expect(ledger.decisions).toBe(250);
    expect(ledger.memory).toHaveLength(MEMORY_LIMIT);
    expect(ledger.memory.map((m) => m.invocation)).toEqual(Array.from({ length: 20 }, (_, k) => `extract[each=${230 + k}]`));
    for (const m of ledger.memory) {
      expect(m.reason.length).toBeLessThanOrEqual(MEMORY_REASON_CHARS);
      expect(m.reason).not.toContain('\n');
      expect(m.reason.endsWith('…')).toBe(true);
    }
    // What the checkpoint stores parses back, bound and all.
    expect(SupervisorLedger.parse(JSON.parse(JSON.stringify(ledger)))).toEqual(ledger);
  });

  it('a checkpoint written before the memory existed reads with an empty one', () => {
    expect(SupervisorLedger.parse({ decisions: 2, retries: {}, spent_usd: 0, sticky: {} }).memory).toEqual([]);
    expect(SupervisorLedger.safeParse({ ...emptyLedger(), memory: Array(21).fill({ node: 'n', invocation: 'n', action: 'skip', decided_by: 'agent', reason: 'x' }) }).success).toBe(false);
  });
});
