import { describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import { memorySealKeys } from '../../test-support/seal-keys-double';
import { SecretRegistry } from '../credentials/secret-registry';
import { RunCheckpoint } from './checkpoint';
import { openRunCheckpoint, sealRunCheckpoint } from './sealed-run-checkpoint';

/**
 * Issue 27 with issue 30: a run that waits holding a sensitive value waits sealed, and a call paused
 * by its server's question (2026-07-28 multi round-trip) keeps two more things that may carry such a
 * value: the answers the host already gave the server (a sampled model reply can repeat what the
 * model was shown) and the server's opaque `requestState` (a server may keep the call's arguments in
 * it). Both go into the box; in the clear the checkpoint keeps which call asks what, as a page is
 * shown it. Sealed with the real AES-256-GCM box; the keychain is its in-memory stand-in.
 */

const PLANTED = 'pin-4417-planted';

function waiting(): RunCheckpoint {
  const runId = 'run-sealed-input-0001';
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'book-a-room',
    name: 'Book a room',
    instructions: 'Book the room the task names.',
    task: 'Book room blue.',
    servers: [{ id: 'hotel', url: 'http://127.0.0.1:9/mcp' }],
    tool_effects: { 'hotel/book_room': { effect: 'reversible_write', sensitive_arguments: ['pin'] } },
  });
  const decision = { decision_type: 'tool_call' as const, tool_name: 'book_room', arguments: { room: 'blue', pin: PLANTED } };
  return RunCheckpoint.parse({
    version: 1,
    run_id: runId,
    saved_at: '2026-12-05T10:00:00.000Z',
    spec,
    spec_dir: '/tmp',
    script_positions: { student: 1, teacher: 1 },
    next_round: 1,
    next_seq: 12,
    rounds_before: 0,
    history: [{ index: 0, round: 0, decision }],
    consecutive_failures: 0,
    takeover_left: 1,
    delivered: [],
    intervention: {
      id: 'intervention-0001',
      run_id: runId,
      round: 0,
      kind: 'server_input',
      decision,
      reason: 'hotel/book_room asks you',
      options: ['approve', 'decline', 'cancel', 'stop'],
      requested_at: '2026-12-05T10:00:00.000Z',
      server_input: { server: 'hotel', tool: 'book_room', asks: [{ key: 'guest', mode: 'form', message: 'Who is room blue for?', fields: [] }] },
    },
    server_input: {
      server: 'hotel',
      tool: 'book_room',
      asks: [{ key: 'guest', mode: 'form', message: 'Who is room blue for?', fields: [] }],
      round: 0,
      idempotency_key: 'key-0001',
      responses: { summary: { role: 'assistant', content: { type: 'text', text: `Booking with ${PLANTED}` } } },
      request_state: `opaque:${PLANTED}`,
    },
  });
}

describe('a paused call in a sealed checkpoint', () => {
  it('keeps the answers the host gave and the server’s requestState only in the box; the question stays readable; opened, the call continues as it was', async () => {
    const raw = waiting();
    const keys = memorySealKeys();
    const secrets = new SecretRegistry();
    secrets.registerSensitive(PLANTED);
    const sealed = sealRunCheckpoint(raw, await keys.current(), secrets);
    const stored = JSON.stringify(RunCheckpoint.parse(JSON.parse(JSON.stringify(sealed))));
    expect(stored).not.toContain(PLANTED);
    expect(sealed.server_input).toEqual({ server: 'hotel', tool: 'book_room', asks: raw.server_input?.asks, round: 0, idempotency_key: 'key-0001', responses: {} });

    const opened = await openRunCheckpoint(RunCheckpoint.parse(JSON.parse(stored)), keys);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.checkpoint.server_input).toEqual(raw.server_input);
    expect(opened.checkpoint.history).toEqual(raw.history);
  });
});
