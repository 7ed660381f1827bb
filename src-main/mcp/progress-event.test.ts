import { describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { toolProgressEvent } from './progress-event';

const SECRET = 'sk-planted-0123456789';
const mask = (text: string) => text.split(SECRET).join('••••');

describe('a progress report as a tool.progress event', () => {
  it('masks a secret the server echoes in its message and is a valid event once stamped', () => {
    const payload = toolProgressEvent(2, 'k-1', { server: 'db', tool: 'query', progress: 3, total: 8, message: `scanning with ${SECRET}` }, mask);
    expect(payload).toEqual({ type: 'tool.progress', round: 2, server: 'db', tool: 'query', idempotency_key: 'k-1', progress: 3, total: 8, message: 'scanning with ••••' });
    expect(JSON.stringify(payload)).not.toContain(SECRET);
    expect(RunEvent.safeParse({ ...payload, id: 'run-0001:000001', run_id: 'run-0001', seq: 1, ts: new Date().toISOString() }).success).toBe(true);
  });

  it('drops a total that says nothing (zero) and keeps a long message within 200 characters', () => {
    const payload = toolProgressEvent(0, 'k-2', { server: 's', tool: 't', progress: 5, total: 0, message: 'x'.repeat(500) }, mask);
    expect(payload.total).toBeUndefined();
    expect(payload.message).toHaveLength(200);
  });
});
