import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostedEcho as echoOf } from '../../test-support/hosted-workflows';
import { createHost } from './create-host';
import { hostPage } from '../../test-support/host-session';

/** Issue 22: what a person typed in the editor and has not saved is kept by the host, across a restart. */

const hostedEcho = echoOf();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function dataFolder(): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-drafts-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

async function open(dataDir: string) {
  const logs: string[] = [];
  const host = await createHost({ dataDir, shell: 'browser', log: (line) => logs.push(line) });
  let closed = false;
  cleanups.push(() => (closed ? undefined : host.close()));
  const page = hostPage(host);
  return {
    ...page,
    logs,
    close: async () => {
      closed = true;
      await host.close();
    },
  };
}

describe("the host keeps the editor's unsaved drafts", () => {
  it('a draft of a stored workflow — even one that would not save (an empty name) — survives a host restart on the same data folder', async () => {
    const dataDir = dataFolder();
    const first = await open(dataDir);
    const saved = await first.ok('workflows.save', { workflow: hostedEcho });
    const typing = { ...hostedEcho, name: '', description: 'half typed' };
    const kept = await first.ok('drafts.put', { workflow_id: hostedEcho.id, document: typing, base_updated_at: saved.updated_at });
    expect(Date.parse(kept.saved_at)).not.toBeNaN();
    await first.close();

    const second = await open(dataDir);
    const { draft } = await second.ok('drafts.get', { workflow_id: hostedEcho.id });
    expect(draft).toEqual({ workflow_id: hostedEcho.id, document: typing, base_updated_at: saved.updated_at, saved_at: kept.saved_at });
    // The stored workflow itself is untouched by the draft.
    expect((await second.ok('workflows.get', { id: hostedEcho.id })).workflow).toEqual(hostedEcho);
  });

  it('a new workflow has its own draft, apart from stored ones; a later put replaces it and discarding forgets it', async () => {
    const h = await open(dataFolder());
    await h.ok('drafts.put', { document: { ...hostedEcho, id: 'my-workflow', name: 'first' } });
    await h.ok('drafts.put', { document: { ...hostedEcho, id: 'my-workflow', name: 'second' } });
    expect((await h.ok('drafts.get', {})).draft?.document).toMatchObject({ name: 'second' });
    expect(await h.ok('drafts.get', { workflow_id: 'my-workflow' })).toEqual({});
    expect(await h.ok('drafts.discard', {})).toEqual({ discarded: true });
    expect(await h.ok('drafts.discard', {})).toEqual({ discarded: false });
    expect(await h.ok('drafts.get', {})).toEqual({});
  });

  it('refuses, as invalid_params, a document of another shape and an id that is no workflow id (never a path)', async () => {
    const h = await open(dataFolder());
    const shapes: unknown[] = [
      { ...hostedEcho, nodes: 'not a list' },
      { ...hostedEcho, servers: [{ id: 'fs', command: 'rm' }] },
      { ...hostedEcho, nodes: [{ id: 'x', kind: 'no-such-kind' }] },
      { hello: 'world' },
    ];
    for (const document of shapes) {
      const refused = await h.call('drafts.put', { document });
      expect(refused.ok ? 'accepted' : refused.error.code, JSON.stringify(document).slice(0, 80)).toBe('invalid_params');
    }
    const escape = await h.call('drafts.put', { workflow_id: '../outside', document: hostedEcho });
    expect(escape.ok ? 'accepted' : escape.error.code).toBe('invalid_params');
    expect(await h.ok('drafts.get', {})).toEqual({});
  });

  it('a damaged draft file is logged and treated as none, so the workflow still opens', async () => {
    const dataDir = dataFolder();
    const h = await open(dataDir);
    await h.ok('drafts.put', { workflow_id: 'echo', document: hostedEcho });
    const [file] = readdirSync(join(dataDir, 'workflow-drafts'));
    writeFileSync(join(dataDir, 'workflow-drafts', file ?? 'echo.json'), '{ not json');
    expect(await h.ok('drafts.get', { workflow_id: 'echo' })).toEqual({});
    expect(h.logs.some((l) => l.includes('workflow drafts: ignored') && l.includes('damaged'))).toBe(true);
  });

  it('text half typed into a JSON field is kept with the draft exactly as typed, across a restart (issue 28)', async () => {
    const dataDir = dataFolder();
    const first = await open(dataDir);
    await first.ok('workflows.save', { workflow: hostedEcho });
    const typed = { scope: 'say', field: 'inspector-tool-arguments', label: 'Arguments', text: '{ "path": "notes.md",\n  "depth": ', error: 'not JSON yet: Unexpected end of JSON input', base: '{}' };
    // The document is what is stored: only the typed text differs.
    await first.ok('drafts.put', { workflow_id: hostedEcho.id, document: hostedEcho, unparsed: [typed] });
    await first.close();
    const second = await open(dataDir);
    expect((await second.ok('drafts.get', { workflow_id: hostedEcho.id })).draft).toMatchObject({ document: hostedEcho, unparsed: [typed] });
    // Bounded like the document: a text past the draft's size is refused, not cut.
    const huge = await second.call('drafts.put', { workflow_id: hostedEcho.id, document: hostedEcho, unparsed: [{ ...typed, text: 'x'.repeat(600_000) }] });
    expect(huge.ok ? 'accepted' : huge.error.code).toBe('invalid_params');
  });

  it('deleting a workflow forgets its draft', async () => {
    const h = await open(dataFolder());
    await h.ok('workflows.save', { workflow: hostedEcho });
    await h.ok('drafts.put', { workflow_id: hostedEcho.id, document: { ...hostedEcho, description: 'unsaved' } });
    await h.ok('workflows.delete', { id: hostedEcho.id });
    expect(await h.ok('drafts.get', { workflow_id: hostedEcho.id })).toEqual({});
  });
});
