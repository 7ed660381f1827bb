import { describe, expect, it } from 'vitest';
import { ClientFrame } from '@shared/contracts/host-api';
import { isClientFrame } from './frame-shape';

// The preload's dependency-free check must accept exactly what the ClientFrame schema accepts.
const samples: unknown[] = [
  { kind: 'request', id: 1, method: 'host.info', params: {} },
  { kind: 'request', id: 0, method: '', params: null },
  { kind: 'request', id: 2, method: 'events.ack', params: { ids: ['a'] } },
  { kind: 'request', id: 2, method: 'x', params: [1, 2] },
  { kind: 'request', id: 3, method: 'x' },
  { kind: 'request', id: 3, method: 'x', params: undefined },
  { kind: 'request', id: -1, method: 'x', params: {} },
  { kind: 'request', id: 1.5, method: 'x', params: {} },
  { kind: 'request', id: Number.MAX_SAFE_INTEGER + 2, method: 'x', params: {} },
  { kind: 'request', id: '1', method: 'x', params: {} },
  { kind: 'request', id: 1, method: 7, params: {} },
  { kind: 'response', id: 1, method: 'x', params: {} },
  { kind: 'request', id: 1, method: 'x', params: {}, extra: true },
  { id: 1, method: 'x', params: {} },
  null,
  'request',
  [],
  [{ kind: 'request', id: 1, method: 'x', params: {} }],
];

describe('isClientFrame (preload check)', () => {
  it.each(samples.map((sample, index) => [index, sample]))('agrees with the ClientFrame schema on sample %i', (_index, sample) => {
    expect(isClientFrame(sample)).toBe(ClientFrame.safeParse(sample).success);
  });

  it('accepts a real request, with or without params, and refuses unknown keys', () => {
    expect(isClientFrame({ kind: 'request', id: 1, method: 'host.info', params: {} })).toBe(true);
    expect(isClientFrame({ kind: 'request', id: 1, method: 'host.info' })).toBe(true);
    expect(isClientFrame({ kind: 'request', id: 1, method: 'host.info', token: 'x' })).toBe(false);
  });
});
