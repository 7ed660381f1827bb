import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowDocument } from '@shared/contracts/spec';
import { AgentSpec } from '@shared/contracts/spec';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import { StewardDb } from './db';
import { serverIdentity, setUserEffect, storeInspection, toolEffectsFor } from './registry';
import { suggestionFromHints } from '../supervision/annotation-suggestion';

let db: StewardDb;
beforeEach(async () => {
  db = new StewardDb(`steward-registry-test-${Math.random().toString(36).slice(2)}`);
  await db.open();
});
afterEach(async () => {
  await db.delete();
});

const FS = '@modelcontextprotocol/server-filesystem';
const workflow = (id: string, serverId: string) =>
  WorkflowDocument.parse({
    format: 'steward/v1',
    kind: 'agent',
    id,
    name: id,
    instructions: 'i',
    task: 't',
    servers: [
      { id: serverId, package: FS, args: ['/tmp/x'] },
      { id: 'tool', command: '/usr/local/bin/my-mcp' },
    ],
  });

describe('registry → tool_effects', () => {
  it('metadata set once for a server applies to every workflow using it, keyed by each workflow’s server id', async () => {
    const write: ToolEffect = { effect: 'irreversible_write', requires_user_confirmation: true, idempotency_supported: true, sensitive_arguments: [] };
    await setUserEffect(db, FS, 'write_file', write);
    await setUserEffect(db, '/usr/local/bin/my-mcp', 'send', { effect: 'external_communication', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: ['token'] });
    const rows = await db.registry.toArray();

    const a = toolEffectsFor(workflow('a', 'fs'), rows);
    const b = toolEffectsFor(workflow('b', 'files'), rows);
    expect(a).toEqual({ 'fs/write_file': write, 'tool/send': expect.objectContaining({ effect: 'external_communication', sensitive_arguments: ['token'] }) });
    expect(b['files/write_file']).toEqual(write);
    // What the registry produces is what the spec format accepts.
    expect(() => AgentSpec.parse({ ...workflow('a', 'fs'), tool_effects: a })).not.toThrow();
    expect(serverIdentity({ id: 'x', command: '/usr/local/bin/my-mcp' })).toBe('/usr/local/bin/my-mcp');
  });

  it('an inspection is kept beside the user’s metadata, never over it, and resetting removes only the user’s', async () => {
    const user: ToolEffect = { effect: 'reversible_write', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] };
    await setUserEffect(db, FS, 'write_file', user);
    await storeInspection(db, FS, [
      { name: 'write_file', description: 'Write', input_schema: {}, effect: { ...user, effect: 'irreversible_write' }, effect_source: 'shipped', hints: { readOnlyHint: false, destructiveHint: true } },
      { name: 'read_file', description: 'Read', input_schema: {}, effect: { ...user, effect: 'read' }, effect_source: 'shipped' },
    ]);
    expect((await db.registry.get([FS, 'write_file']))?.user).toEqual(user);
    expect(toolEffectsFor(workflow('a', 'fs'), await db.registry.toArray())).toEqual({ 'fs/write_file': user });

    await setUserEffect(db, FS, 'write_file', undefined);
    const row = await db.registry.get([FS, 'write_file']);
    expect(row?.user).toBeUndefined();
    expect(row?.inspected?.name).toBe('write_file');
    expect(toolEffectsFor(workflow('a', 'fs'), await db.registry.toArray())).toEqual({});
  });

  it('refuses metadata that is not a tool effect', async () => {
    await expect(setUserEffect(db, FS, 'x', { effect: 'maybe' } as never)).rejects.toThrow();
    expect(await db.registry.count()).toBe(0);
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
