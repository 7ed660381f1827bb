import { describe, expect, it } from 'vitest';
import { importSummary } from './import-summary';

/** Issue 26: the import's report says what was not stored and why, never "already there" for what was not. */

describe('what an import says it did', () => {
  it('a plain import: events and runs', () => {
    expect(importSummary({ imported: 1, runs: 1, repeated: 0, held: 0 })).toBe('imported 1 event of 1 run');
  });

  it('tells repeats (there unchanged) from a held run\'s new events (left out), and says what was trimmed or masked', () => {
    expect(importSummary({ imported: 3, runs: 2, repeated: 4, held: 2, repeatedLines: 1, trimmed: 1, masked: 2 })).toBe(
      'imported 3 events of 2 runs; 4 events already there unchanged; 2 events of runs the history already held left out (a run keeps the events it has); ' +
        '1 line repeating an earlier one, taken once; 1 event with model text over 16 KiB trimmed, as recorded runs are; 2 events holding what looks like an API key or token, masked',
    );
  });
});
