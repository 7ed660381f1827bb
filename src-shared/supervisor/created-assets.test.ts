import { describe, expect, it } from 'vitest';
import type { EffectClass } from '../contracts/tool-effect';
import { createdAssets, MAX_CREATED_ASSETS } from './created-assets';

const effects = new Map<string, EffectClass>([
  ['fs/read_text_file', 'read'],
  ['fs/write_file', 'irreversible_write'],
  ['fs/move_file', 'irreversible_write'],
  ['fs/create_directory', 'reversible_write'],
  ['memory/create_entities', 'reversible_write'],
  ['memory/create_relations', 'reversible_write'],
  ['web/post', 'external_communication'],
]);
const effectOf = (server: string, tool: string) => effects.get(`${server}/${tool}`);
const call = (server: string, tool: string, args: Record<string, unknown>, ok = true, is_error = false) => ({ server, tool, arguments: args, ok, is_error });

describe('createdAssets: what an attempt\'s tool calls created, by effect class', () => {
  it('names what each write made; reads and sends are not assets; each asset once', () => {
    expect(
      createdAssets(
        [
          call('fs', 'read_text_file', { path: '/n/a.md' }),
          call('fs', 'write_file', { path: '/n/a.md', content: 'x' }),
          call('fs', 'write_file', { path: '/n/a.md', content: 'y' }),
          call('fs', 'create_directory', { path: '/n/d' }),
          call('fs', 'move_file', { source: '/n/a.md', destination: '/n/b.md' }),
          call('memory', 'create_entities', { entities: [{ name: 'Ada', entityType: 'person' }, { name: 'Bob' }] }),
          call('memory', 'create_relations', { relations: [{ from: 'Ada', to: 'Bob', relationType: 'knows' }] }),
          call('web', 'post', { url: 'https://x' }),
        ],
        effectOf,
      ),
    ).toEqual(['fs/write_file: /n/a.md', 'fs/create_directory: /n/d', 'fs/move_file: /n/b.md', 'memory/create_entities: entity Ada', 'memory/create_entities: entity Bob', 'memory/create_relations: relation Ada knows Bob']);
  });

  it('a failed call may still have had its effect, and a tool of unknown effect may have made anything: both are listed, said so', () => {
    expect(createdAssets([call('fs', 'write_file', { path: '/n/c.md' }, false), call('other', 'do_it', { x: 1 })], effectOf)).toEqual([
      'fs/write_file: /n/c.md (may have been made: the call failed)',
      'other/do_it (a tool of unknown effect)',
    ]);
  });

  it('is bounded as the escalation is (100 assets of at most 500 characters), and reads arguments by own keys only', () => {
    const many = Array.from({ length: 150 }, (_, i) => call('fs', 'write_file', { path: `/n/${i}-${'x'.repeat(600)}` }));
    const out = createdAssets(many, effectOf);
    expect(out).toHaveLength(MAX_CREATED_ASSETS);
    expect(out.every((a) => a.length <= 500)).toBe(true);
    const inherited = Object.create({ path: '/inherited' }) as Record<string, unknown>;
    expect(createdAssets([call('fs', 'write_file', inherited)], effectOf)).toEqual(['fs/write_file (a write)']);
  });
});
