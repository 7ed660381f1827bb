import type { RunEventOf } from '@shared/contracts/events';

const MARKS = { pending: '·', running: '▸', waiting: '⏸', done: '✓', failed: '✗', skipped: '–', cancelled: '■' } as const;
const WORDS = { pending: 'pending', running: 'running', waiting: 'waiting for you', done: 'done', failed: 'failed', skipped: 'skipped', cancelled: 'cancelled' } as const;

/** One progress line per node invocation status change: `  ▸ extract[list=2] running`. */
export function formatInvocation(event: RunEventOf<'node.invocation'>): string {
  const id = event.invocation_id ?? event.node;
  const reason = event.failure ? `: ${event.failure.message.split('\n')[0]?.slice(0, 200) ?? ''}` : '';
  return `  ${MARKS[event.status]} ${id} ${WORDS[event.status]}${reason}`;
}

/** A run output for the terminal: text as it is, anything else as JSON. */
export function formatOutputs(outputs: Record<string, unknown>): string[] {
  return Object.entries(outputs).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`);
}
