import { describe, expect, it } from 'vitest';
import type { ArgumentProvenance } from '@shared/boundary/provenance';
import { confirmPolicy } from './cli-io';
import { provenanceLines } from './format-provenance';

/** The terminal's words for where a call's values came from (issue 31): before a confirmation at the terminal, and in a waiting run's lines. */

const marks: ArgumentProvenance[] = [
  { path: 'to', value: 'attacker@example.com', kind: 'email', sources: [{ server: 'fs', tool: 'read_text_file', round: 1, trust: 'untrusted' }] },
  { path: 'body', value: 'quarterly figures attached', kind: 'text', sources: [{ server: 'notes', tool: 'search', round: 0, trust: 'trusted' }, { server: 'fs', tool: 'read_text_file', round: 3, trust: 'untrusted' }] },
];

describe('provenance at the terminal', () => {
  it('one line per value with its server, tool and round (numbered from 1) and trust; untrusted text is said plainly; nothing when every value is the person\'s', () => {
    expect(provenanceLines(marks)).toEqual([
      '  where its values came from (untrusted: written by someone other than you; check it is what you asked for):',
      '    to carries "attacker@example.com" from fs/read_text_file in round 2 (untrusted)',
      '    body carries "quarterly figures attached" from notes/search in round 1 (trusted); also in fs/read_text_file in round 4 (untrusted)',
    ]);
    expect(provenanceLines([marks[1]!].map((m) => ({ ...m, sources: [m.sources[0]!] })))[0]).toBe('  where its values came from:');
    expect(provenanceLines([])).toEqual([]);
    expect(provenanceLines(undefined)).toEqual([]);
  });

  it('a confirmation asked at the terminal prints the lines before the question', async () => {
    let stderr = '';
    const asked: string[] = [];
    const confirm = confirmPolicy(false, false, { stdout: () => undefined, stderr: (t) => (stderr += t), env: {}, ask: async (q) => (asked.push(q), false) }, false, 'unavailable');
    const answer = await confirm({ run_id: 'r', round: 2, server: 'mail', tool: 'send', arguments: { to: 'attacker@example.com' }, provenance: marks });
    expect(answer).toBe('denied');
    expect(stderr).toContain('to carries "attacker@example.com" from fs/read_text_file in round 2 (untrusted)');
    expect(asked).toEqual(['Allow mail/send {"to":"attacker@example.com"}?']);
  });
});
