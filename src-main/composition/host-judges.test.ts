import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { ActionResult, AuditRecord, ConfirmResult } from '@shared/contracts/audit';
import type { HostMethod, HostParams, ResponseFrame } from '@shared/contracts/host-api';
import type { RegisteredServer, Workspace } from '@shared/contracts/host-registry';
import type { EffectOverride } from '@shared/contracts/host-registry';
import { createKeychainStore } from '../credentials/keychain-store';
import { createHost } from './create-host';
import type { ConfirmAction, ConfirmRequest, Host, HostSession } from './host-types';

/**
 * Issue 7: the page (or anyone holding its token) can ask; the host decides. These drive the real
 * host through `handle`, the door both shells use, and read the one-time code from its log, which
 * the browser shell prints on its terminal.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);

async function startHost(options: { confirm?: ConfirmAction; withKeychain?: boolean } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-judge-'));
  const logs: string[] = [];
  const credentials = options.withKeychain ? createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` }) : undefined;
  const host: Host = await createHost({ dataDir, shell: 'browser', log: (line) => logs.push(line), confirm: options.confirm, credentials });
  const events: RunEvent[] = [];
  const session: HostSession = { id: 'page', push: (frame) => (frame.kind === 'events' ? events.push(...frame.events) : 0) };
  let nextId = 1;
  const call = (method: HostMethod | string, params: unknown): Promise<ResponseFrame> => host.handle({ kind: 'request', id: nextId++, method, params }, session);
  const ok = async <M extends HostMethod>(method: M, params: HostParams<M>): Promise<unknown> => {
    const frame = await call(method, params);
    if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
    return frame.result;
  };
  cleanups.push(async () => {
    if (credentials) for (const name of await credentials.list()) await credentials.delete(name);
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  /** The code the host printed for the latest confirmation, as the person reads it on the terminal. */
  const printedCode = (): string => {
    const line = [...logs].reverse().find((l) => /type this code in the page: \d{3}-\d{3}/.test(l));
    return /(\d{3}-\d{3})/.exec(line ?? '')?.[1] ?? 'none';
  };
  const audit = async () => ((await ok('audit.list', {})) as { records: AuditRecord[] }).records;
  return { dataDir, logs, host, events, call, ok, printedCode, audit, credentials };
}

const wrong = (code: string) => `${code.slice(0, 3)}-${String((Number(code.slice(4)) + 1) % 1000).padStart(3, '0')}`;

describe('the page cannot run or reach what it did not register', () => {
  it('run.start with an inline command server is refused as invalid params, and the command never runs', async () => {
    const h = await startHost();
    const marker = join(h.dataDir, 'ran');
    const { workflows } = (await h.ok('workspace.demo', {})) as { workflows: HostedWorkflow[] };
    const demo = workflows[0]!;
    const inline = { ...demo, servers: [{ id: 'x', command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`] }] };
    const reply = await h.call('run.start', { workflow: inline, overrides: {} });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    const unknown = await h.call('run.start', { workflow: { ...demo, servers: [{ id: 'x', server: 'not-registered' }] }, overrides: {} });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(marker)).toBe(false);
  });

  it('run.start names no folder, side file, privacy or tool effects of its own', async () => {
    const h = await startHost();
    const { workflows } = (await h.ok('workspace.demo', {})) as { workflows: HostedWorkflow[] };
    const demo = workflows[0]!;
    const refused = [
      { workflow: { ...demo, workspace: tmpdir() }, overrides: {} },
      { workflow: { ...demo, script: undefined, script_file: '/etc/passwd' }, overrides: {} },
      { workflow: { ...demo, tool_effects: { 'fs/write_file': { effect: 'read' } } }, overrides: {} },
      { workflow: demo, overrides: { privacy: { allowed_hosts: ['api.openai.com'] } } },
      { workflow: demo, overrides: { tool_effects: { 'fs/write_file': { effect: 'read' } } } },
    ];
    for (const params of refused) expect(await h.call('run.start', params)).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    expect(await h.call('run.start', { workflow: { ...demo, workspace: 'not-registered' }, overrides: {} })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('mcp.inspect takes a registered server id, never a command', async () => {
    const h = await startHost();
    expect(await h.call('mcp.inspect', { server: { id: 'x', command: 'sh', args: ['-c', 'id'] } })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    expect(await h.call('mcp.inspect', { server: 'not-registered' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const inspected = (await h.ok('mcp.inspect', { server: 'memory' })) as { tools: { name: string; effect_source: string }[] };
    expect(inspected.tools.length).toBeGreaterThan(3);
  });

  it('the demo still runs through run.start by ids, in its registered copy of the sandbox', async () => {
    const h = await startHost();
    const { workflows } = (await h.ok('workspace.demo', {})) as { workflows: HostedWorkflow[] };
    const demo = workflows.find((w) => w.id === 'notes-assistant')!;
    expect(demo.servers).toEqual([expect.objectContaining({ id: 'fs', server: 'filesystem' })]);
    const { workspaces } = (await h.ok('workspaces.list', {})) as { workspaces: Workspace[] };
    const folder = workspaces.find((w) => w.id === demo.workspace)!;
    expect(folder).toMatchObject({ in_data_folder: true });
    await h.ok('events.subscribe', {});
    const { run_id } = (await h.ok('run.start', { workflow: demo, overrides: {} })) as { run_id: string };
    const deadline = Date.now() + 30_000;
    while (!h.events.some((e) => e.run_id === run_id && e.type === 'run.finished') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(h.events.find((e) => e.run_id === run_id && e.type === 'run.finished')).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(folder.path, 'summary.md'), 'utf8').length).toBeGreaterThan(20);
    // The demo copy's registration is in the audit log, decided automatically (inside the data folder).
    expect(await h.audit()).toContainEqual(expect.objectContaining({ action: 'workspaces.register', subject: demo.workspace, decided_by: 'automatic', outcome: 'approved' }));
  }, 40_000);
});

describe('what widens access waits for the code printed on the host terminal', () => {
  it('registering a command server needs the code: a wrong one changes nothing, the right one registers it, both audited', async () => {
    const h = await startHost();
    const server = { id: 'mine', label: 'My server', command: process.execPath, args: ['server.js'] };
    const asked = (await h.ok('servers.register', { server })) as ActionResult;
    expect(asked).toMatchObject({ status: 'needs_confirmation' });
    if (asked.status !== 'needs_confirmation') return;
    expect(h.logs.at(-1)).toContain(process.execPath);
    const code = h.printedCode();
    expect(await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code: wrong(code) })).toEqual({ status: 'wrong_code', attempts_left: 2 });
    let listed = ((await h.ok('servers.list', {})) as { servers: RegisteredServer[] }).servers;
    expect(listed.some((s) => s.id === 'mine')).toBe(false);
    expect(await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code })).toEqual({ status: 'done' });
    listed = ((await h.ok('servers.list', {})) as { servers: RegisteredServer[] }).servers;
    expect(listed).toContainEqual(expect.objectContaining({ id: 'mine', command: process.execPath, source: 'user' }));
    // A code works once.
    expect(await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code })).toMatchObject({ status: 'denied' });
    expect(await h.audit()).toContainEqual(expect.objectContaining({ action: 'servers.register', subject: 'mine', decided_by: 'terminal_code', outcome: 'approved' }));
    // Removing it is narrowing: done at once, audited.
    expect(await h.ok('servers.remove', { id: 'mine' })).toEqual({ status: 'done' });
    expect((await h.audit())[0]).toMatchObject({ action: 'servers.remove', subject: 'mine', decided_by: 'automatic', outcome: 'approved' });
  });

  it('a server or workspace id already registered is never overwritten by a new registration, only by an edit of it (replace)', async () => {
    const h = await startHost();
    const inside = join(h.dataDir, 'workspaces', 'notes');
    mkdirSync(inside, { recursive: true });
    expect(await h.ok('workspaces.register', { workspace: { id: 'notes', path: inside } })).toEqual({ status: 'done' });
    const elsewhere = join(h.dataDir, 'workspaces', 'other');
    mkdirSync(elsewhere, { recursive: true });
    expect(await h.call('workspaces.register', { workspace: { id: 'notes', path: elsewhere } })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('"notes" is already registered') } });
    expect(((await h.ok('workspaces.list', {})) as { workspaces: Workspace[] }).workspaces.find((w) => w.id === 'notes')?.path).toBe(inside);
    expect(await h.ok('workspaces.register', { workspace: { id: 'notes', path: elsewhere }, replace: true })).toEqual({ status: 'done' });

    const server = { id: 'mine', label: 'My server', command: process.execPath, args: ['server.js'] };
    const asked = (await h.ok('servers.register', { server })) as ActionResult;
    if (asked.status !== 'needs_confirmation') throw new Error(`expected a confirmation, got ${asked.status}`);
    expect(await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code: h.printedCode() })).toEqual({ status: 'done' });
    // Another window registering the same id with another command: refused before anyone is asked.
    expect(await h.call('servers.register', { server: { ...server, args: ['other.js'] } })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(((await h.ok('servers.list', {})) as { servers: RegisteredServer[] }).servers.find((s) => s.id === 'mine')?.args).toEqual(['server.js']);
    // The owner's edit replaces it, confirmed like a registration.
    const edit = (await h.ok('servers.register', { server: { ...server, args: ['other.js'] }, replace: true })) as ActionResult;
    expect(edit.status).toBe('needs_confirmation');
  });

  it('widening privacy without the code changes nothing; three wrong codes deny it for good; narrowing needs none', async () => {
    const h = await startHost();
    const asked = (await h.ok('privacy.set', { policy: { allowed_hosts: ['api.openai.com'] } })) as ActionResult;
    expect(asked.status).toBe('needs_confirmation');
    if (asked.status !== 'needs_confirmation') return;
    const code = h.printedCode();
    expect(await h.ok('privacy.get', {})).toEqual({ policy: { allowed_hosts: [] } });
    const answers: ConfirmResult[] = [];
    for (let i = 0; i < 3; i++) answers.push((await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code: wrong(code) })) as ConfirmResult);
    expect(answers.map((a) => a.status)).toEqual(['wrong_code', 'wrong_code', 'denied']);
    // The right code after that is too late.
    expect(await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code })).toMatchObject({ status: 'denied' });
    expect(await h.ok('privacy.get', {})).toEqual({ policy: { allowed_hosts: [] } });
    expect((await h.audit())[0]).toMatchObject({ action: 'privacy.set', outcome: 'denied', decided_by: 'terminal_code', reason: 'too many wrong codes' });

    const again = (await h.ok('privacy.set', { policy: { allowed_hosts: ['api.openai.com', 'example.org'] } })) as ActionResult;
    if (again.status !== 'needs_confirmation') throw new Error('expected a confirmation');
    expect(await h.ok('actions.confirm', { confirmation_id: again.confirmation_id, code: h.printedCode() })).toEqual({ status: 'done' });
    expect(await h.ok('privacy.get', {})).toEqual({ policy: { allowed_hosts: ['api.openai.com', 'example.org'] } });
    expect(await h.ok('privacy.set', { policy: { allowed_hosts: ['example.org'] } })).toEqual({ status: 'done' });
    expect((await h.audit())[0]).toMatchObject({ action: 'privacy.set', decided_by: 'automatic', outcome: 'approved' });
  });

  it('downgrading a tool effect needs the code, an upgrade does not, and undoing an upgrade is a downgrade', async () => {
    const h = await startHost();
    const down = (await h.ok('effects.set', { server: 'filesystem', tool: 'write_file', effect: { effect: 'read' } })) as ActionResult;
    expect(down.status).toBe('needs_confirmation');
    expect(await h.ok('effects.list', {})).toEqual({ overrides: [] });
    expect(await h.ok('effects.set', { server: 'filesystem', tool: 'read_text_file', effect: { effect: 'irreversible_write', requires_user_confirmation: true } })).toEqual({ status: 'done' });
    const { overrides } = (await h.ok('effects.list', {})) as { overrides: EffectOverride[] };
    expect(overrides).toEqual([expect.objectContaining({ server: 'filesystem', tool: 'read_text_file', effect: expect.objectContaining({ effect: 'irreversible_write' }) })]);
    // Removing that override goes back to the shipped `read`: less protected, so it asks too.
    expect(await h.ok('effects.set', { server: 'filesystem', tool: 'read_text_file', effect: null })).toMatchObject({ status: 'needs_confirmation' });
    const records = await h.audit();
    expect(records[0]).toMatchObject({ action: 'effects.set', subject: 'filesystem/read_text_file', decided_by: 'automatic', outcome: 'approved' });
    expect(await h.call('effects.set', { server: 'nope', tool: 'x', effect: null })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('a folder outside the data folder needs the code; one inside it does not; one holding the data folder is refused', async () => {
    const h = await startHost();
    const outside = mkdtempSync(join(tmpdir(), 'steward-outside-'));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const asked = (await h.ok('workspaces.register', { workspace: { id: 'projects', path: outside } })) as ActionResult;
    expect(asked.status).toBe('needs_confirmation');
    expect(((await h.ok('workspaces.list', {})) as { workspaces: Workspace[] }).workspaces.some((w) => w.id === 'projects')).toBe(false);
    const inside = join(h.dataDir, 'workspaces', 'scratch');
    mkdirSync(inside, { recursive: true });
    expect(await h.ok('workspaces.register', { workspace: { id: 'scratch', path: inside } })).toEqual({ status: 'done' });
    expect(await h.call('workspaces.register', { workspace: { id: 'all', path: tmpdir() } })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    expect(await h.call('workspaces.register', { workspace: { id: 'data', path: h.dataDir } })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
  });

  it.skipIf(!hasSessionBus)('a credential is written only with the code, and the audit log names it without its value', async () => {
    const h = await startHost({ withKeychain: true });
    const value = `sk-planted-${randomBytes(12).toString('hex')}`;
    const asked = (await h.ok('credentials.set', { name: 'openai', value })) as ActionResult;
    expect(asked.status).toBe('needs_confirmation');
    if (asked.status !== 'needs_confirmation') return;
    expect(await h.ok('credentials.list', {})).toEqual({ credentials: [] });
    expect(await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code: wrong(h.printedCode()) })).toMatchObject({ status: 'wrong_code' });
    expect(await h.ok('credentials.list', {})).toEqual({ credentials: [] });
    expect(await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code: h.printedCode() })).toEqual({ status: 'done' });
    expect(await h.ok('credentials.list', {})).toEqual({ credentials: [{ name: 'openai' }] });
    expect(readFileSync(join(h.dataDir, 'audit.jsonl'), 'utf8')).not.toContain(value);
    expect(h.logs.join('\n')).not.toContain(value);
    expect((await h.audit())[0]).toMatchObject({ action: 'credentials.set', subject: 'openai', outcome: 'approved' });
  });

  it('a withdrawn request is denied and audited as withdrawn', async () => {
    const h = await startHost();
    const asked = (await h.ok('privacy.set', { policy: { allowed_hosts: ['api.openai.com'] } })) as ActionResult;
    if (asked.status !== 'needs_confirmation') throw new Error('expected a confirmation');
    expect(await h.ok('actions.cancel', { confirmation_id: asked.confirmation_id })).toEqual({ cancelled: true });
    expect((await h.audit())[0]).toMatchObject({ action: 'privacy.set', decided_by: 'page', outcome: 'denied' });
    expect(await h.ok('actions.confirm', { confirmation_id: asked.confirmation_id, code: h.printedCode() })).toMatchObject({ status: 'denied' });
  });
});

describe('in the Electron shell a native dialog decides', () => {
  it('a declined dialog changes nothing; an allowed one applies; both are audited as the dialog’s decision', async () => {
    const asked: ConfirmRequest[] = [];
    let allow = false;
    const h = await startHost({ confirm: { kind: 'dialog', ask: async (request) => (asked.push(request), allow) } });
    expect(await h.ok('privacy.set', { policy: { allowed_hosts: ['api.openai.com'] } })).toMatchObject({ status: 'denied' });
    expect(await h.ok('privacy.get', {})).toEqual({ policy: { allowed_hosts: [] } });
    allow = true;
    expect(await h.ok('privacy.set', { policy: { allowed_hosts: ['api.openai.com'] } })).toEqual({ status: 'done' });
    expect(asked.map((a) => a.action)).toEqual(['privacy.set', 'privacy.set']);
    expect(asked[0]!.title).toContain('api.openai.com');
    expect((await h.audit()).slice(0, 2).map((r) => [r.decided_by, r.outcome])).toEqual([
      ['user_dialog', 'approved'],
      ['user_dialog', 'denied'],
    ]);
  });
});
