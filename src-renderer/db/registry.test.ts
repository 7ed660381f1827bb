import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import { StewardDb } from './db';
import { serverIdentity, storeInspection, withHostEffects } from './registry';
import { suggestionFromHints } from '../supervision/annotation-suggestion';

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-registry-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

describe('registry rows from the host', () => {
  it('the host’s overrides are the user’s metadata, beside (never over) a cached inspection, and a value the page stored itself is ignored', async () => {
    const user: ToolEffect = { effect: 'reversible_write', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] };
    await storeInspection(db, 'filesystem', [
      { name: 'write_file', description: 'Write', input_schema: {}, effect: { ...user, effect: 'irreversible_write' }, effect_source: 'shipped', hints: { readOnlyHint: false, destructiveHint: true } },
      { name: 'read_file', description: 'Read', input_schema: {}, effect: { ...user, effect: 'read' }, effect_source: 'shipped' },
    ]);
    await db.registry.update(['filesystem', 'read_file'], { user: { ...user, effect: 'read' } });
    const rows = withHostEffects(await db.registry.toArray(), [
      { server: 'filesystem', tool: 'write_file', effect: user },
      { server: 'mine', tool: 'send', effect: { ...user, effect: 'external_communication' } },
    ]);
    expect(rows.find((r) => r.tool === 'write_file')).toMatchObject({ user, inspected: { name: 'write_file' } });
    expect(rows.find((r) => r.tool === 'read_file')?.user).toBeUndefined();
    expect(rows.find((r) => r.server === 'mine')).toMatchObject({ tool: 'send', user: { effect: 'external_communication' } });
    expect(serverIdentity({ server: 'filesystem' })).toBe('filesystem');
  });
});

describe('annotation suggestions', () => {
  it('map hints conservatively and only when the server gave any', () => {
    expect(suggestionFromHints(undefined)).toBeUndefined();
    expect(suggestionFromHints({ title: 'Write' })).toBeUndefined();
    expect(suggestionFromHints({ readOnlyHint: true, openWorldHint: true })?.effect).toBe('read');
    expect(suggestionFromHints({ readOnlyHint: false, openWorldHint: true })?.effect).toBe('external_communication');
    expect(suggestionFromHints({ destructiveHint: true })?.effect).toBe('irreversible_write');
    // MCP's default for a non-read-only tool is destructive.
    expect(suggestionFromHints({ readOnlyHint: false })?.effect).toBe('irreversible_write');
    expect(suggestionFromHints({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })).toEqual({
      effect: 'reversible_write',
      requires_user_confirmation: false,
      idempotency_supported: true,
      sensitive_arguments: [],
    });
  });
});
