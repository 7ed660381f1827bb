import { describe, expect, it } from 'vitest';
import type { ToolEffect } from '../contracts/tool-effect';
import { resolveToolEffect } from './effect-registry';
import { FILESYSTEM_PACKAGE, MEMORY_PACKAGE, SHIPPED_EFFECTS } from './shipped-effects';

const userEffect: ToolEffect = { effect: 'external_communication', requires_user_confirmation: true, idempotency_supported: false, sensitive_arguments: ['token'] };

describe('resolveToolEffect', () => {
  it('lets a spec override win over the shipped default', () => {
    const r = resolveToolEffect({ serverId: 'fs', packageName: FILESYSTEM_PACKAGE, tool: 'read_text_file', overrides: { 'fs/read_text_file': userEffect } });
    expect(r).toEqual({ effect: userEffect, source: 'user' });
  });

  it('keys overrides by the spec server id, so another server is not affected', () => {
    const r = resolveToolEffect({ serverId: 'other', packageName: FILESYSTEM_PACKAGE, tool: 'read_text_file', overrides: { 'fs/read_text_file': userEffect } });
    expect(r).toMatchObject({ effect: { effect: 'read' }, source: 'shipped' });
  });

  it('uses the shipped default for a known package', () => {
    expect(resolveToolEffect({ serverId: 'fs', packageName: FILESYSTEM_PACKAGE, tool: 'write_file', overrides: {} })).toEqual({
      effect: { effect: 'irreversible_write', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: [] },
      source: 'shipped',
    });
    expect(resolveToolEffect({ serverId: 'mem', packageName: MEMORY_PACKAGE, tool: 'delete_entities', overrides: {} }).effect.effect).toBe('irreversible_write');
  });

  it('never trusts a self-reported serverInfo name: a command-started server claiming to be the filesystem server stays protected', () => {
    expect(resolveToolEffect({ serverId: 'x', serverName: 'secure-filesystem-server', tool: 'read_text_file', overrides: {} })).toMatchObject({
      effect: { effect: 'unknown' },
      source: 'missing',
    });
    // A package that is not shipped is not rescued by a familiar-sounding serverInfo name.
    expect(
      resolveToolEffect({ serverId: 'x', packageName: 'some-other-server', serverName: 'secure-filesystem-server', tool: 'read_text_file', overrides: {} }).source,
    ).toBe('missing');
  });

  it('treats an unknown tool, server or package as missing and protected', () => {
    const missing = { effect: { effect: 'unknown', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] }, source: 'missing' };
    expect(resolveToolEffect({ serverId: 'fs', packageName: FILESYSTEM_PACKAGE, tool: 'format_disk', overrides: {} })).toEqual(missing);
    expect(resolveToolEffect({ serverId: 'x', serverName: 'my-server', tool: 'read_text_file', overrides: {} })).toEqual(missing);
    expect(resolveToolEffect({ serverId: 'x', tool: 'read_text_file', overrides: {} })).toEqual(missing);
  });

  it('does not mistake Object.prototype members for entries', () => {
    for (const tool of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(resolveToolEffect({ serverId: 'fs', packageName: FILESYSTEM_PACKAGE, tool, overrides: {} }).source).toBe('missing');
    }
    expect(resolveToolEffect({ serverId: 'x', serverName: 'constructor', tool: 'echo', overrides: {} }).source).toBe('missing');
  });

  it('hands out copies, so a caller cannot change the shipped table', () => {
    const r = resolveToolEffect({ serverId: 'fs', packageName: FILESYSTEM_PACKAGE, tool: 'read_text_file', overrides: {} });
    r.effect.effect = 'unknown';
    r.effect.sensitive_arguments.push('path');
    expect(SHIPPED_EFFECTS[FILESYSTEM_PACKAGE]?.tools.read_text_file).toMatchObject({ effect: 'read', sensitive_arguments: [] });
  });

  it('leaves get-env of the everything server unclassified (it returns the server environment)', () => {
    expect(resolveToolEffect({ serverId: 'ev', serverName: 'mcp-servers/everything', tool: 'get-env', overrides: {} }).source).toBe('missing');
  });
});
