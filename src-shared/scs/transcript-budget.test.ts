import { describe, expect, it } from 'vitest';
import { budgetTranscript, transcriptText, type TranscriptEntry } from './transcript-budget';

const decisions = (n: number): TranscriptEntry[] =>
  Array.from({ length: n }, (_, i) =>
    i % 10 === 9
      ? { who: 'monitor', kind: 'accept_phase', text: `monitor accept_phase at round ${i + 1}: progress matches the plan, the summary is on its way` }
      : { who: 'executor', kind: i % 3 ? 'read_text_file' : 'write_file', text: `round ${i + 1}: ${i % 3 ? 'read_text_file' : 'write_file'} {"path":"notes/${i}.md"} → executed${i % 7 ? '' : ': error: EACCES'}`, failed: i % 7 === 0 },
  );

describe('the SCS transcript budget', () => {
  it('the transcript stays within its budget with 200 decisions: newest verbatim, older summarised', () => {
    for (const budget of [500, 1000, 4000]) {
      const t = budgetTranscript(decisions(200), budget);
      const text = transcriptText(t);
      expect(text.length).toBeLessThanOrEqual(budget);
      expect(t.chars).toBeLessThanOrEqual(budget);
      // The newest decision is kept word for word; the oldest only counted.
      expect(t.verbatim.at(-1)).toBe(decisions(200).at(-1)?.text);
      expect(text).not.toContain('notes/0.md');
      expect(t.summary).toMatch(/^Earlier: \d+ decisions, summarised; executor: \d+ rounds, \d+ failed \(read_text_file×\d+, write_file×\d+\); monitor: accept_phase×\d+$/);
    }
  });

  it('a short transcript is kept whole, with no summary', () => {
    const t = budgetTranscript(decisions(3), 4000);
    expect(t.summary).toBeUndefined();
    expect(t.verbatim).toEqual(decisions(3).map((d) => d.text));
  });
});
