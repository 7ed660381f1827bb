import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallDecision } from '@shared/contracts/decision';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { McpToolConfigError } from './errors';
import { createMemoryLedger } from './idempotency-ledger';
import { scriptServerHosts } from '../../test-support/script-server-host';
import { MALFORMED_REPLY, startToolHost, type McpToolHost, type ToolHostOptions } from './mcp-tool-host';

/** A real SDK-built stdio server with the tools these claims need: see the script's header. */
const startCaps = scriptServerHosts('./capabilities-mcp-server.mjs', 'caps');
const start = (extra: Partial<McpServerSpec> = {}, options: Partial<ToolHostOptions> = {}) => startCaps([], extra, options);
const require = createRequire(import.meta.url);
const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const hosts: McpToolHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

function offered(snapshot: ToolSnapshot, name: string) {
  const tool = snapshot.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no ${name} in ${snapshot.tools.map((t) => t.name).join(', ')}`);
  return tool;
}

const call = (name: string, args: Record<string, unknown> = {}): ToolCallDecision => ({ decision_type: 'tool_call', tool_name: name, arguments: args });

describe('tool hygiene (real SDK server on stdio)', () => {
  it('a tool marked for the app only is never offered to a model; one marked for model and app is', async () => {
    const host = await start();
    const names = (await host.snapshot(0)).tools.map((t) => t.name);
    expect(names).not.toContain('app_panel');
    expect(names).toContain('both_panel');
  });

  it('naming an app-only tool in the allowlist is a configuration error that says why', async () => {
    const host = await start({ tools: ['app_panel', 'both_panel'] });
    const error = await host.snapshot(0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolConfigError);
    expect((error as Error).message).toMatch(/marks tool "app_panel" for its app only/);
  });

  it('a malformed result is one short error, counted as possibly run, with no schema dump for the model', async () => {
    const logs: string[] = [];
    const host = await start({}, { onLog: (line) => logs.push(line) });
    const tool = offered(await host.snapshot(0), 'malformed');
    const execution = await host.execute({ decision: call('malformed'), tool, idempotency_key: 'k-malformed' });
    expect(execution).toMatchObject({ ok: false, is_error: true, content: MALFORMED_REPLY, error: MALFORMED_REPLY });
    expect(JSON.stringify(execution).length).toBeLessThan(600);
    // The detail is kept for the log, shortened.
    const line = logs.find((l) => l.includes('malformed reply'));
    expect(line).toBeDefined();
    expect((line ?? '').length).toBeLessThan(400);
    // What the boundary then records: the key is spent, never run again.
    const ledger = createMemoryLedger();
    ledger.begin('k-malformed', { run_id: 'r', round: 0, server: 'caps', tool: 'malformed' });
    ledger.finish('k-malformed', { ok: execution.ok, is_error: execution.is_error });
    expect(ledger.state('k-malformed')).toBe('executed');
  });

  it('a stdio server inherits only the minimal environment plus the variables inherit_env names', async () => {
    process.env.STEWARD_TEST_INHERITED = 'passed-on';
    process.env.STEWARD_TEST_PRIVATE = 'kept-back';
    try {
      const host = await start({ inherit_env: ['STEWARD_TEST_INHERITED', 'STEWARD_TEST_UNSET'] });
      const tool = offered(await host.snapshot(0), 'echo_env');
      const execution = await host.execute({ decision: call('echo_env'), tool, idempotency_key: 'k-env' });
      const env = JSON.parse(execution.content) as Record<string, string>;
      expect(env.STEWARD_TEST_INHERITED).toBe('passed-on');
      expect(env).not.toHaveProperty('STEWARD_TEST_PRIVATE');
      expect(env).not.toHaveProperty('STEWARD_TEST_UNSET');
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.STEWARD_TEST_INHERITED;
      delete process.env.STEWARD_TEST_PRIVATE;
    }
  });
});

describe('roots (real servers)', () => {
  it("a server asking for roots is told the run's workspace folder", async () => {
    const workspace = path.resolve('test-support');
    const host = await start({}, { vars: { workspace } });
    const tool = offered(await host.snapshot(0), 'roots');
    const execution = await host.execute({ decision: call('roots'), tool, idempotency_key: 'k-roots' });
    expect(JSON.parse(execution.content)).toEqual([{ uri: `file://${workspace}`, name: 'test-support' }]);
  });

  it('server-everything sees the roots capability and lists the workspace folder', async () => {
    const workspace = path.resolve('test-support');
    const host = await startToolHost([{ id: 'everything', command: process.execPath, args: [everythingBin] }], {
      vars: { workspace },
      overrides: {},
      cwd: process.cwd(),
      startTimeoutMs: 60_000,
    });
    hosts.push(host);
    // Its roots tool is registered only for a client that declares roots.
    const tool = offered(await host.snapshot(0), 'get-roots-list');
    const execution = await host.execute({ decision: call('get-roots-list'), tool, idempotency_key: 'k-roots-everything' });
    expect(execution.content).toContain(`file://${workspace}`);
  });
});

describe('roots never widen what a server was started with', () => {
  it('the filesystem server started on a subfolder keeps to it, though the run’s workspace is its parent', async () => {
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'steward-roots-')));
    try {
      fs.mkdirSync(path.join(workspace, 'notes'));
      fs.writeFileSync(path.join(workspace, 'notes', 'a.md'), 'inside\n');
      fs.writeFileSync(path.join(workspace, 'private.md'), 'outside the subfolder\n');
      const host = await startToolHost([{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}/notes'] }], {
        vars: { workspace },
        overrides: {},
        cwd: workspace,
        startTimeoutMs: 60_000,
      });
      hosts.push(host);
      const tool = offered(await host.snapshot(0), 'read_text_file');
      const inside = await host.execute({ decision: call('read_text_file', { path: path.join(workspace, 'notes', 'a.md') }), tool, idempotency_key: 'k-in' });
      expect(inside.content).toContain('inside');
      const outside = await host.execute({ decision: call('read_text_file', { path: path.join(workspace, 'private.md') }), tool, idempotency_key: 'k-out' });
      expect(outside.is_error).toBe(true);
      expect(outside.content).not.toContain('outside the subfolder');
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
