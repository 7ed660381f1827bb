import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ReactNode } from 'react';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import type { LearningExampleRow } from './example-row';
import { FakeTransport } from '../../testing/fake-transport';
import { LearningTable } from './LearningTable';

/** As the page first paints it (no viewport measured yet), inside a host context that never connects. */
function paint(node: ReactNode): string {
  const db = new StewardDb(`steward-learning-table-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={createHostClient(new FakeTransport())} db={db} tokenMissing={false}>
      {node}
    </HostProvider>,
  );
}
const count = (html: string, needle: string) => html.split(needle).length - 1;

const replaced = (i: number): LearningExampleRow => ({
  id: `run-${Math.floor(i / 20)}:${String(i % 20).padStart(6, '0')}`,
  run_id: `run-${Math.floor(i / 20)}`,
  seq: i % 20,
  spec_id: 'notes-cleanup',
  ts: new Date(Date.UTC(2026, 0, 1) + (20_000 - i) * 60_000).toISOString(),
  round: i % 20,
  kind: 'review',
  context: [
    { role: 'system', content: 'You keep the notes folder tidy.' },
    { role: 'user', content: `Task: summarise notes/todo-${i}.md` },
  ],
  rule: 'protected_effect',
  student_candidate: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: '/etc/hosts', content: 'oops' } },
  verdict: {
    verdict: 'replace',
    reason_codes: ['unsafe_effect'],
    explanation: 'Writing outside the notes folder is not allowed.',
    replacement: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'notes/summary.md', content: '- buy milk' } },
  },
  final_decision: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'notes/summary.md', content: '- buy milk' } },
  reason_codes: ['unsafe_effect'],
  agreement: false,
  models: { student: 'ollama:qwen3:4b', teacher: 'replay' },
});
const examples = Array.from({ length: 20_000 }, (_, i) => replaced(i));

describe('the Learning list', () => {
  it('20,000 examples put fewer than 200 rows in the page, each closed, opened by a button a keyboard reaches', () => {
    const html = paint(<LearningTable examples={examples} nameOf={() => 'Tidy the notes folder'} onNearEnd={() => undefined} />);
    const rows = count(html, 'data-testid="learning-row"');
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(200);
    expect(html).toMatch(/<button[^>]*aria-expanded="false"[^>]*aria-label="Open the example of round 1"/);
    expect(html).not.toContain('data-testid="example-detail"');
  });

  it('an opened example shows its prompt, the student’s candidate, the teacher’s verdict with its reason, the replacement and the final decision', () => {
    const opened = examples[3]!;
    const html = paint(<LearningTable examples={examples.slice(0, 10)} nameOf={() => 'Tidy the notes folder'} onNearEnd={() => undefined} initiallyOpen={opened.id} />);
    expect(count(html, 'data-testid="example-detail"')).toBe(1);
    expect(html).toMatch(/aria-expanded="true"[^>]*aria-label="Close the example of round 4"/);
    const detail = html.slice(html.indexOf('data-testid="example-detail"'));
    expect(detail).toContain('Task: summarise notes/todo-3.md');
    expect(detail).toContain('You keep the notes folder tidy.');
    expect(detail.slice(detail.indexOf('data-testid="example-candidate"'))).toContain('/etc/hosts');
    expect(detail.slice(detail.indexOf('data-testid="example-verdict"'))).toContain('Writing outside the notes folder is not allowed.');
    expect(detail).toContain('unsafe effect');
    expect(detail.slice(detail.indexOf('data-testid="example-replacement"'))).toContain('notes/summary.md');
    expect(detail).toContain(`href="#/runs/${opened.run_id}"`);
  });
});
